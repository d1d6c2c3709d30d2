"""IBM Granite tool calls: JSON after a tool-call token, in the layouts of each generation.

3.0:    <|tool_call|>[{"name": "get_weather", "arguments": {"city": "Tokyo"}}]
3.1+:   <tool_call>[{"name": ..., "arguments": {...}}]
4.0:    <tool_call> {"name": ..., "arguments": "{...}"} </tool_call>   (arguments may be a JSON string)
20b-fc: <function_call> {"name": ..., "arguments": {...}}
Granite 3.2+ in thinking mode wraps its answer as <think>..</think><response>..</response>: a text that
is one whole <response> element is unwrapped (the tags are markup, the answer is the text).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total

PREFIXES = ("<|tool_call|>", "<tool_call>", "<function_call>")
RESPONSE, RESPONSE_END = "<response>", "</response>"


class _Granite(Dialect):
    name = "granite"
    markers = (*PREFIXES, RESPONSE)
    empty_lists = (("<|tool_call|>", ""),)
    answer_tags = (RESPONSE,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(
            text, PREFIXES, self.name, closers=("</tool_call>", "</function_call>")
        ) if any(p in text for p in PREFIXES) else ([], [])
        rest = remove_spans(text, spans) if cands else text
        return cands, _unwrap_response(rest)


def _unwrap_response(text: str) -> str:
    body = text.strip()
    if body.startswith(RESPONSE) and body.endswith(RESPONSE_END) and body.count(RESPONSE) == 1:
        return body[len(RESPONSE) : -len(RESPONSE_END)]
    return text


GRANITE = _Granite()
