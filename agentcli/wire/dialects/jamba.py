"""AI21 Jamba tool calls: a JSON array of {"name", "arguments"} inside <tool_calls>.

<tool_calls>[{"name": "get_current_weather", "arguments": {"city": "Dallas"}}]</tool_calls>
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total


class _Jamba(Dialect):
    name = "jamba"
    markers = ("<tool_calls>",)
    empty_lists = (("<tool_calls>", "</tool_calls>"),)
    reads_in_place = True  # prefixed_json_calls: each array decoded where it stands
    lane_tokens = ("<tool_calls>", "</tool_calls>")  # outside its JSON strings, every `<` opens one

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(text, ("<tool_calls>",), self.name, closers=("</tool_calls>",))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


JAMBA = _Jamba()
