"""OLMo 3 tool calls: pythonic calls, one per line, inside a <function_calls> block.

<function_calls>get_weather(city='Paris', metric='celsius')
register_user(name='Jo', age=37, role=None)</function_calls>
Parsed with `ast` and literal evaluation only (never eval). Only keyword arguments with literal
values make a call; a block holding anything else is left as text for the other dialects (the
Anthropic XML form shares the tag).
"""

from __future__ import annotations

import ast
import warnings

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import AstBudget, ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.dialects.pythonic import _dotted, _literal
from agentcli.wire.types import Candidate

BEGIN, END = "<function_calls>", "</function_calls>"
_MAX_BODY = 200_000  # ast on larger blocks is not worth the time; no model writes one
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
            calls = _calls(body, budget) if body and "invoke" not in body else None
            if calls is None:
                continue
            raw = text[blk.start : blk.end]
            cands.extend(Candidate(name, args, raw, self.name) for name, args in calls)
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


def _calls(src: str, budget: AstBudget) -> list[tuple[str, dict[str, object]]] | None:
    """Each statement of `src` a keyword-argument call with literal values, or None."""
    if len(src) > _MAX_BODY or not budget.take(src):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" in model-written strings
            tree = ast.parse(src, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    out: list[tuple[str, dict[str, object]]] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(call, ast.Call) or call.args:
            return None
        name = _dotted(call.func)
        if name is None:
            return None
        args: dict[str, object] = {}
        for kw in call.keywords:
            if kw.arg is None:
                return None
            try:
                args[kw.arg] = _literal(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                return None
        out.append((name, args))
    return out or None


OLMO3 = _Olmo3()
