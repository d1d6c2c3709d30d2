"""FunctionGemma tool calls: `call:NAME{key:value,...}` between function-call tokens.

<start_function_call>call:get_weather{location:<escape>London<escape>,days:3}<end_function_call>
Strings are wrapped in <escape> tokens; numbers, booleans and nested {..}/[..] are bare.
Leaf values are returned as text (text_values) for the pipeline to decode.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callbody import parse_call
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

BEGIN, END = "<start_function_call>", "<end_function_call>"


class _FunctionGemma(Dialect):
    name = "functiongemma"
    markers = (BEGIN,)
    owns = (BEGIN,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            # A cut-off call counts only if its argument braces closed (parse_call checks).
            got = parse_call(text[blk.body_start : blk.body_end])
            if got is None:
                continue
            cands.append(Candidate(name=got[0], arguments=got[1], raw=text[blk.start : blk.end],
                                   dialect=self.name, text_values=True))
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


FUNCTIONGEMMA = _FunctionGemma()
