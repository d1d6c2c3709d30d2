"""Points to go back to in one folder, across its sessions: `agent undo`, `--list` and `--to N`.

A point is one user request that changed files. Users expect the last change in this folder
to be undone, wherever it was made (an edit, then an unrelated question in a new session,
must not hide it), or to pick an older point. Going back to point N undoes every newer
point too, as one restore that checks every file first and changes nothing on a refusal.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

from agentcli.agent.checkpoints import BlobStore, FileChange, UndoReport, blob_dir, restore
from agentcli.agent.store import SavedSession, load_session
from agentcli.core.errors import UsageError
from agentcli.core.record import record
from agentcli.core.types import Role


@record
class Point:
    """One request of one session that changed files; undoing it restores the state before it."""

    session: SavedSession
    exchange: int  # history index where the request began: the session is truncated to it
    time: float
    changes: list[FileChange] = field(default_factory=list)

    @property
    def request(self) -> str:
        """The user's words that began this request (first line), or '' when not recorded."""
        h = self.session.history
        if 0 <= self.exchange < len(h) and h[self.exchange].role is Role.USER:
            return (h[self.exchange].text.strip().splitlines() or [""])[0]
        return ""

    @property
    def paths(self) -> list[str]:
        return list(dict.fromkeys(c.path or "(the workspace)" for c in self.changes))


def points(workspace: Path | str) -> list[Point]:
    """Every point of every session run in `workspace`, newest first."""
    from agentcli.agent.catalog import list_sessions

    out: list[Point] = []
    for entry in list_sessions(workspace):
        try:
            saved = load_session(entry.path)
        except (OSError, ValueError, KeyError, TypeError):
            continue  # an unreadable transcript has no point to offer
        by_exchange: dict[int, list[FileChange]] = {}
        for c in saved.ledger.changes:
            by_exchange.setdefault(c.exchange, []).append(c)
        for exchange, changes in by_exchange.items():
            when = saved.exchange_times.get(exchange, saved.started)
            out.append(Point(saved, exchange, when, changes))
    out.sort(key=lambda p: (p.time, p.session.id, p.exchange), reverse=True)
    return out


@record
class Rewind:
    """What going back did: files put back, and each session's new history length."""

    report: UndoReport
    kept: dict[str, int]  # session id -> history length it was truncated to


def go_back(root: Path, chosen: list[Point]) -> Rewind:
    """Undo `chosen` (the newest points, any order) as one restore, then truncate their sessions.
    Refuses, changing nothing, when any file changed since or its old content was not kept."""
    if not chosen:
        raise UsageError("nothing to undo")
    ordered = sorted(chosen, key=lambda p: (p.time, p.session.id, p.exchange))
    stores: dict[int, BlobStore] = {}
    changes: list[FileChange] = []
    for p in ordered:
        store = BlobStore(blob_dir(p.session.path))
        for c in p.changes:
            stores[id(c)] = store
            changes.append(c)
    report = restore(root, lambda c: stores[id(c)], changes)
    kept: dict[str, int] = {}
    for p in ordered:
        kept[p.session.id] = min(kept.get(p.session.id, p.exchange), p.exchange)
    return Rewind(report, kept)
