"""OLMo 3 tool calls: pythonic calls, one per line, inside a <function_calls> block.

<function_calls>get_weather(city='Paris', metric='celsius')
register_user(name='Jo', age=37, role=None)</function_calls>
Parsed with `ast` and literal evaluation only (never eval). Only keyword arguments with literal
values make a call; a block holding anything else is left as text for the other dialects (the
Anthropic XML form shares the tag).
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._pycalls import calls_in_blocks, statement_calls
from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, total

BEGIN, END = "<function_calls>", "</function_calls>"
_TOKEN_BUDGET = 64 * MAX_CALLS


class _Olmo3(Dialect):
    name = "olmo3"
    markers = (BEGIN,)
    empty_lists = ((BEGIN, END),)

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)

        def read(blk: Block) -> list[tuple[str, dict[str, Any]]] | None:
            body = text[blk.body_start : blk.body_end].strip()
            return statement_calls(body, budget) if body and "invoke" not in body else None

        return calls_in_blocks(text, BEGIN, END, self.name, read)


OLMO3 = _Olmo3()
