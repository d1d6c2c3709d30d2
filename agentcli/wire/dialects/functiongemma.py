"""FunctionGemma tool calls: `call:NAME{key:value,...}` between function-call tokens.

<start_function_call>call:get_weather{location:<escape>London<escape>,days:3}<end_function_call>
Strings are wrapped in <escape> tokens; numbers, booleans and nested {..}/[..] are bare.
Leaf values are returned as text (text_values) for the pipeline to decode.
"""

from __future__ import annotations

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._callbody import parse_call
from agentcli.wire.dialects._scan import Block
from agentcli.wire.types import Candidate

BEGIN, END = "<start_function_call>", "<end_function_call>"


class _FunctionGemma(BlockDialect):
    name = "functiongemma"
    markers = (BEGIN,)
    owns = (BEGIN,)
    call_wrappers = ((BEGIN, END),)  # a reasoning tag in a value is the value's text
    reads_in_place = True  # each block read from its token to the first end token after it
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        # A cut-off call counts only if its argument braces closed (parse_call checks).
        got = parse_call(text[blk.body_start : blk.body_end])
        if got is None:
            return None
        return [Candidate(name=got[0], arguments=got[1], raw=text[blk.start : blk.end],
                          dialect=self.name, text_values=True)], blk.end


FUNCTIONGEMMA = _FunctionGemma()
