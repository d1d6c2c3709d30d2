"""Phi-4-mini tool calls: `functools` followed by a JSON array of calls.

functools[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]
Items may hold their arguments under "parameters" instead of "arguments". One call object written
without the list's brackets (`functools{"name": ...}`) is that call: `functools` is the model's call
token, never a tool's name.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total


class _Phi4Mini(Dialect):
    name = "phi4_mini"
    markers = ("functools",)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(text, ("functools",), self.name, first_chars="[{")
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


PHI4_MINI = _Phi4Mini()
