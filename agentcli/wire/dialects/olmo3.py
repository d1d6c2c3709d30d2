"""OLMo 3 tool calls: pythonic calls, one per line, inside a <function_calls> block.

<function_calls>get_weather(city='Paris', metric='celsius')
register_user(name='Jo', age=37, role=None)</function_calls>
Parsed with `ast` and literal evaluation only (never eval). Only keyword arguments with literal
values make a call; a block holding anything else is left as text for the other dialects (the
Anthropic XML form shares the tag).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pycalls import block_read, statement_calls
from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, remove_spans, total

BEGIN, END = "<function_calls>", "</function_calls>"
_TOKEN_BUDGET = 64 * MAX_CALLS


class _Olmo3(BlockDialect):
    name = "olmo3"
    markers = (BEGIN,)
    empty_lists = ((BEGIN, END),)
    begin, end = BEGIN, END

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)  # one per reply, spent over its blocks

        def read(text: str, blk: Block) -> BlockRead | None:
            body = text[blk.body_start : blk.body_end].strip()
            # a block opening with a tag is the Anthropic XML form (`<invoke name=..>`): no Python to read
            calls = statement_calls(body, budget) if body and body[0] != "<" else None
            return block_read(text, blk, self.name, calls)

        cands, spans = self.blocks(text, read=read)
        return (cands, remove_spans(text, spans)) if cands else ([], text)


OLMO3 = _Olmo3()
