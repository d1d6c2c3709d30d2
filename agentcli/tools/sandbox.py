"""The workspace sandbox: every file tool path resolves here, on real paths, never by string prefix.

Checks happen twice: `resolve` refuses shapes and real paths outside the root, and the
open itself walks the path component by component with O_NOFOLLOW from a directory fd
held on the root, so a symlink swapped in after the check cannot lead the open outside.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
import unicodedata
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.record import record
from agentcli.tools.plainread import read_plain  # noqa: F401  (re-exported: AGENTS.md loading reads through it)

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
_O_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_O_FILE = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # NONBLOCK: a FIFO must not hang us
_FIX_OUTSIDE = "Use a path inside the workspace, relative to its root (for example 'src/main.py')."
# write_atomic's temp files: `.NAME.agentcli-PID-8HEX.tmp`. Only names of exactly this shape are ever swept.
TEMP_NAME = re.compile(r"\.(?P<name>.{1,200})\.agentcli-(?P<pid>[1-9][0-9]{0,9})-[0-9a-f]{8}\.tmp", re.DOTALL)
STALE_TEMP_S = 5.0  # a temp file untouched this long, whose writer is gone, was left by a killed write
_ORPHAN_TEMP_S = 3600.0  # ... and one this old is stale even if its pid now names another live process
_in_flight: set[tuple[int, int, str]] = set()  # (dir dev, dir inode, temp name) being written by this process
_in_flight_lock = threading.Lock()


def is_temp_name(name: str) -> bool:
    """True for the hidden temp files write_atomic makes (list_files and search never show them)."""
    return name.endswith(".tmp") and ".agentcli-" in name and TEMP_NAME.fullmatch(name) is not None


def _pid_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def sweep_stale_temps(dfd: int) -> list[str]:
    """Remove temp files a killed write_atomic left in this directory; the names removed.

    Never touches a name that is not exactly our pattern, a non-regular file, a temp this
    process is still writing, or one modified in the last STALE_TEMP_S seconds.
    """
    removed: list[str] = []
    now = time.time()
    try:
        dst = os.fstat(dfd)
        names = [n for n in os.listdir(dfd) if is_temp_name(n)]
    except OSError:
        return removed
    for name in names:
        m = TEMP_NAME.fullmatch(name)
        with _in_flight_lock:
            if (dst.st_dev, dst.st_ino, name) in _in_flight:
                continue
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except OSError:
            continue
        age = now - st.st_mtime
        if not stat.S_ISREG(st.st_mode) or age < STALE_TEMP_S:
            continue
        pid = int(m["pid"])  # type: ignore[index]
        if pid != os.getpid() and _pid_alive(pid) and age < _ORPHAN_TEMP_S:
            continue  # another live process may still be writing it
        try:
            os.unlink(name, dir_fd=dfd)
        except OSError:
            continue
        removed.append(name)
    return removed


def _own_dir_of(real: str) -> str | None:
    """agentcli's own config, data or cache dir holding `real` (a real path), or None.

    Checked by real path on every write, whatever the workspace is: with the workspace at the
    home directory, the profiles and the trust file would otherwise be ordinary workspace files.
    """
    from agentcli.config.paths import cache_dir, config_dir, data_dir

    for d in (config_dir(), data_dir(), cache_dir()):
        own = os.path.realpath(d)
        if real == own or real.startswith(own.rstrip(os.sep) + os.sep):
            return own
    return None


def _refuse(message: str, path: str, fix: str = _FIX_OUTSIDE) -> ToolFailure:
    return ToolFailure.of(ErrorCode.PERMISSION, message, fix, path=path[:300])


@record
class Entry:
    """One directory entry as the walker reports it; `kind` is file, dir, link or other."""

    rel: str
    name: str
    kind: str
    size: int
    depth: int


def temp_name(name: str) -> str:
    """write_atomic's temp name for `name` (TEMP_NAME's shape), its prefix cut by bytes so that a
    255-byte name plus the suffix still fits NAME_MAX."""
    prefix = name.encode("utf-8", "surrogateescape")[:150].decode("utf-8", "ignore") or "f"
    return f".{prefix}.agentcli-{os.getpid()}-{os.urandom(4).hex()}.tmp"


def replace_in_dir(dfd: int, name: str, tmp: str, data: bytes, mode: int) -> None:
    """Write `data` to the new file `tmp` in the directory `dfd` (never through a link), flush it,
    and rename it over `name`: after a crash `name` holds the old content or the new, never a mix."""
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=dfd)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)
    try:
        os.replace(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
    except BaseException:
        os.unlink(tmp, dir_fd=dfd)
        raise
    os.fsync(dfd)


class Workspace:
    """The directory the agent may touch; `protected` names can be read but never written."""

    def __init__(self, root: Path | str, protected: tuple[str, ...] = (".git", ".agent")) -> None:
        self.root = Path(os.path.realpath(root))
        if not self.root.is_dir():
            raise ValueError(f"workspace root is not a directory: {self.root}")
        self.protected = tuple(p.casefold() for p in protected)

    # ----- checks -------------------------------------------------------------------------

    def _check_shape(self, path: str) -> None:
        """Refuse forms that are ambiguous or meant to slip past a naive check."""
        if not isinstance(path, str):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"path must be a string, got {type(path).__name__}")
        if "\x00" in path:
            raise _refuse("path contains a NUL byte", path)
        if "\\" in path:
            raise _refuse("path contains a backslash; use '/' as the separator", path)
        if any(ord(c) < 32 or ord(c) == 127 for c in path):
            raise _refuse("path contains control characters", path)
        raw = path.encode("utf-8", "surrogateescape")
        if len(raw) > MAX_PATH_BYTES or any(len(part.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES for part in path.split("/")):
            raise _refuse("path or one of its names is too long", path, "Use a shorter path.")
        if path.startswith("~"):
            raise _refuse("'~' is not expanded; paths are relative to the workspace root", path)
        # Decoded or normalised forms that would mean '..', '/' or '\\' are refused rather than guessed.
        for variant in (urllib.parse.unquote(path), unicodedata.normalize("NFKC", path)):
            if variant != path and (
                "\\" in variant or variant.count("/") != path.count("/")
                or ".." in variant.split("/") or variant.startswith("~")
            ):
                raise _refuse("path uses an encoded or look-alike form of '..' or '/'", path)

    def _is_inside(self, real: str) -> bool:
        return real == str(self.root) or real.startswith(str(self.root) + os.sep)

    def _protected_part(self, rel: str) -> str | None:
        for part in rel.split("/"):
            if part.casefold() in self.protected:
                return part
        return None

    @staticmethod
    def _realpath(p: str, shown: str) -> str:
        try:
            return os.path.realpath(p)
        except OSError:  # a link replaced while it was being read
            raise _refuse(f"{shown!r} changed while it was being resolved", shown) from None

    def resolve(self, path: str, *, write: bool) -> Path:
        """The real path for `path`, inside the workspace or refused (PERMISSION / NOT_FOUND).

        For a write the last name is not resolved: a link there is refused, never followed.
        """
        self._check_shape(path)
        text = path.strip() or "."
        joined = os.path.join(str(self.root), text)  # an absolute `text` replaces the root here
        lexical = os.path.normpath(joined)
        if not self._is_inside(lexical):
            raise _refuse(f"path {path!r} is outside the workspace", path)
        real = self._realpath(joined, path)
        if not self._is_inside(real):
            raise _refuse(f"path {path!r} leads outside the workspace (through '..' or a symbolic link)", path)
        if not write:
            if not os.path.lexists(real):
                raise ToolFailure.of(
                    ErrorCode.NOT_FOUND, f"{path!r} does not exist",
                    "Check the path with list_files (paths are relative to the workspace root).", path=path[:300],
                )
            return Path(real)
        head, tail = os.path.split(joined)
        if tail in ("", ".", ".."):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} names a directory, not a file", "Give a file name.")
        parent = self._realpath(head, path)
        real = os.path.join(parent, tail)
        if not self._is_inside(parent) or not self._is_inside(real) or real == str(self.root):
            raise _refuse(f"path {path!r} leads outside the workspace (through '..' or a symbolic link)", path)
        own = _own_dir_of(real)
        if own is not None:
            raise _refuse(f"{path!r} is one of agentcli's own files ({own}); tools never write them", path,
                          "Write somewhere else in the workspace.")
        for rel in (os.path.relpath(lexical, self.root), os.path.relpath(real, self.root)):
            hit = self._protected_part(rel.replace(os.sep, "/"))
            if hit is not None:
                raise _refuse(f"{hit}/ is protected: the agent may read it but never write it", path,
                              "Write somewhere else in the workspace.")
        if os.path.islink(real):
            raise _refuse(f"{path!r} is a symbolic link; writes never go through links", path,
                          "Write to the link's target path directly if it is inside the workspace.")
        if ".git" in self.protected:
            from agentcli.tools.git_guard import write_refusal

            why = write_refusal(str(self.root), real)
            if why is not None:
                raise _refuse(why, path, "Write somewhere else in the workspace; git metadata is the user's.")
        return Path(real)

    def relative(self, p: Path | str) -> str:
        """`p` as a workspace-relative POSIX path ('.' for the root)."""
        p = str(p)
        try:
            full = os.path.realpath(p if os.path.isabs(p) else os.path.join(self.root, p))
        except OSError:
            full = os.path.normpath(os.path.join(self.root, p))
        return os.path.relpath(full, self.root).replace(os.sep, "/")

    # ----- no-follow opening ----------------------------------------------------------------

    def _parts(self, real: Path) -> list[str]:
        rel = os.path.relpath(real, self.root)
        return [] if rel == "." else rel.split(os.sep)

    def _open_dir(self, parts: list[str], *, create: bool = False) -> int:
        """A directory fd reached from the root without following any link."""
        fd = os.open(self.root, _O_DIR)
        try:
            for part in parts:
                try:
                    nxt = os.open(part, _O_DIR, dir_fd=fd)
                except FileNotFoundError:
                    if not create:
                        raise
                    os.mkdir(part, 0o755, dir_fd=fd)
                    nxt = os.open(part, _O_DIR, dir_fd=fd)
                os.close(fd)
                fd = nxt
        except BaseException:
            os.close(fd)
            raise
        return fd

    def _verify_fd(self, fd: int, expected: Path, path: str) -> None:
        """The fd must be what the check saw: inside the root, by /proc link where available."""
        link = f"/proc/self/fd/{fd}"
        if os.path.exists(link):
            target = os.readlink(link)
            if not self._is_inside(target) or target != str(expected):
                raise _refuse(f"{path!r} changed while it was being opened", path)

    def open_read(self, path: str) -> int:
        """An fd on a regular file inside the workspace, opened without following links."""
        real = self.resolve(path, write=False)
        parts = self._parts(real)
        if not parts:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} is a directory", "Use list_files for directories.")
        try:
            before = os.lstat(real)
            dfd = self._open_dir(parts[:-1])
            try:
                fd = os.open(parts[-1], _O_FILE, dir_fd=dfd)
            finally:
                os.close(dfd)
        except FileNotFoundError:
            raise ToolFailure.of(ErrorCode.NOT_FOUND, f"{path!r} does not exist", "Check the path with list_files.") from None
        except (OSError, ValueError) as exc:  # ELOOP / ENOTDIR: a link appeared on the way
            if isinstance(exc, IsADirectoryError):
                raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} is a directory", "Use list_files for directories.") from None
            raise _refuse(f"{path!r} cannot be opened safely ({exc.__class__.__name__})", path) from None
        try:
            st = os.fstat(fd)
            if stat.S_ISDIR(st.st_mode):
                raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} is a directory", "Use list_files for directories.")
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(f"{path!r} is not a regular file", path, "Only regular files can be read.")
            if (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
                raise _refuse(f"{path!r} changed while it was being opened", path)
            if st.st_nlink > 1:
                # Another name for the same file may lie outside the workspace (a hard link made to
                # read it); finding every name is not possible, so a multiply-linked file is not read.
                raise _refuse(f"{path!r} has {st.st_nlink} hard links; another name may lie outside the workspace",
                              path, "Copy the file's content into a new file if you need it read.")
            self._verify_fd(fd, real, path)
            os.set_blocking(fd, True)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def read_bytes(self, path: str, *, limit: int | None = None) -> bytes:
        """The file's bytes (at most `limit`), read with no-follow opens and a post-open check."""
        fd = self.open_read(path)
        try:
            chunks: list[bytes] = []
            left = limit if limit is not None else -1
            while left != 0:
                chunk = os.read(fd, 1 << 20 if left < 0 else min(left, 1 << 20))
                if not chunk:
                    break
                chunks.append(chunk)
                if left > 0:
                    left -= len(chunk)
            return b"".join(chunks)
        finally:
            os.close(fd)

    def size_of(self, path: str) -> int:
        fd = self.open_read(path)
        try:
            return os.fstat(fd).st_size
        finally:
            os.close(fd)

    def write_atomic(self, path: str, data: bytes, *, create_dirs: bool = False) -> bool:
        """Replace `path` with `data` (temp file + fsync + rename); True when the file is new.

        After a crash the file holds the old or the new content, never a mix.
        """
        real = self.resolve(path, write=True)
        parts = self._parts(real)
        try:
            dfd = self._open_dir(parts[:-1], create=create_dirs)
        except FileNotFoundError:
            raise ToolFailure.of(
                ErrorCode.NOT_FOUND, f"the directory for {path!r} does not exist",
                "Set create_directories to true, or write to an existing directory.",
            ) from None
        except (OSError, ValueError) as exc:
            raise _refuse(f"{path!r} cannot be written safely ({exc.__class__.__name__})", path) from None
        name = parts[-1]
        tmp = temp_name(name)
        key: tuple[int, int, str] | None = None
        try:
            self._verify_fd(dfd, real.parent, path)
            dst = os.fstat(dfd)
            key = (dst.st_dev, dst.st_ino, tmp)
            with _in_flight_lock:
                _in_flight.add(key)
            sweep_stale_temps(dfd)
            mode, created = 0o644, True
            try:
                st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                pass
            else:
                if stat.S_ISLNK(st.st_mode):
                    raise _refuse(f"{path!r} is a symbolic link; writes never go through links", path)
                if not stat.S_ISREG(st.st_mode):
                    raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} exists and is not a regular file")
                mode, created = stat.S_IMODE(st.st_mode), False
            replace_in_dir(dfd, name, tmp, data, mode)
            return created
        except ToolFailure:
            raise
        except OSError as exc:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"could not write {path!r}: {exc.strerror or exc}") from None
        finally:
            if key is not None:
                with _in_flight_lock:
                    _in_flight.discard(key)
            os.close(dfd)

    # ----- walking --------------------------------------------------------------------------

    def walk(self, path: str = ".", *, max_depth: int = 1, include_hidden: bool = False,
             skip_dirs: frozenset[str] = frozenset()) -> Iterator[Entry]:
        """Entries under a directory, depth first and sorted, never following links.

        Directories named in `skip_dirs` are listed but not entered; write_atomic's temp files
        are never listed.
        """
        real = self.resolve(path, write=False)
        try:
            fd = self._open_dir(self._parts(real))
        except NotADirectoryError:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{path!r} is a file, not a directory", "Use read_file for files.") from None
        except OSError as exc:
            raise _refuse(f"{path!r} cannot be listed safely ({exc.__class__.__name__})", path) from None
        base = self.relative(real)
        prefix = "" if base == "." else base + "/"
        yield from self._walk_fd(fd, prefix, 1, max_depth, include_hidden, skip_dirs)

    def _walk_fd(self, fd: int, prefix: str, depth: int, max_depth: int, hidden: bool,
                 skip_dirs: frozenset[str]) -> Iterator[Entry]:
        try:
            with os.scandir(fd) as it:
                items = sorted(it, key=lambda e: e.name)
            for e in items:
                if e.name.startswith(".") and (not hidden or is_temp_name(e.name)):
                    continue  # hidden, or a write_atomic temp file (half-written content)
                try:
                    st = e.stat(follow_symlinks=False)
                except OSError:
                    continue
                kind = ("link" if stat.S_ISLNK(st.st_mode) else "dir" if stat.S_ISDIR(st.st_mode)
                        else "file" if stat.S_ISREG(st.st_mode) else "other")
                rel = prefix + e.name
                yield Entry(rel, e.name, kind, st.st_size if kind == "file" else 0, depth)
                if kind == "dir" and depth < max_depth and e.name not in skip_dirs:
                    try:
                        sub = os.open(e.name, _O_DIR, dir_fd=fd)
                    except OSError:
                        continue
                    yield from self._walk_fd(sub, rel + "/", depth + 1, max_depth, hidden, skip_dirs)
        finally:
            os.close(fd)
