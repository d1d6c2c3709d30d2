"""InternLM2 tool calls: one JSON object between <|action_start|><|plugin|> and <|action_end|>.

<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>
The code-interpreter action (<|interpreter|>) carries code, not a function call.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total

PREFIX = "<|action_start|><|plugin|>"


class _InternLM2(Dialect):
    name = "internlm2"
    markers = (PREFIX,)
    owns = (PREFIX,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(
            text, (PREFIX,), self.name, closers=("<|action_end|>",), first_chars="{",
            arg_keys=("parameters", "arguments"),
        )
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


INTERNLM2 = _InternLM2()
