"""Gemma 4 tool calls: FunctionGemma's `call:NAME{key:value}` body between Gemma 4's own tokens.

<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,days:3}<tool_call|>
Strings sit between <|"|> tokens and are taken verbatim (quotes and backslashes inside are the
model's text, not escapes); a JSON "string" in their place is decoded; numbers, booleans, null and
nested {..}/[..] are bare. A call cut off before its close token still counts once its braces closed.

The turn's own tokens never belong on screen: a repeated close token or the tool-response opener the
model writes after a call (it expects the result next) are dropped from the visible text.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.dialects.functiongemma import parse_call
from agentcli.wire.types import Candidate

BEGIN, END = "<|tool_call>", "<tool_call|>"
ESC = '<|"|>'
# Turn tokens a model writes after its calls; markup, never text.
_STRAY = (END, "<|tool_response>", "<tool_response|>")


def _call_name(body: str) -> str | None:
    """NAME of a block that starts `call:NAME{`, or None."""
    body = body.strip()
    brace = body.find("{")
    name = body[5:brace].strip() if body.startswith("call:") and brace > 5 else ""
    return name if name and not any(c.isspace() or c in "<>:{}" for c in name) else None


class _Gemma4(Dialect):
    name = "gemma4"
    markers = (BEGIN,)
    owns = (BEGIN,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            body = text[blk.body_start : blk.body_end]
            raw = text[blk.start : blk.end]
            got = parse_call(body, ESC)
            if got is not None:
                cands.append(Candidate(name=got[0], arguments=got[1], raw=raw, dialect=self.name, text_values=True))
            elif blk.closed and (name := _call_name(body)):
                # A whole block whose arguments do not read: reported as a broken call, not shown as text.
                cands.append(Candidate(name=name, arguments={}, raw=raw, dialect=self.name,
                                       error="the call's arguments are not valid Gemma 4 syntax"))
            else:
                continue
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        rest = remove_spans(text, spans)
        for token in _STRAY:
            rest = rest.replace(token, "")
        return cands, rest


GEMMA4 = _Gemma4()
