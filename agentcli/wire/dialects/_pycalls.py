"""Python call statements as tool calls: `f(x=1)` lines (OLMo 3), `print(default_api.f(x=1))` (Gemini).

Parsed with `ast` and literal evaluation only, never eval. Only keyword arguments with literal
values make a call; a body holding anything else is not a call list at all.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Callable
from typing import Any

from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, iter_blocks, remove_spans
from agentcli.wire.dialects.pythonic import _dotted, _literal
from agentcli.wire.types import Candidate

MAX_BODY = 200_000  # ast on larger blocks is not worth the time; no model writes one


def statement_calls(
    src: str, budget: AstBudget, *, wrappers: tuple[str, ...] = (), namespaces: tuple[str, ...] = ()
) -> list[tuple[str, dict[str, object]]] | None:
    """Each statement of `src` one keyword-argument call, or None.

    wrappers:   calls that may wrap the real one (`print(f(x=1))`)
    namespaces: prefixes dropped from the called name (`default_api.f` -> `f`)
    """
    if len(src) > MAX_BODY or not budget.take(src):
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
        while (
            isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords
            and _dotted(call.func) in wrappers and isinstance(call.args[0], ast.Call)
        ):
            call = call.args[0]
        got = _call(call, namespaces)
        if got is None:
            return None
        out.append(got)
    return out or None


def _call(call: ast.AST | None, namespaces: tuple[str, ...]) -> tuple[str, dict[str, object]] | None:
    if not isinstance(call, ast.Call) or call.args:
        return None
    name = _dotted(call.func)
    if name is None:
        return None
    for ns in namespaces:
        if name.startswith(ns + "."):
            name = name[len(ns) + 1 :]
            break
    args: dict[str, object] = {}
    for kw in call.keywords:
        if kw.arg is None:
            return None
        try:
            args[kw.arg] = _literal(kw.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
    return name, args


def calls_in_blocks(text: str, begin: str, end: str, dialect: str,
                    read: Callable[[Block], list[tuple[str, dict[str, Any]]] | None]) -> ParseResult:
    """Candidates from every `begin`…`end` block that `read` turns into calls (None: not a call
    block, left as text); the blocks taken leave the visible text."""
    cands: list[Candidate] = []
    spans: list[tuple[int, int]] = []
    for blk in iter_blocks(text, begin, end):
        calls = read(blk)
        if calls is None:
            continue
        raw = text[blk.start : blk.end]
        cands.extend(Candidate(name, args, raw, dialect) for name, args in calls)
        spans.append((blk.start, blk.end))
    if not cands:
        return [], text
    return cands, remove_spans(text, spans)
