"""InternLM2 tool calls: one JSON object between <|action_start|><|plugin|> and <|action_end|>.

<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": "Tokyo"}}<|action_end|>
The code-interpreter action (<|interpreter|>) carries code, not a function call.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, calls_from_json, decode_json_at, remove_spans, skip_ws, total
from agentcli.wire.types import Candidate

START, PLUGIN, END = "<|action_start|>", "<|plugin|>", "<|action_end|>"


class _InternLM2(Dialect):
    name = "internlm2"
    markers = (START,)
    owns = (START,)

    @total
    def parse(self, text: str) -> ParseResult:
        """Each `<|action_start|>` followed by `<|plugin|>` (whitespace between the tokens allowed, as
        Intern-S1 writes them) and one whole JSON call object, closed by `<|action_end|>` or not."""
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        while (at := text.find(START, pos)) != -1:
            pos = at + len(START)
            p = skip_ws(text, pos)
            if not text.startswith(PLUGIN, p):
                continue  # <|interpreter|> and other actions carry code, not a function call
            j = skip_ws(text, p + len(PLUGIN))
            if j >= len(text) or text[j] != "{":
                continue
            got = decode_json_at(text, j)
            if got is None:
                continue
            value, end = got
            found = calls_from_json(value, text[j:end], self.name, arg_keys=("parameters", "arguments"))
            if not found:
                continue
            k = skip_ws(text, end)
            if text.startswith(END, k):
                end = k + len(END)
            for cand in found:
                cand.raw = text[at:end]
            cands.extend(found)
            spans.append((at, end))
            pos = end
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


INTERNLM2 = _InternLM2()
