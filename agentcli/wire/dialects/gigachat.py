"""GigaChat 3 tool calls: one JSON object after the function-call role header.

GigaChat 3:   I'll check.<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": "f", "arguments": {...}}
GigaChat 3.1: I'll check.<|function_call|>{"name": "f", "arguments": {...}}
The reply may end with the `</s>` end-of-sequence token, which is markup, not text.
A call whose JSON does not read goes to the repair layer, unless its arguments never close: then the
output ended inside them (cut off), and the call is reported as truncated, never run.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import json_end, salvage_call
from agentcli.wire.dialects._scan import ParseResult, calls_from_json, decode_json_at, remove_spans, skip_ws, total
from agentcli.wire.types import Candidate

FUNCTION_CALL = "<|function_call|>"
ROLE_SEP = "<|role_sep|>"
EOS = "</s>"
# Either header: the v3.1 token, or v3's message separator, role name `function call`, role separator.
_CUT = "truncated tool call (output ended inside its arguments)"
_HEADER = re.compile(re.escape(FUNCTION_CALL) + r"|<\|message_sep\|>[ \t\r\n]*function call[ \t]*" + re.escape(ROLE_SEP))


class _GigaChat(Dialect):
    name = "gigachat"
    markers = (FUNCTION_CALL, ROLE_SEP)
    owns = (FUNCTION_CALL, ROLE_SEP)
    stream_markers = ("<|message_sep|>",)  # the v3 header opens with it: a stream holds from there
    # each call's JSON decoded where its header ends, the next header looked for past it
    reads_in_place = True

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
                broken = self._broken(text, m.start(), j)
                if broken is not None:  # the header says a call follows: a malformed one is reported, not shown
                    cands.append(broken[0])
                    spans.append((m.start(), broken[1]))
                    pos = broken[1]
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

    def _broken(self, text: str, start: int, j: int) -> tuple[Candidate, int] | None:
        """The call after a header whose JSON does not read: its name and raw arguments for the repair
        layer, up to the end-of-sequence token, the next header or the end of the text."""
        if j >= len(text) or text[j] != "{":
            return None
        nxt = _HEADER.search(text, j)  # the body ends at the next header at the latest
        limit = nxt.start() if nxt else len(text)
        eos = text.find(EOS, j, limit)
        end = limit if eos < 0 else eos
        got = salvage_call(text[j:end])
        if got is None:
            return None
        stop = end + len(EOS) if eos >= 0 else end
        name, args = got
        if args[:1] in ("{", "[") and json_end(args, 0) is None:  # the arguments never close: cut off
            return Candidate(name, None, text[start:stop], self.name, error=_CUT), stop
        return Candidate(name=name, arguments=args, raw=text[start:stop], dialect=self.name), stop


GIGACHAT = _GigaChat()
