"""The saved-session catalog: list and find transcripts from their records, without rebuilding
any history. Apart from `store` (the writer and the full loader) so `agent sessions`, `diff` and
`--resume` lookups need neither the message types nor the checkpoint ledger to answer."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple


def sessions_dir() -> Path:
    from agentcli.config.paths import data_dir

    return data_dir() / "sessions"


class SessionEntry(NamedTuple):
    """One transcript as a listing shows it: its header record, how it ended, and when. Read-only
    once listed; a NamedTuple because `agent sessions` builds no dataclass (each costs a start
    about half a millisecond of generated code on CPython 3.11)."""

    id: str
    path: Path
    meta: dict[str, Any]
    end: dict[str, Any] | None = None
    started: float = 0.0  # time of the session record
    updated: float = 0.0  # time of the last record

    @property
    def workspace(self) -> str:
        return str(self.meta.get("workspace") or "")


def read_records(path: Path) -> tuple[list[dict[str, Any]], int]:
    import json

    from agentcli.core import jsonsafe

    records, skipped = [], 0
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                records.append(jsonsafe.loads(line))
            except json.JSONDecodeError:
                skipped += 1  # a torn last line after a crash: never fatal
    return records, skipped


TAIL_BYTES = 64 * 1024  # a listing reads a transcript's first record and this much of its end


if TYPE_CHECKING:
    # What a listing needs of a transcript's end: its last whole record and its last `end` record
    # (a plain tuple: a NamedTuple class would cost every start that imports the catalog).
    _Tail = tuple[dict[str, Any], dict[str, Any] | None]


def _head_and_tail(path: Path, workspace: str | None = None,
                   folders: dict[str, str] | None = None) -> tuple[dict[str, Any], _Tail | None]:
    """The first record, and the last whole record and last `end` record in the last TAIL_BYTES
    (more when no whole record fits there): enough to list a session (where it ran, how and when
    it last ended) without reading a long transcript through. With `workspace` (a real path), a
    transcript whose first record names another folder is not read further: its tail is None
    (`folders` memoizes the real path of each folder named). The JSON modules load with the first
    transcript read: a listing with none to read (a new user's) needs neither."""
    import json

    from agentcli.core import jsonsafe

    with open(path, "rb") as f:
        first = f.readline(1024 * 1024)
        try:
            head = jsonsafe.loads(first.decode("utf-8", "replace"))
        except json.JSONDecodeError:
            head = {}
        head = head if isinstance(head, dict) else {}
        if workspace is not None and _folder(head, folders) != workspace:
            return head, None
        size = os.fstat(f.fileno()).st_size
        window = TAIL_BYTES
        while True:
            start = max(len(first), size - window)
            f.seek(start - 1 if start else 0)
            data = f.read()
            if start:  # the byte before the window says whether it begins on a record's first byte
                data, cut = data[1:], data[:1] != b"\n"
            else:
                cut = False
            tail = _last_records(data, cut=cut)
            if tail is not None or start <= len(first):
                break
            window *= 4
    return head, tail or (head, None)  # no whole record after the first: it is the last


def _folder(head: dict[str, Any], folders: dict[str, str] | None = None) -> str:
    """The real path of the folder a transcript's first record says it ran in."""
    meta = head if head.get("type") == "session" else {}
    named = str(meta.get("workspace") or "/nonexistent")
    if folders is None:
        return os.path.realpath(named)
    if named not in folders:
        folders[named] = os.path.realpath(named)
    return folders[named]


def _last_records(tail: bytes, *, cut: bool) -> _Tail | None:
    """The last whole record of `tail` and its last `end` record (None: no whole record), decoded
    from the end: once the last record is found, only a line that can hold an end record (the
    bytes `"end"`, or an escape that could spell them) is decoded."""
    import json

    from agentcli.core import jsonsafe

    lines = tail.split(b"\n")
    if cut:
        lines = lines[1:]  # the first piece is the end of a record cut by the seek
    last = None
    for line in reversed(lines):
        if last is not None and b'"end"' not in line and b"\\" not in line:
            continue
        if not line.strip():
            continue
        try:
            rec = jsonsafe.loads(line.decode("utf-8", "replace"))
        except json.JSONDecodeError:
            continue  # a torn last line after a crash: never fatal
        if not isinstance(rec, dict):
            continue
        if last is None:
            last = rec
        if rec.get("type") == "end":
            return last, rec
    return None if last is None else (last, None)


def list_sessions(workspace: Path | str | None = None) -> list[SessionEntry]:
    """Saved sessions, newest first; only those of `workspace` (a resolved path) when given.
    Each transcript is read at its first record (filtered by folder there) and its tail only."""
    d = sessions_dir()
    if not d.is_dir():
        return []
    want = os.path.realpath(workspace) if workspace is not None else None
    folders: dict[str, str] = {}
    out = []
    for p in d.glob("*.jsonl"):
        try:
            head, tail = _head_and_tail(p, want, folders)
            if tail is None:
                continue  # another folder's session: its first record said so
            mtime = p.stat().st_mtime
        except OSError:
            continue  # removed while listing
        meta = head if head.get("type") == "session" else {}
        started = float(meta.get("t") or mtime)
        last, end = tail
        updated = float(last.get("t") or mtime) if last else mtime
        out.append(SessionEntry(p.stem, p, meta, end, started=started, updated=updated))
    out.sort(key=lambda s: (s.updated, s.id), reverse=True)
    return out


def find_session(ref: str | None, workspace: Path | str | None = None) -> Path:
    """`None`/'last' -> the newest session (of `workspace` when given); otherwise an id or any
    unique id prefix, from every workspace (an id names one session wherever it ran)."""
    from agentcli.core.errors import UsageError

    if ref in (None, "", "last"):
        sessions = list_sessions(workspace)
        if not sessions:
            where = f" for {workspace}" if workspace is not None else ""
            raise UsageError(f"no saved session{where} to continue",
                             hint='start one with `agent run "goal"`; `agent sessions --all` lists every workspace')
        return sessions[0].path
    assert ref is not None
    sessions = list_sessions()
    matches = [s for s in sessions if s.id == ref] or [s for s in sessions if s.id.startswith(ref)]
    if len(matches) != 1:
        raise UsageError(
            f"no session matches {ref!r}" if not matches else f"{ref!r} matches {len(matches)} sessions",
            hint="`agent sessions --all` lists them with their full ids",
        )
    return matches[0].path
