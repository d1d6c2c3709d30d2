"""History as a native API takes it back: call ids and how many calls one assistant message holds.

Two rules that a server enforces on the *second* request, when history first carries calls:

- Call ids. Models repeat ids (`c1, c2, c1`, or `call_0` every turn) and each API or chat template
  has its own form (Anthropic's character set, OpenAI's 40 characters, Mistral's exactly 9 letters
  or digits). Every id is made unique in the conversation and put in the plan's form; a result takes
  the wire id of the call it answers, so the pair stays consistent however the model wrote them.
- One call per assistant message where the model takes no more (`plan.parallel` False, from the
  model's `parallel_tools`): Llama 3.1's template raises on two. Each call then goes in its own
  assistant message, followed by its result.

The mapping is a pure function of history in order, so an earlier turn renders the same on every
request (prompt caches keep working) and internal history is never rewritten.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from agentcli.core.types import Message, Role, ToolCall, ToolResult
from agentcli.wire.names import safe_id

if TYPE_CHECKING:
    from agentcli.wire.types import WirePlan

ALNUM9 = 9


def _alnum9(call_id: str, salt: int) -> str:
    """9 letters or digits: the id itself when it already is, else a digest of it."""
    if salt == 0 and len(call_id) == ALNUM9 and call_id.isascii() and call_id.isalnum():
        return call_id
    import hashlib

    return hashlib.sha1(f"{call_id}\0{salt}".encode()).hexdigest()[:ALNUM9]


def _any(call_id: str, salt: int) -> str:
    """What every API accepts (wire.names.safe_id), with a counter when the id was used before."""
    base = safe_id(call_id)
    return base if salt == 0 else safe_id(f"{base[:30]}_{salt}")


_FORMS = {"any": _any, "alnum9": _alnum9}


class CallIds:
    """Original id -> wire id, in history order: unique, in the plan's form, results paired FIFO."""

    def __init__(self, form: str = "any") -> None:
        if form not in _FORMS:
            raise ValueError(f"unknown call id format {form!r}; known: {', '.join(_FORMS)}")
        self._form = _FORMS[form]
        self._used: set[str] = set()
        self._open: dict[str, list[tuple[str, str]]] = {}  # original id -> [(wire id, tool name)] unanswered
        self._last: dict[str, str] = {}  # original id -> its latest wire id

    def _fresh(self, call_id: str) -> str:
        salt = 0
        while (wire := self._form(call_id, salt)) in self._used:
            salt += 1
        self._used.add(wire)
        return wire

    def call(self, call: ToolCall) -> str:
        """The wire id of a call in an assistant message (a new one each time)."""
        wire = self._fresh(call.id or "")
        self._open.setdefault(call.id or "", []).append((wire, call.name))
        self._last[call.id or ""] = wire
        return wire

    def result(self, result: ToolResult) -> str:
        """The wire id of the call this result answers: the oldest unanswered call with its id,
        preferring one of the same tool (results of `c1, c2, c1` may come in any order)."""
        key = result.call_id or ""
        waiting = self._open.get(key) or []
        if waiting:
            pick = next((i for i, (_, name) in enumerate(waiting) if name == result.tool_name), 0)
            return waiting.pop(pick)[0]
        if key in self._last:  # answered twice: the same call
            return self._last[key]
        return self._fresh(key)  # its call is gone (trimmed history): still a valid, unique id


def wire_history(messages: list[Message], plan: WirePlan) -> list[Message]:
    """Messages with call ids in the plan's form, unique and paired, split one call per
    assistant message when the plan allows no parallel calls."""
    ids = CallIds(plan.call_ids)
    out: list[Message] = []
    for m in messages:
        if m.role is Role.ASSISTANT and m.tool_calls:
            out.append(dataclasses.replace(m, tool_calls=[dataclasses.replace(c, id=ids.call(c)) for c in m.tool_calls]))
        elif m.role is Role.TOOL and m.tool_results:
            out.append(dataclasses.replace(
                m, tool_results=[dataclasses.replace(r, call_id=ids.result(r)) for r in m.tool_results]))
        else:
            out.append(m)
    return out if plan.parallel else _one_call_each(out)


def _one_call_each(messages: list[Message]) -> list[Message]:
    """Each call in its own assistant message, followed by its result. The first message keeps the
    text, thinking and provider data (a thinking signature belongs to the turn's first block)."""
    out: list[Message] = []
    i = 0
    while i < len(messages):
        m = messages[i]
        if m.role is not Role.ASSISTANT or len(m.tool_calls) < 2:
            out.append(m)
            i += 1
            continue
        after = messages[i + 1] if i + 1 < len(messages) and messages[i + 1].role is Role.TOOL else None
        results = list(after.tool_results) if after is not None else []
        for n, call in enumerate(m.tool_calls):
            first = n == 0
            out.append(Message(Role.ASSISTANT, m.text if first else "", m.thinking if first else "", [call],
                               provider_data=dict(m.provider_data) if first else {}))
            mine = [r for r in results if r.call_id == call.id]
            results = [r for r in results if r.call_id != call.id]
            if n == len(m.tool_calls) - 1:
                mine += results  # results that answer none of these calls stay with the turn
            last = n == len(m.tool_calls) - 1
            if mine or (last and after is not None and after.text):
                out.append(Message(Role.TOOL, after.text if last and after is not None else "", tool_results=mine,
                                   provider_data=dict(after.provider_data) if after is not None else {}))
        i += 2 if after is not None else 1
    return out
