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


def spend_as_read(src: str, budget: AstBudget) -> None:
    """What call_list(src, budget) spends of the budget, without reading `src`: a list passed over
    (an example in a code fence) costs the parse what reading it did, so the lists after it are
    read or left exactly as before."""
    if src.startswith("[") and src.endswith("]") and len(src) <= _MAX:
        budget.take(src)


def _parse_expr(src: str) -> ast.AST | None:
    """The expression `src` parses to, or None. Its string literals are read by memchr where they
    are plainly their text (skeleton): the parser is handed a few characters per literal."""
    plain = skeleton(src)
    if plain is not None:
        tree = _parsed(plain[0])
        if tree is not None:
            return with_strings(tree, plain[1])
    return _parsed(src)


def _parsed(src: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" in model-written strings
            return ast.parse(src, mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_SURROGATE = lazy_pattern("[\ud800-\udfff]")  # no UTF-8 for it: the source does not parse
_QUOTES = "'\""
_BETWEEN = " \t\n\f"  # what may stand between two literals the parser would join


def skeleton(src: str) -> tuple[str, list[str]] | None:
    """(`src` with its i-th string literal written `'i'`, the literals' contents), or None when a
    literal is not plainly its contents (an escape, a prefix, triple quotes, a line break, two
    literals joined) or a comment could hide a quote; also None when there is no string at all.

    Why: the parser's tokenizer reads a string literal a character at a time (some 140 instructions a
    character: a 10 KB argument costs more than the rest of the reply); the skeleton holds a few
    characters per literal. A plain literal's value is the text between its quotes, so the tree of the
    skeleton with each `'i'` given back its contents (with_strings) is the tree of `src`; the skeleton
    parses exactly when `src` does (the other tokens are the same). Where a string opens is found by
    memchr: outside strings only a comment holds a quote, and `#` there sends the source the full way.
    """
    # An escape or a line continuation, a carriage return (read as a line break), a NUL (no source
    # may hold one): the value is not the text as written, or the source does not parse.
    if "\\" in src or "\r" in src or "\x00" in src or (not src.isascii() and _SURROGATE.search(src)):
        return None
    parts: list[str] = []
    values: list[str] = []
    n, pos = len(src), 0
    nd, ns = src.find('"'), src.find("'")
    while nd != -1 or ns != -1:
        q = nd if ns == -1 or (nd != -1 and nd < ns) else ns
        if src.find("#", pos, q) != -1:
            return None
        if q and (src[q - 1].isalnum() or src[q - 1] == "_"):
            return None  # a prefix (r'', b'', f'') or a name run into the string
        c = src[q]
        e = src.find(c, q + 1)
        if e == -1 or (e == q + 1 and src.startswith(c, e + 1)) or src.find("\n", q + 1, e) != -1:
            return None  # unclosed, triple-quoted, or broken by a line break
        after = e + 1
        while after < n and src[after] in _BETWEEN:
            after += 1
        if after < n and src[after] in _QUOTES:
            return None  # `'a' 'b'`: the parser joins them into one constant
        parts.append(src[pos:q])
        parts.append(f"'{len(values)}'")
        values.append(src[q + 1 : e])
        pos = e + 1
        if nd != -1 and nd < pos:
            nd = src.find('"', pos)
        if ns != -1 and ns < pos:
            ns = src.find("'", pos)
    if not values or src.find("#", pos) != -1:
        return None
    parts.append(src[pos:])
    return "".join(parts), values


def with_strings(tree: ast.AST, values: list[str]) -> ast.AST:
    """The tree of a skeleton with each string constant `'i'` given back the i-th literal's contents.
    The nodes of a call list are stepped through by their fields; any other node by ast's walk
    (which asks every node for every field: several times the cost on the few nodes of a call)."""
    stack: list[Any] = [tree]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Constant:
            if type(node.value) is str:
                node.value = values[int(node.value)]
        elif kind is ast.List or kind is ast.Tuple or kind is ast.Set:
            stack.extend(node.elts)
        elif kind is ast.Call:
            stack.append(node.func)
            stack.extend(node.args)
            stack.extend(node.keywords)
        elif kind is ast.keyword or kind is ast.UnaryOp:
            stack.append(node.value if kind is ast.keyword else node.operand)
        elif kind is ast.Dict:
            stack.extend(k for k in node.keys if k is not None)
            stack.extend(node.values)
        elif kind is ast.Attribute:
            stack.append(node.value)
        elif kind is not ast.Name:
            stack.extend(ast.iter_child_nodes(node))
    return tree


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
