"""Session transcripts: one JSON line per record, appended and flushed as it happens.

A crash or Ctrl-C leaves a readable file; a torn last line is skipped on load.
Completed tool results are written the moment they finish, so a resumed session
never runs them again. Everything written passes through the secret scrubber.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import field
from pathlib import Path
from typing import Any

from agentcli.agent.catalog import find_session, list_sessions, read_records, sessions_dir  # noqa: F401  (re-exported)
from agentcli.agent.checkpoints import FileChange, Ledger
from agentcli.agent.serialize import message_from_dict, message_to_dict, result_from_dict, result_to_dict
from agentcli.core import jsonsafe
from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.record import record
from agentcli.core.redaction import redact
from agentcli.core.types import Message, Role, ToolResult


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)


class Transcript:
    """Append-only writer for one session."""

    def __init__(self, path: Path) -> None:
        from agentcli.config.paths import ensure_private_dir

        ensure_private_dir(path.parent)  # every missing parent 0700 too, not only the last one
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, record_type: str, /, **data: Any) -> None:
        record = {"type": record_type, "t": round(time.time(), 6), **data}  # µs: orders requests across sessions
        line = redact(jsonsafe.dumps(record, ensure_ascii=False, default=str)) + "\n"
        os.write(self._fd, line.encode())  # one write per record: never interleaved

    def message(self, m: Message) -> None:
        self.write("message", message=message_to_dict(m))

    def result(self, r: ToolResult) -> None:
        self.write("result", result=result_to_dict(r))

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


@record(slots=False)
class SavedSession:
    id: str
    path: Path
    meta: dict[str, Any] = field(default_factory=dict)
    history: list[Message] = field(default_factory=list)
    end: dict[str, Any] | None = None
    skipped_lines: int = 0
    ledger: Ledger = field(default_factory=Ledger)
    started: float = 0.0  # time of the session record
    updated: float = 0.0  # time of the last record
    exchange_times: dict[int, float] = field(default_factory=dict)  # history index -> when that request began
    tier: str | None = None  # the tier it was last at: its opening tier, then each raise (or /tier) in order

    @property
    def workspace(self) -> str:
        return str(self.meta.get("workspace") or "")


def load_session(path: Path) -> SavedSession:
    """Rebuild history. Every assistant tool call gets exactly one result in the message after it:
    the recorded one, or an 'interrupted' error (never a re-run), wherever the crash fell."""
    records, skipped = read_records(path)
    s = SavedSession(path.stem, path, skipped_lines=skipped)
    pending: dict[str, ToolResult] = {}  # results recorded since the last assistant message
    for rec in records:
        kind = rec.get("type")
        if kind == "session":
            s.meta = rec
            s.tier = rec.get("tier") or s.tier
        elif kind == "tier":
            s.tier = rec.get("tier") or s.tier
        elif kind == "message":
            d = rec["message"]
            m = message_from_dict(d)
            if isinstance(d.get("tool_results_recorded"), list):  # its results, as written when they finished
                m.tool_results = [pending[i] for i in d["tool_results_recorded"] if isinstance(i, str) and i in pending]
            _append(s.history, m, pending)
            if m.role is Role.ASSISTANT:
                pending = {}
        elif kind == "result":
            r = result_from_dict(rec["result"])
            pending[r.call_id] = r
        elif kind == "compact":
            folded = int(rec.get("folded", 0))
            head = [message_from_dict(m) for m in rec.get("head", ())]
            s.history = head + s.history[folded:]
            s.ledger.compact(folded, len(head))
        elif kind == "truncate":
            s.history = s.history[: int(rec.get("keep", 0))]
            s.ledger.truncate(int(rec.get("keep", 0)))
        elif kind == "exchange":
            s.ledger.exchanges.append(int(rec.get("keep", 0)))
            s.exchange_times[int(rec.get("keep", 0))] = _time(rec)
        elif kind == "file":
            s.ledger.changes.append(FileChange.from_record(rec))
        elif kind == "end":
            s.end = rec
    if _unanswered(s.history):
        s.history.append(_answers(s.history[-1], [], pending))
    if records:
        s.started, s.updated = _time(s.meta), _time(records[-1])
    return s


def _time(rec: dict[str, Any]) -> float:
    t = rec.get("t")
    return float(t) if isinstance(t, (int, float)) else 0.0


def _unanswered(history: list[Message]) -> bool:
    last = history[-1] if history else None
    return last is not None and last.role is Role.ASSISTANT and bool(last.tool_calls)


def _answers(call_msg: Message, given: list[ToolResult], recorded: dict[str, ToolResult]) -> Message:
    """One result per call, in call order: from the tool message, else as recorded, else 'interrupted'."""
    have = {r.call_id: r for r in given}
    results = []
    for call in call_msg.tool_calls:
        results.append(
            have.get(call.id)
            or recorded.get(call.id)
            or ToolResult(
                call.id, call.name, False,
                "The session was interrupted before this call finished; call it again if you still need it.",
                ToolError.of(ErrorCode.EXECUTION, "interrupted before completion"),
            )
        )
    return Message.results(results)


def _append(history: list[Message], m: Message, recorded: dict[str, ToolResult]) -> None:
    """Append `m`, first completing the answer to an assistant turn a crash or Ctrl-C cut short.
    The resumed session then holds the same messages at the same positions as this replay."""
    if _unanswered(history):
        if m.role is Role.TOOL:
            history.append(_answers(history[-1], m.tool_results, recorded))
            return
        history.append(_answers(history[-1], [], recorded))
    history.append(m)
