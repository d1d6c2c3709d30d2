"""OLMo 3 tool calls: pythonic calls, one per line, inside a <function_calls> block.

<function_calls>get_weather(city='Paris', metric='celsius')
register_user(name='Jo', age=37, role=None)</function_calls>
Parsed with `ast` and literal evaluation only (never eval). Only keyword arguments with literal
values make a call; a block holding anything else is left as text for the other dialects (the
Anthropic XML form shares the tag).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._pycalls import statement_calls
from agentcli.wire.dialects._scan import AstBudget, ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

BEGIN, END = "<function_calls>", "</function_calls>"
_TOKEN_BUDGET = 64 * MAX_CALLS


class _Olmo3(Dialect):
    name = "olmo3"
    markers = (BEGIN,)

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            body = text[blk.body_start : blk.body_end].strip()
            calls = statement_calls(body, budget) if body and "invoke" not in body else None
            if calls is None:
                continue
            raw = text[blk.start : blk.end]
            cands.extend(Candidate(name, args, raw, self.name) for name, args in calls)
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


OLMO3 = _Olmo3()
