"""GigaChat 3 tool calls: one JSON object after the function-call role header.

GigaChat 3:   I'll check.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {...}}
GigaChat 3.1: I'll check.<|function_call|>{"name": "f", "arguments": {...}}
The reply may end with the `</s>` end-of-sequence token, which is markup, not text.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, calls_from_json, decode_json_at, remove_spans, skip_ws, total
from agentcli.wire.types import Candidate

FUNCTION_CALL = "<|function_call|>"
ROLE_SEP = "<|role_sep|>"
EOS = "</s>"
# Either header: the v3.1 token, or v3's message separator, role name `function call`, role separator.
_HEADER = re.compile(re.escape(FUNCTION_CALL) + r"|<\|message_sep\|>[ \t\r\n]*function call[ \t]*" + re.escape(ROLE_SEP))


class _GigaChat(Dialect):
    name = "gigachat"
    markers = (FUNCTION_CALL, ROLE_SEP)
    owns = (FUNCTION_CALL, ROLE_SEP)
    stream_markers = ("<|message_sep|>",)  # the v3 header opens with it: a stream holds from there

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        while True:
            m = _HEADER.search(text, pos)
            if m is None:
                break
            pos = m.end()
            j = skip_ws(text, pos)
            got = decode_json_at(text, j) if j < len(text) and text[j] == "{" else None
            if got is None:
                continue
            value, end = got
            found = calls_from_json(value, text[j:end], self.name)
            if not found:
                continue
            k = skip_ws(text, end)
            if text.startswith(EOS, k):
                end = k + len(EOS)
            for cand in found:
                cand.raw = text[m.start() : end]
            cands.extend(found)
            spans.append((m.start(), end))
            pos = end
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


GIGACHAT = _GigaChat()
