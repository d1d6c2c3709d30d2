"""Cohere Command tool calls: Command R / R+ `Action:` blocks and Command R7B / A action tokens.

R / R+:  Action: ```json
         [{"tool_name": "internet_search", "parameters": {"query": "..."}}]
         ```
R7B / A: <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "q"}}]<|END_ACTION|>
`directly-answer` is Command R+'s "no tool needed" pseudo tool, not a call.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import (
    ParseResult,
    calls_from_json,
    decode_json_at,
    prefixed_json_calls,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.types import Candidate

ACTION_BEGIN, ACTION_END = "<|START_ACTION|>", "<|END_ACTION|>"
ACTION_WORD = "Action:"
_KEYS: dict[str, Any] = {
    "name_keys": ("tool_name", "name"),
    "arg_keys": ("parameters", "arguments"),
    "id_keys": ("tool_call_id", "id"),
    "require_args": True,
}
_NO_TOOL = frozenset(("directly-answer", "directly_answer"))


class _CommandR(Dialect):
    name = "command_r"
    markers = (ACTION_BEGIN, ACTION_WORD)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(text, (ACTION_BEGIN,), self.name, closers=(ACTION_END,), **_KEYS)
        more, more_spans = self._action_word(text)
        cands += more
        spans += more_spans
        cands = [c for c in cands if c.name not in _NO_TOOL]
        if not cands:
            return [], text
        cands.sort(key=lambda c: text.find(c.raw))
        return cands, remove_spans(text, spans)

    def _action_word(self, text: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """`Action:` followed by a JSON list of calls, bare or in a ``` fence."""
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        while (at := text.find(ACTION_WORD, pos)) != -1:
            pos = at + len(ACTION_WORD)
            j = skip_ws(text, pos)
            fenced = text.startswith("```", j)
            if fenced:
                nl = text.find("\n", j)
                if nl == -1 or text[j + 3 : nl].strip() not in ("", "json", "JSON"):
                    continue
                j = nl + 1
            if not text.startswith("[", j):
                continue  # Command R+ always writes a list; a bare object is the generic JSON form
            got = decode_json_at(text, j)
            if got is None:
                continue
            end = got[1]
            if fenced:
                k = skip_ws(text, end)
                if not text.startswith("```", k):
                    continue  # the fence never closed: cut off or not a call
                end = k + 3
            found = calls_from_json(got[0], text[at:end], self.name, **_KEYS)
            if not found:
                continue
            cands.extend(found)
            spans.append((at, end))
            pos = end
        return cands, spans


COMMAND_R = _CommandR()
