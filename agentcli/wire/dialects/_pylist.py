"""Python call lists as tool calls: `[get_weather(city="Paris"), f(x=1)]` read with `ast`.

Parsed with `ast` and literal evaluation only, never eval: keyword arguments with JSON-like literal
values make a call. Shared by the pythonic dialect and the forms that write their bodies the pythonic
way (Llama 3's `<|python_tag|>` calls, the Python statements of _pycalls).
"""

from __future__ import annotations

import ast
import math
import warnings
from typing import Any

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._scan import AstBudget

_MAX = 1_000_000  # ast on megabytes of brackets is slow and never a real call list
TOKEN_BUDGET = 64 * MAX_CALLS  # Python tokens per parse, over all the spans it tries (see AstBudget)
_SPLIT = lazy_pattern(r"\)\s*,\s*(?=[A-Za-z_][\w.]*\s*\()")  # between two calls of a list
_HEAD = lazy_pattern(r"\s*([A-Za-z_][\w.]*)\s*\(")

# (name, arguments, error): arguments are None exactly when error says why the call is unreadable.
Call = tuple[str, "dict[str, Any] | None", "str | None"]


def keyword_calls(src: str) -> list[Call] | None:
    """The calls in `src`, one `name(k=v, ...)` call or several separated by commas (other dialects'
    bodies written the pythonic way); None when it is not that."""
    return call_list("[" + src.strip() + "]", AstBudget(TOKEN_BUDGET))


def call_list(src: str, budget: AstBudget) -> list[Call] | None:
    """The calls in `src` when it is a list of calls (or one call in brackets); None when it is not.

    A list that does not parse as Python is split between its calls and each part read alone: the
    readable ones are calls and the rest broken calls, unless no part reads at all."""
    if not src.startswith("[") or not src.endswith("]") or len(src) > _MAX or not budget.take(src):
        return None
    node = _parse_expr(src)
    if node is None:
        parts = _SPLIT.split(src[1:-1])
        if len(parts) < 2:
            return None
        out: list[Call] = []
        for i, part in enumerate(parts):
            piece = part if i == len(parts) - 1 else part + ")"
            one = _parse_expr("[" + piece.strip() + "]")
            got = _list_calls(one) if one is not None else None
            if got is not None and len(got) == 1:
                out.append(got[0])
                continue
            head = _HEAD.match(piece)
            if head is None:
                return None
            out.append((head.group(1), None, "the call is not valid Python literal syntax"))
        return out if any(err is None for _, _, err in out) else None
    return _list_calls(node)


def _parse_expr(src: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" in model-written strings
            return ast.parse(src, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _list_calls(node: ast.AST) -> list[Call] | None:
    """A parsed list whose every element is a call by name: each call with its arguments, or with
    the reason they cannot be read. Anything else (a list of numbers, a subscript) is not calls."""
    if not isinstance(node, ast.List) or not node.elts:
        return None
    out: list[Call] = []
    for elt in node.elts:
        if not isinstance(elt, ast.Call):
            return None
        name = dotted(elt.func)
        if name is None:
            return None
        if elt.args:
            out.append((name, None, "positional arguments; only keyword arguments can be read"))
            continue
        args: dict[str, Any] = {}
        error = None
        for kw in elt.keywords:
            if kw.arg is None:
                error = "**kwargs cannot be read as arguments"
                break
            try:
                args[kw.arg] = literal(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
                error = f"argument {kw.arg!r} is not a JSON value ({exc})"
                break
        out.append((name, None, error) if error else (name, args, None))
    return out


def literal(node: ast.AST) -> Any:
    # JSON spellings small models mix in: true/false/null as bare names.
    if isinstance(node, ast.Name) and node.id in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[node.id]
    value = ast.literal_eval(node)
    if isinstance(value, (set, frozenset, bytes, complex)):
        raise ValueError("not a JSON value")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("a number JSON cannot carry")
    if isinstance(value, tuple):
        return list(value)
    return value


def dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None
