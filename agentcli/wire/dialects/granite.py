"""IBM Granite tool calls: JSON after a tool-call token, in the layouts of each generation.

3.0:    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]
3.1+:   <tool_call>[{"name": ..., "arguments": {...}}]
4.0:    <tool_call> {"name": ..., "arguments": "{...}"} </tool_call>   (arguments may be a JSON string)
20b-fc: <function_call> {"name": ..., "arguments": {...}}
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total

PREFIXES = ("<|tool_call|>", "<tool_call>", "<function_call>")


class _Granite(Dialect):
    name = "granite"
    markers = PREFIXES

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(
            text, PREFIXES, self.name, closers=("</tool_call>", "</function_call>")
        )
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


GRANITE = _Granite()
