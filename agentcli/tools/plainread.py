"""One no-follow read of a regular file's head.

Its own module, below both `sandbox` (whose write checks consult `git_guard`) and `git_guard`
(which reads gitfiles with it), so neither has to import the other to share it."""

from __future__ import annotations

import os
import stat


def read_plain(path: str | os.PathLike[str], limit: int) -> bytes | None:
    """A regular file's first `limit` bytes, its last name opened without following a link (a FIFO
    does not block the open); None when it is missing, a link, not a regular file or unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return os.read(fd, limit)
    except OSError:
        return None
    finally:
        os.close(fd)
