"""Reaching files under the workspace root without following a symbolic link anywhere on the way.

Checkpoints, `agent diff` and `agent undo` read, walk and unlink with these: every path from a
transcript is data the model could have shaped, and any of its directories may have been
swapped for a link since it was recorded. Each operation starts from an fd on the root and
opens one name at a time with O_NOFOLLOW, so a link in any component ends the operation
instead of leading it outside. The walk is iterative and keeps one directory fd open
whatever the depth (it climbs back with '..' and checks it arrived where it came from).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from agentcli.core.record import record
from agentcli.tools.sandbox import replace_in_dir, temp_name

O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
O_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # NONBLOCK: a FIFO must not hang us


def clean_parts(rel: str) -> list[str] | None:
    """The names of a workspace-relative POSIX path, or None when it is not one (absolute, '..',
    empty or '.' parts, NUL): a transcript record is data, never a path to trust as written."""
    if not isinstance(rel, str) or not rel or rel.startswith("/") or "\x00" in rel:
        return None
    parts = rel.split("/")
    if any(p in ("", ".", "..") for p in parts):
        return None
    return parts


def open_dir(root: Path | str, parts: list[str]) -> int:
    """An fd on root/parts..., every name opened with O_NOFOLLOW. Raises OSError: FileNotFoundError
    when a directory is missing, ELOOP/ENOTDIR when a link or a file stands in the way."""
    fd = os.open(os.path.realpath(root), O_DIR)  # the root is the user's folder; below it, nothing is followed
    try:
        for part in parts:
            nxt = os.open(part, O_DIR, dir_fd=fd)
            os.close(fd)
            fd = nxt
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_at(dfd: int, name: str, st: os.stat_result, limit: int) -> bytes | None:
    """The bytes of regular file `name` in `dfd` if it is still the file `st` describes, else None."""
    try:
        fd = os.open(name, O_FILE, dir_fd=dfd)
    except OSError:
        return None
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            return None
        chunks, left = [], limit + 1
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    finally:
        os.close(fd)


@record
class _Frame:
    prefix: str  # rel path of this directory with a trailing '/' ('' for the root)
    ident: tuple[int, int]  # (st_dev, st_ino): where '..' must lead back to
    todo: list[str] = field(default_factory=list)  # subdirectories still to visit, last first


Visit = Callable[[int, str, str, os.stat_result], None]


def walk(root: Path | str, visit: Visit, max_entries: int) -> str:
    """Call visit(dir_fd, name, rel, lstat) for every entry under `root` that is not a directory,
    in a stable order. Returns '' when every entry was visited, else why the walk stopped."""
    fd = os.open(os.path.realpath(root), O_DIR)  # the root is the user's folder; below it, nothing is followed
    count = 0

    def scan(prefix: str) -> tuple[list[str], str]:
        nonlocal count
        subdirs: list[str] = []
        with os.scandir(fd) as it:
            entries = sorted(it, key=lambda e: e.name)
        for e in entries:
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue  # removed while walking
            if stat.S_ISDIR(st.st_mode):
                subdirs.append(e.name)
                continue
            count += 1
            if count > max_entries:
                return subdirs, f"the workspace holds more than {max_entries:,} files"
            visit(fd, e.name, prefix + e.name, st)
        subdirs.reverse()
        return subdirs, ""

    try:
        st = os.fstat(fd)
        todo, why = scan("")
        if why:
            return why
        frames = [_Frame("", (st.st_dev, st.st_ino), todo)]
        while frames:
            top = frames[-1]
            if top.todo:
                name = top.todo.pop()
                try:
                    child = os.open(name, O_DIR, dir_fd=fd)
                except FileNotFoundError:
                    continue
                except OSError:  # no longer a directory (a link or file swapped in): an entry like any other
                    try:
                        lst = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except OSError:
                        continue
                    visit(fd, name, top.prefix + name, lst)
                    continue
                cst = os.fstat(child)
                os.close(fd)
                fd = child
                todo, why = scan(top.prefix + name + "/")
                if why:
                    return why
                frames.append(_Frame(top.prefix + name + "/", (cst.st_dev, cst.st_ino), todo))
                continue
            frames.pop()
            if not frames:
                break
            parent = os.open("..", O_DIR, dir_fd=fd)
            pst = os.fstat(parent)
            os.close(fd)
            fd = parent
            if (pst.st_dev, pst.st_ino) != frames[-1].ident:
                return "a directory was moved while the workspace was being read"
        return ""
    finally:
        os.close(fd)


def write_atomic(root: Path | str, parts: list[str], data: bytes) -> None:
    """Replace root/parts... with `data` (temp file, fsync, rename), creating missing folders,
    never through a link: a link in any component, or as the file itself, raises OSError."""
    fd = os.open(os.path.realpath(root), O_DIR)  # the root is the user's folder; below it, nothing is followed
    try:
        for part in parts[:-1]:
            try:
                nxt = os.open(part, O_DIR, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(part, 0o755, dir_fd=fd)
                nxt = os.open(part, O_DIR, dir_fd=fd)
            os.close(fd)
            fd = nxt
        name, mode = parts[-1], 0o644
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if not stat.S_ISREG(st.st_mode):
                raise OSError(f"{name!r} is no longer a regular file")
            mode = stat.S_IMODE(st.st_mode)
        # The same temp shape the file tools use (a killed write is swept by them), its name cut
        # by bytes: a 255-byte name plus the suffix must still fit NAME_MAX.
        replace_in_dir(fd, name, temp_name(name), data, mode)
    finally:
        os.close(fd)


def unlink(root: Path | str, parts: list[str]) -> None:
    """Remove root/parts... without following a link on the way (a link as the last name is
    removed itself, never its target). A missing file is not an error."""
    try:
        dfd = open_dir(root, parts[:-1])
    except FileNotFoundError:
        return
    try:
        os.unlink(parts[-1], dir_fd=dfd)
    except FileNotFoundError:
        pass
    finally:
        os.close(dfd)
