"""File checkpoints: every file a tool changes is recorded (content before and after), so
`agent diff` can show what a session changed and `agent undo` / `/undo` can put it back.

Contents live in a content-addressed blob store next to the transcript (private files,
never altered by the secret scrubber: a restore must be byte for byte). A content the
scrubber would change (it holds a known secret or something key-shaped) is not kept at
all, so no secret rests on disk; such a change is listed but cannot be undone. The
transcript holds only `file` records naming paths and blob hashes, and `exchange`
records marking where each user request began; `/undo` goes back to the last one.

Tools that name their paths (`changed_paths`) are recorded exactly. A tool that can
change anything (a shell command) is recorded by comparing a bounded snapshot of the
workspace before and after it ran.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from agentcli.core.errors import UsageError

MAX_FILE_BYTES = 8 * 1024 * 1024  # a file larger than this is noted, not copied
SNAPSHOT_MAX_FILES = 5000  # a shell snapshot stops here (a huge tree is not copied per command)
SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024
SNAPSHOT_SKIP = frozenset({".git", ".agent", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"})


@dataclass(frozen=True, slots=True)
class FileChange:
    """One file one tool call changed. `before`/`after` are blob hashes; None = no file there."""

    path: str  # relative to the workspace, POSIX form
    before: str | None
    after: str | None
    exchange: int  # history index where the user request that caused it began
    tool: str = ""
    skipped: str = ""  # why the content was not kept (too large...): such a change cannot be undone

    def to_record(self) -> dict[str, object]:
        return {"path": self.path, "before": self.before, "after": self.after, "exchange": self.exchange,
                "tool": self.tool, "skipped": self.skipped}

    @classmethod
    def from_record(cls, rec: dict[str, object]) -> FileChange:
        def h(v: object) -> str | None:
            return v if isinstance(v, str) and v else None

        exchange = rec.get("exchange", 0) or 0
        if not isinstance(exchange, (int, float, str)):
            raise TypeError(f"exchange must be a number, not {type(exchange).__name__}")
        return cls(str(rec.get("path", "")), h(rec.get("before")), h(rec.get("after")),
                   int(exchange), str(rec.get("tool", "")), str(rec.get("skipped", "")))


@dataclass(slots=True)
class Ledger:
    """A session's exchanges and file changes, kept in step with its history on
    truncate (undo, clear) and compaction, live and when replayed from the transcript."""

    exchanges: list[int] = field(default_factory=list)
    changes: list[FileChange] = field(default_factory=list)

    def truncate(self, keep: int) -> None:
        self.exchanges = [e for e in self.exchanges if e < keep]
        self.changes = [c for c in self.changes if c.exchange < keep]

    def compact(self, folded: int, head: int) -> None:
        """History lost `folded` messages and gained `head` summary ones at the front: shift the marks.
        Exchanges inside the folded part can no longer be undone on their own."""
        shift = head - folded
        self.exchanges = [e + shift for e in self.exchanges if e >= folded]
        self.changes = [FileChange(c.path, c.before, c.after, c.exchange + shift, c.tool, c.skipped)
                        for c in self.changes if c.exchange >= folded]

    def last_exchange(self) -> int | None:
        return self.exchanges[-1] if self.exchanges else None


class BlobStore:
    """Content-addressed copies of file contents for one session (directory 0700, files 0600)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def put(self, data: bytes) -> str:
        digest = hashlib.sha256(data).hexdigest()
        path = self.root / digest
        if not path.exists():
            from agentcli.config.paths import write_private

            write_private(path, data)
        return digest

    def get(self, digest: str) -> bytes | None:
        if not all(c in "0123456789abcdef" for c in digest) or len(digest) != 64:
            return None  # a transcript is data: never let a record name a path
        try:
            return (self.root / digest).read_bytes()
        except OSError:
            return None


def blob_dir(transcript_path: Path) -> Path:
    return transcript_path.with_suffix(".files")


def _read(root: Path, rel: str) -> tuple[bytes | None, str]:
    """(content, why-not): None content with no reason means the file does not exist."""
    path = root / rel
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None, ""
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    if not stat.S_ISREG(st.st_mode):
        return None, "not a regular file"
    if st.st_size > MAX_FILE_BYTES:
        return None, f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
    try:
        return path.read_bytes(), ""
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"


def _holds_secret(data: bytes) -> bool:
    """Whether the secret scrubber would change this content (a known key, or key-shaped text)."""
    from agentcli.core.redact import redact

    text = data.decode("utf-8", "surrogateescape")
    return redact(text) != text


def current_hash(root: Path, rel: str) -> str | None:
    data, _ = _read(root, rel)
    return hashlib.sha256(data).hexdigest() if data is not None else None


@dataclass(slots=True)
class Snapshot:
    """Path -> blob hash (or a reason it was not kept) at one moment."""

    files: dict[str, str | None] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)  # content hash of a file not kept: did it change?


class Recorder:
    """Takes the before/after snapshots around one tool call and turns them into FileChanges."""

    def __init__(self, root: Path, blobs: BlobStore) -> None:
        self.root = root
        self.blobs = blobs
        self._cache: dict[str, tuple[tuple[int, int, int], str]] = {}  # rel -> (stat key, hash)

    def snapshot(self, paths: list[str] | None) -> Snapshot:
        """Named paths, or (None) a bounded walk of the whole workspace."""
        snap = Snapshot()
        for rel in paths if paths is not None else self._walk():
            self._take(rel, snap)
        return snap

    def _take(self, rel: str, snap: Snapshot) -> None:
        path = self.root / rel
        try:
            st = os.lstat(path)
            key = (st.st_size, st.st_mtime_ns, st.st_ino)
        except OSError:
            key = None
        cached = self._cache.get(rel)
        if key is not None and cached is not None and cached[0] == key:
            snap.files[rel] = cached[1]
            return
        data, why = _read(self.root, rel)
        if data is not None and _holds_secret(data):
            snap.seen[rel] = hashlib.sha256(data).hexdigest()
            data, why = None, "it holds what looks like a secret"
        if data is None:
            if why:
                snap.skipped[rel] = why
            else:
                snap.files[rel] = None
            return
        digest = self.blobs.put(data)
        if key is not None:
            self._cache[rel] = (key, digest)
        snap.files[rel] = digest

    def _walk(self) -> list[str]:
        out: list[str] = []
        total = 0
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirnames[:] = sorted(d for d in dirnames if d not in SNAPSHOT_SKIP)
            for name in sorted(filenames):
                full = os.path.join(dirpath, name)
                try:
                    st = os.lstat(full)
                except OSError:
                    continue
                if not stat.S_ISREG(st.st_mode):
                    continue
                total += min(st.st_size, MAX_FILE_BYTES)
                if len(out) >= SNAPSHOT_MAX_FILES or total > SNAPSHOT_MAX_BYTES:
                    return out
                out.append(os.path.relpath(full, self.root).replace(os.sep, "/"))
        return out

    def changes(self, before: Snapshot, after: Snapshot, exchange: int, tool: str) -> list[FileChange]:
        out = []
        for rel in sorted(set(before.files) | set(after.files) | set(before.skipped) | set(after.skipped)):
            if rel in before.files and rel not in after.files and rel not in after.skipped:
                after.files[rel] = None  # a walk does not list a deleted file
            b, a = before.files.get(rel), after.files.get(rel)
            why = before.skipped.get(rel) or after.skipped.get(rel) or ""
            if why:
                if rel in before.skipped and rel in after.skipped and before.seen.get(rel) == after.seen.get(rel):
                    continue  # not kept, and unchanged (or too large to tell): nothing to say
                out.append(FileChange(rel, None, None, exchange, tool, why))
            elif b != a and (rel in before.files or a is not None):
                out.append(FileChange(rel, b, a, exchange, tool))
        return out


@dataclass(slots=True)
class UndoReport:
    keep: int  # history length to truncate to
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)


def net_changes(changes: list[FileChange]) -> dict[str, tuple[str | None, str | None, str]]:
    """Path -> (first before, last after, skipped reason) over a run of changes, in order."""
    net: dict[str, tuple[str | None, str | None, str]] = {}
    for c in changes:
        first = net.get(c.path)
        before = first[0] if first else c.before
        why = (first[2] if first else "") or c.skipped
        net[c.path] = (before, c.after, why)
    return net


def undo(root: Path, blobs: BlobStore, ledger: Ledger,
         write: Callable[[str, bytes], None] | None = None) -> UndoReport:
    """Put back the files of the last exchange; refuse, changing nothing, if any of them was
    changed since (by you or anything else) or its old content was never kept."""
    last = ledger.last_exchange()
    if last is None:
        raise UsageError("nothing to undo: this session has no request left")
    net = net_changes([c for c in ledger.changes if c.exchange == last])
    problems = []
    for rel, (before, after, why) in net.items():
        if why:
            problems.append(f"{rel}: its content was not kept ({why})")
        elif current_hash(root, rel) != after:
            problems.append(f"{rel} changed since the agent wrote it")
        elif before is not None and blobs.get(before) is None:
            problems.append(f"{rel}: the saved copy is missing")
    if problems:
        raise UsageError("cannot undo: " + "; ".join(problems),
                         hint="nothing was changed; put the file back by hand, or see `agent diff`")
    report = UndoReport(keep=last)
    for rel, (before, _after, _why) in net.items():
        if before is None:
            try:
                (root / rel).unlink()
            except FileNotFoundError:
                pass
            report.removed.append(rel)
        else:
            data = blobs.get(before)
            assert data is not None
            (write or _writer(root))(rel, data)
            report.restored.append(rel)
    return report


def _writer(root: Path) -> Callable[[str, bytes], None]:
    """Write through the workspace sandbox: never outside it, never through a link."""
    from agentcli.tools.sandbox import Workspace

    ws = Workspace(root)

    def write(rel: str, data: bytes) -> None:
        ws.write_atomic(rel, data, create_dirs=True)

    return write


def unified(root: Path, blobs: BlobStore, changes: list[FileChange]) -> str:
    """One unified diff of everything `changes` did (first before -> last after, per file)."""
    import difflib

    out: list[str] = []
    for rel, (before, after, why) in net_changes(changes).items():
        if why:
            out.append(f"--- a/{rel}\n+++ b/{rel}\n(changed; content not kept: {why})\n")
            continue
        old = blobs.get(before) if before else b""
        new = blobs.get(after) if after else b""
        if old is None or new is None:
            out.append(f"--- a/{rel}\n+++ b/{rel}\n(saved copy missing)\n")
            continue
        if b"\x00" in old[:8192] or b"\x00" in new[:8192]:
            out.append(f"Binary file {rel} changed ({len(old)} -> {len(new)} bytes)\n")
            continue
        lines = difflib.unified_diff(
            old.decode("utf-8", "replace").splitlines(keepends=True),
            new.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile="/dev/null" if before is None else f"a/{rel}",
            tofile="/dev/null" if after is None else f"b/{rel}",
        )
        out.extend(ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines)
    return "".join(out)
