"""InternLM2 tool calls: one JSON object between <|action_start|><|plugin|> and <|action_end|>.

<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>
The code-interpreter action (<|interpreter|>) carries code, not a function call.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import ParseResult, prefixed_json_calls, remove_spans, total

START, PLUGIN, END = "<|action_start|>", "<|plugin|>", "<|action_end|>"


class _InternLM2(Dialect):
    name = "internlm2"
    markers = (START,)
    owns = (START,)

    @total
    def parse(self, text: str) -> ParseResult:
        return self._read(text, 0)

    def _read(self, text: str, limit: int) -> ParseResult:
        # Whitespace may stand between the two tokens (Intern-S1 writes `<|action_start|> <|plugin|>`);
        # other actions (<|interpreter|>) carry code, not a function call.
        cands, spans = prefixed_json_calls(
            text, (START,), self.name, closers=(END,), first_chars="{", then=PLUGIN,
            arg_keys=("parameters", "arguments"), limit=limit,
        )
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)

    def lane(self, text: str) -> ParseResult | None:
        """The parse itself (Dialect.lane): each call's JSON is decoded where it stands and the next
        token looked for past its end, so a marker quoted in a string never steers it; whatever it
        leaves (another action, a token in prose) stays in the text, which the pipeline then finds
        no plain prose and reads the full way."""
        return self._read(text, MAX_CALLS)  # a flood stops there: the pipeline declines it anyway


INTERNLM2 = _InternLM2()
