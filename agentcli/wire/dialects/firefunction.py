"""FireFunction v2 tool calls: ` functools[` (leading space) and a JSON array of calls.

 functools[{"name": "get_weather", "arguments": {"city": "Paris"}}]
Items may carry an "id"; it becomes the call id.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total


class _FireFunction(Dialect):
    name = "firefunction"
    markers = ("functools[",)
    empty_lists = (("functools", ""),)

    @total
    def parse(self, text: str) -> ParseResult:
        # The leading space is part of the trigger token; it goes with the call.
        cands, spans = prefixed_json_calls(text, (" functools", "functools"), self.name, first_chars="[")
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


FIREFUNCTION = _FireFunction()
