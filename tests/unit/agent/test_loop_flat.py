"""A turn late in a long conversation does the same work as an early one (counted, never timed).

Sending the conversation is inherent, but the loop's own bookkeeping per turn (transcript writes,
the token estimate, the repeat guard, the tool list, redaction, approvals) must not scan what came
before. The model here is scripted and its results small, so nothing is compacted: the history keeps
growing, and any per-turn pass over it (or over the turns so far) would add at least one counted step
per message to each late turn.
"""

from __future__ import annotations

import json
import statistics
import sys
from typing import Any

from loop_helpers import scripted_session

from agentcli.agent.approval import PolicyApprover
from agentcli.agent.loop import Agent
from agentcli.agent.session import Session
from agentcli.agent.store import Transcript
from agentcli.core.events import TurnStarted

TURNS = 120
WINDOW = 5


def _read_turns(n: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for i in range(n):
        call = {"id": f"c{i:03d}", "type": "function",
                "function": {"name": "read_file", "arguments": json.dumps({"path": f"f{i:03d}.txt"})}}
        msg = {"role": "assistant", "content": None, "tool_calls": [call]}
        turns.append({"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}})
    return [*turns, {"text": "done"}]


class _Counter:
    """Python lines run plus builtin calls, on this thread, while switched on (what the suite's
    `work` fixture counts, around one awaited turn instead of one function call)."""

    def __init__(self) -> None:
        self.count = 0
        self._saved: tuple[Any, Any] = (None, None)

    def line(self, frame: Any, event: str, arg: Any) -> Any:
        self.count += 1
        return self.line

    def builtin(self, frame: Any, event: str, arg: Any) -> None:
        if event == "c_call":
            self.count += 1

    def __enter__(self) -> _Counter:
        self._saved = (sys.gettrace(), sys.getprofile())
        sys.settrace(self.line)
        sys.setprofile(self.builtin)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(self._saved[0])
        sys.setprofile(self._saved[1])


async def test_turn_work_and_records_do_not_grow_with_the_conversation(tmp_path, monkeypatch):
    s = scripted_session(tmp_path, _read_turns(TURNS), interactive=False)
    s.profile.limits.max_turns = TURNS + 5
    for i in range(TURNS):
        (s.workspace / f"f{i:03d}.txt").write_text("".join(f"line {k}\n" for k in range(40)))
    written: list[int] = []  # bytes each transcript record took
    real_write = Transcript.write

    def write(self: Transcript, record_type: str, /, **data: Any) -> None:
        before = self.path.stat().st_size
        real_write(self, record_type, **data)
        written.append(self.path.stat().st_size - before)

    monkeypatch.setattr(Transcript, "write", write)
    built: list[int] = []  # [system, *history] lists made: the one the request sends, no other
    real_request = Session.request_messages
    monkeypatch.setattr(Session, "request_messages", lambda self: built.append(1) or real_request(self))
    events = Agent(s, PolicyApprover(True)).run("read the files one by one")

    async def one_turn() -> None:
        async for ev in events:
            if isinstance(ev, TurnStarted):
                return

    await one_turn()  # set-up, up to turn 1
    work: dict[int, int] = {}
    records: dict[int, list[int]] = {}
    sent: dict[int, int] = {}
    for turn in range(1, TURNS + 1):
        early_or_late = 5 < turn <= 5 + WINDOW or turn > TURNS - WINDOW
        if not early_or_late:
            await one_turn()
            continue
        s.provider.requests.clear()  # the scripted model's log of requests is the test double's
        sent[turn] = len(s.history)
        mark, copies = len(written), len(built)
        with _Counter() as c:
            await one_turn()
        work[turn] = c.count
        records[turn] = written[mark:]
        assert len(built) - copies == 1, turn
    async for _ in events:
        pass
    await s.aclose()

    early = [t for t in work if t <= 5 + WINDOW]
    late = [t for t in work if t > TURNS - WINDOW]
    grown = min(sent[t] for t in late) - max(sent[t] for t in early)
    assert grown > 200  # the history did grow: a per-turn scan of it would show below
    early_work = statistics.median(work[t] for t in early)
    late_work = statistics.median(work[t] for t in late)
    assert late_work - early_work < grown // 4, (early_work, late_work)
    # the same records each turn, each the same size but for the digits of its timestamp
    shapes = {len(records[t]) for t in work}
    assert len(shapes) == 1
    for i in range(shapes.pop()):
        sizes = [records[t][i] for t in work]
        assert max(sizes) - min(sizes) <= 16, (i, sizes)


async def test_compaction_keeps_a_long_conversation_flat(tmp_path):
    """With a small window the history is folded every few turns. Each fold costs what the turns
    since the last one added, not the whole conversation: the summary does not grow from fold to
    fold, and a late fold does the work of an early one."""
    import dataclasses

    from agentcli.core.events import Notice

    turns = 150
    s = scripted_session(tmp_path, _read_turns(turns), interactive=False)
    s.profile.limits.max_turns = turns + 5
    s.capability = dataclasses.replace(s.capability, capability=dataclasses.replace(s.capability.capability, context_window=4000))
    for i in range(turns):
        (s.workspace / f"f{i:03d}.txt").write_text("".join(f"line {k}\n" for k in range(40)))
    events = Agent(s, PolicyApprover(True)).run("read the files one by one")
    folds: list[tuple[int, int]] = []  # (work of the turn that folded, summary length after it)
    quiet: list[int] = []  # work of the turns that did not fold
    async for ev in events:  # set-up, up to turn 1
        if isinstance(ev, TurnStarted):
            break
    for _ in range(turns):
        s.provider.requests.clear()
        folded = False
        with _Counter() as c:
            async for ev in events:
                folded = folded or (isinstance(ev, Notice) and ev.code == "compact")
                if isinstance(ev, TurnStarted):
                    break
        if folded:
            folds.append((c.count, len(s.history[0].text)))
        else:
            quiet.append(c.count)
    async for _ in events:
        pass
    await s.aclose()

    assert len(folds) >= 5
    first, last = folds[1], folds[-1]  # the first fold starts from the plain request, not a summary
    assert last[1] <= first[1] + 64, folds
    assert last[0] <= first[0] * 1.05, folds
    assert max(quiet[-10:]) <= min(quiet[2:12]) * 1.05, quiet
