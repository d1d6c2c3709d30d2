"""RWKV-7 G1 tool calls: a `**Tool Call:**` heading over a ```json fence holding one call object.

**Tool Call:**
```json
{"name": "get_weather", "arguments": {"city": "Paris"}}
```
The heading is the call's markup, so it leaves the text with the fence. A fence without the heading
is plain JSON in prose (json_block reads it); one that is not a whole call object stays text.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, calls_from_json, decode_json_at, remove_spans, skip_ws, total
from agentcli.wire.types import Candidate

HEADING = "**Tool Call:**"
_FENCES = ("```json", "```")
_CLOSE = "```"


class _Rwkv(Dialect):
    name = "rwkv"
    markers = (HEADING,)
    owns = (HEADING,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        while (h := text.find(HEADING, pos)) != -1:
            pos = h + len(HEADING)
            f = skip_ws(text, pos)
            fence = next((x for x in _FENCES if text.startswith(x, f)), None)
            if fence is None:
                continue
            j = skip_ws(text, f + len(fence))
            got = decode_json_at(text, j) if text.startswith("{", j) else None
            if got is None:
                continue
            k = skip_ws(text, got[1])
            if not text.startswith(_CLOSE, k):
                continue
            end = k + len(_CLOSE)
            found = calls_from_json(got[0], text[h:end], self.name)
            if not found or len(found) != 1:
                continue
            cands.extend(found)
            spans.append((h, end))
            pos = end
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


RWKV = _Rwkv()
