"""File checkpoints: every file a tool changes is recorded (content before and after), so
`agent diff` can show what a session changed and `agent undo` / `/undo` can put it back.

Contents live in a content-addressed blob store next to the transcript (private files,
never altered by the secret scrubber: a restore must be byte for byte). A content the
scrubber would change (it holds a known secret or something key-shaped) is not kept at
all, so no secret rests on disk; such a change is listed but cannot be undone. The
transcript holds only `file` records naming paths and blob hashes, and `exchange`
records marking where each user request began; `/undo` goes back to the last one.

Tools that name their paths (`changed_paths`) are recorded exactly. A tool that can
change anything (a shell command) is recorded by comparing a snapshot of the workspace
before and after it ran. The snapshot reads through `nofollow` (no link followed in any
component, one directory fd whatever the depth), copies only regular, singly linked files
outside the heavy folders (.git, node_modules...), fingerprints the rest so their changes
are still listed, and when it hits a bound it says so in the record: an undo that would
depend on what it could not see refuses, naming why.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from dataclasses import field
from pathlib import Path

from agentcli.core.errors import UsageError
from agentcli.core.record import record

MAX_FILE_BYTES = 8 * 1024 * 1024  # a file larger than this is noted, not copied
SNAPSHOT_MAX_FILES = 100_000  # past this many files a shell snapshot is incomplete, and says so
SNAPSHOT_MAX_BYTES = 32 * 1024 * 1024  # content copied per snapshot; past it files are only fingerprinted
# Folders whose files are fingerprinted (size, time, inode), never copied: their changes are listed
# and summarised by `agent diff`, and an undo that would need their old content refuses.
SNAPSHOT_HEAVY = frozenset({".git", ".agent", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"})
WHOLE_WORKSPACE = ""  # the path of a FileChange that stands for "not every change was recorded"


@record(frozen=True)
class FileChange:
    """One file one tool call changed. `before`/`after` are blob hashes; None = no file there.
    An empty `path` stands for the whole workspace: the snapshot could not see every change."""

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


@record
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


def _holds_secret(data: bytes) -> bool:
    """Whether the secret scrubber would change this content (a known key, or key-shaped text)."""
    from agentcli.core.redaction import redact

    text = data.decode("utf-8", "surrogateescape")
    return redact(text) != text


def _heavy_part(rel: str) -> str | None:
    """The first folder on `rel`'s way whose files are fingerprinted, not copied."""
    parts = rel.split("/")[:-1]
    for i, part in enumerate(parts):
        if part in SNAPSHOT_HEAVY:
            return "/".join(parts[: i + 1])
    return None


def _key(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_mode)


@record
class Snapshot:
    """Path -> blob hash (or a reason it was not kept) at one moment."""

    files: dict[str, str | None] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    seen: dict[str, str] = field(default_factory=dict)  # fingerprint of a file not kept: did it change?
    incomplete: str = ""  # why this snapshot did not see every file ('' = it did)
    copied: int = 0  # bytes of content this snapshot kept


def current_hash(root: Path, rel: str) -> str | None:
    """The content hash of `rel` as it is now (None: no regular file there to compare)."""
    snap = Recorder(root, None).snapshot([rel])
    return snap.files.get(rel)


def current_state(root: Path, rel: str) -> tuple[str | None, str]:
    """(content hash, '') for a file that can be compared, (None, '') when no file is there, and
    (None, why) when what is there cannot be compared (a link, a hard-linked file, a swapped folder...)."""
    snap = Recorder(root, None).snapshot([rel])
    if rel in snap.skipped:
        return None, snap.skipped[rel]
    return snap.files.get(rel), ""


class Recorder:
    """Takes the before/after snapshots around one tool call and turns them into FileChanges.
    Every read goes through `nofollow`: a link in any component is recorded, never followed."""

    def __init__(self, root: Path, blobs: BlobStore | None) -> None:
        self.root = root
        self.blobs = blobs  # None: only hash (undo's "changed since?" check)
        self._cache: dict[str, tuple[tuple[int, ...], str]] = {}  # rel -> (stat key, hash)

    def snapshot(self, paths: list[str] | None) -> Snapshot:
        """Named paths, or (None) a walk of the whole workspace."""
        from agentcli.agent import nofollow

        snap = Snapshot()
        if paths is None:
            try:
                snap.incomplete = nofollow.walk(self.root, lambda dfd, name, rel, st: self._entry(dfd, name, rel, st, snap),
                                                SNAPSHOT_MAX_FILES)
            except OSError as exc:
                snap.incomplete = f"the workspace could not be read ({exc.strerror or exc})"
            return snap
        for rel in paths:
            self._named(rel, snap)
        return snap

    def _named(self, rel: str, snap: Snapshot) -> None:
        from agentcli.agent import nofollow

        parts = nofollow.clean_parts(rel)
        if parts is None:
            snap.skipped[rel] = "not a path inside the workspace"
            return
        try:
            dfd = nofollow.open_dir(self.root, parts[:-1])
        except FileNotFoundError:
            snap.files[rel] = None
            return
        except OSError as exc:
            snap.skipped[rel] = f"its folder cannot be opened without following a link ({exc.strerror or exc})"
            snap.seen[rel] = f"unreachable:{exc.errno}"
            return
        try:
            try:
                st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
            except FileNotFoundError:
                snap.files[rel] = None
                return
            except OSError as exc:
                snap.skipped[rel] = f"unreadable ({exc.strerror or exc})"
                return
            self._entry(dfd, parts[-1], rel, st, snap)
        finally:
            os.close(dfd)

    def _entry(self, dfd: int, name: str, rel: str, st: os.stat_result, snap: Snapshot) -> None:
        """Record one non-directory entry: its content when it may be kept, else why not and a fingerprint."""
        from agentcli.agent import nofollow

        key = _key(st)
        if stat.S_ISLNK(st.st_mode):
            try:
                target = os.readlink(name, dir_fd=dfd)
            except OSError:
                target = "?"
            snap.skipped[rel], snap.seen[rel] = "a symbolic link (never followed)", f"link:{target}"
            return
        why = ""
        heavy = _heavy_part(rel)
        if not stat.S_ISREG(st.st_mode):
            why = "not a regular file"
        elif heavy is not None:
            why = f"inside {heavy}/, whose files are listed but not copied"
        elif st.st_nlink > 1:
            why = f"it has {st.st_nlink} hard links (such a file is never read)"
        elif st.st_size > MAX_FILE_BYTES:
            why = f"larger than {MAX_FILE_BYTES // (1024 * 1024)} MB"
        elif self.blobs is not None and snap.copied + st.st_size > SNAPSHOT_MAX_BYTES:
            why = f"past the {SNAPSHOT_MAX_BYTES // (1024 * 1024)} MB a snapshot copies"
        if why:
            snap.skipped[rel], snap.seen[rel] = why, repr(key)
            return
        cached = self._cache.get(rel)
        if cached is not None and cached[0] == key:
            snap.files[rel] = cached[1]
            snap.copied += st.st_size
            return
        data = nofollow.read_at(dfd, name, st, MAX_FILE_BYTES)
        if data is None:
            snap.skipped[rel], snap.seen[rel] = "it changed while it was being read", repr(key)
            return
        digest = hashlib.sha256(data).hexdigest()
        if _holds_secret(data):
            snap.skipped[rel], snap.seen[rel] = "it holds what looks like a secret", digest
            return
        if self.blobs is not None:
            self.blobs.put(data)
        self._cache[rel] = (key, digest)
        snap.files[rel] = digest
        snap.copied += len(data)

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
        gap = before.incomplete or after.incomplete
        if gap:  # never a silent cap: the record says some changes may be missing, and undo refuses
            out.append(FileChange(WHOLE_WORKSPACE, None, None, exchange, tool, f"not every change was recorded: {gap}"))
        return out


@record
class UndoReport:
    keep: int  # history length to truncate to
    restored: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    left: list[str] = field(default_factory=list)  # changed inside fingerprinted folders: not undone, said so


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
    report = restore(root, lambda _c: blobs, [c for c in ledger.changes if c.exchange == last], write)
    report.keep = last
    return report


def restore(root: Path, blobs_of: Callable[[FileChange], BlobStore], changes: list[FileChange],
            write: Callable[[str, bytes], None] | None = None) -> UndoReport:
    """Put every file `changes` touched (in order) back as it was before the first of them, or
    refuse with every reason and change nothing. Paths are re-checked against the workspace,
    and removals and writes never follow a link. Changes inside the fingerprinted folders
    (.git, node_modules...) cannot be put back and are returned in `left`, never hidden."""
    from agentcli.agent import nofollow
    from agentcli.core.errors import ToolFailure
    from agentcli.tools.sandbox import Workspace

    ws = Workspace(root)
    net: dict[str, tuple[str | None, str | None, str, BlobStore]] = {}
    for c in changes:
        first = net.get(c.path)
        net[c.path] = ((first[0] if first else c.before), c.after, (first[2] if first else "") or c.skipped,
                       first[3] if first else blobs_of(c))
    problems = []
    left = [rel for rel, (_b, _a, why, _s) in net.items() if why and rel and _heavy_part(rel) is not None]
    for rel in left:
        # .git, node_modules, .venv...: listed, never copied. `git status` alone rewrites .git/index, so
        # refusing here would refuse almost every undo; the report names them instead ("left as they are").
        del net[rel]
    for rel, (before, after, why, blobs) in net.items():
        if rel == WHOLE_WORKSPACE:
            problems.append(why or "not every change was recorded")
            continue
        shown = visible_path(rel)
        if nofollow.clean_parts(rel) is None:
            problems.append(f"{shown}: not a path inside the workspace")
            continue
        try:
            ws.resolve(rel, write=True)
        except ToolFailure as exc:
            problems.append(f"{shown}: {exc.error.message}")
            continue
        now, why_now = current_state(root, rel)
        if why:
            problems.append(f"{shown}: its content was not kept ({why})")
        elif why_now:
            problems.append(f"{shown} cannot be checked now ({why_now})")
        elif now != after:
            problems.append(f"{shown} changed since the agent wrote it")
        elif before is not None and blobs.get(before) is None:
            problems.append(f"{shown}: the saved copy is missing")
    if problems:
        raise UsageError("cannot undo: " + "; ".join(problems[:20]) + (f"; and {len(problems) - 20} more" if len(problems) > 20 else ""),
                         hint="nothing was changed; put the file back by hand, or see `agent diff`")
    report = UndoReport(keep=0, left=left)
    writer = write or _writer(root)
    for rel, (before, _after, _why, blobs) in net.items():
        if before is None:
            parts = nofollow.clean_parts(rel)
            assert parts is not None
            try:
                nofollow.unlink(root, parts)
            except OSError as exc:  # a folder on the way was swapped for a link since the check
                raise UsageError(f"could not remove {visible_path(rel)}: {exc.strerror or exc}",
                                 hint="a folder on its way was replaced since the check; see `agent diff`") from None
            report.removed.append(rel)
        else:
            data = blobs.get(before)
            assert data is not None
            writer(rel, data)
            report.restored.append(rel)
    return report


def visible_path(rel: str) -> str:
    """A recorded path as a message may show it (control characters escaped, long names cut)."""
    from agentcli.core.escape import visible

    text = visible(rel)
    return text if len(text) <= 160 else text[:80] + "…" + text[-60:]


def _writer(root: Path) -> Callable[[str, bytes], None]:
    """Atomic writes that follow no link in any component (the path was checked by `restore`)."""
    from agentcli.agent import nofollow

    def write(rel: str, data: bytes) -> None:
        parts = nofollow.clean_parts(rel)
        assert parts is not None
        try:
            nofollow.write_atomic(root, parts, data)
        except OSError as exc:
            raise UsageError(f"could not put back {visible_path(rel)}: {exc.strerror or exc}",
                             hint="a folder on its way was replaced since the check; see `agent diff`") from None

    return write


def summarise(changes: list[FileChange]) -> tuple[list[FileChange], dict[str, int]]:
    """(changes shown one by one, folder -> count of changes summarised): files in the folders a
    snapshot only fingerprints (.git, node_modules...) are counted per folder, never hidden."""
    shown: list[FileChange] = []
    folders: dict[str, int] = {}
    for c in changes:
        heavy = _heavy_part(c.path) if c.path else None
        if heavy is not None and c.skipped:
            folders[heavy] = folders.get(heavy, 0) + 1
        else:
            shown.append(c)
    return shown, folders


def unified(root: Path, blobs: BlobStore, changes: list[FileChange]) -> str:
    """One unified diff of everything `changes` did (first before -> last after, per file); changes
    in fingerprinted folders are one summary line per folder, a gap in the record one note."""
    import difflib

    out: list[str] = []
    net = net_changes(changes)
    gaps = sorted({why for rel, (_b, _a, why) in net.items() if rel == WHOLE_WORKSPACE})
    shown, folders = summarise([FileChange(rel, b, a, 0, "", why) for rel, (b, a, why) in net.items()
                                if rel != WHOLE_WORKSPACE])
    for c in shown:
        rel, before, after, why = c.path, c.before, c.after, c.skipped
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
    for folder, n in sorted(folders.items()):
        out.append(f"{folder}/: {n} file{'s' if n != 1 else ''} changed (listed, not copied: "
                   f"`agent diff --files` names each one)\n")
    for why in gaps:
        out.append(f"({why})\n")
    return "".join(out)
