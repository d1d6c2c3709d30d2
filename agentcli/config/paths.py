"""Where agentcli keeps user files, and how it writes private ones.

XDG variables are read at call time (never cached), so tests and wrappers can
point the program elsewhere by setting the environment.
"""

from __future__ import annotations

import os
from pathlib import Path

APP = "agentcli"


def _xdg(var: str, fallback: tuple[str, ...]) -> Path:
    # The XDG spec says relative values are invalid and must be ignored.
    value = os.environ.get(var, "")
    if value and os.path.isabs(value):
        return Path(value) / APP
    return Path.home().joinpath(*fallback, APP)


def config_dir() -> Path:
    """User configuration: profiles/, config.toml, trusted.json."""
    return _xdg("XDG_CONFIG_HOME", (".config",))


def data_dir() -> Path:
    """User data: saved sessions, learned model facts."""
    return _xdg("XDG_DATA_HOME", (".local", "share"))


def cache_dir() -> Path:
    """Disposable files that can be rebuilt."""
    return _xdg("XDG_CACHE_HOME", (".cache",))


def user_profiles_dir() -> Path:
    return config_dir() / "profiles"


def settings_file() -> Path:
    """The user settings file (default_profile, ...)."""
    return config_dir() / "config.toml"


def ensure_private_dir(path: Path) -> Path:
    """Create `path` and missing parents; every directory we create is 0700."""
    missing: list[Path] = []
    p = path
    while not p.exists():
        missing.append(p)
        if p.parent == p:
            break
        p = p.parent
    for d in reversed(missing):
        try:
            d.mkdir(mode=0o700)
        except FileExistsError:
            continue
        os.chmod(d, 0o700)  # mkdir's mode is filtered by the umask
    return path


def write_private(path: Path | str, data: bytes | str) -> Path:
    """Write a file readable only by its owner (0600), atomically: temp file + rename."""
    path = Path(path)
    ensure_private_dir(path.parent)
    import tempfile  # here: most commands read config and never write it

    raw = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path


def private_file(path: Path) -> Path:
    """Make sure `path` exists, readable only by its owner (created 0600, an existing one narrowed),
    for files other code appends to (the chat history)."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)
    return path
