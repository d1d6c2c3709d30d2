"""Python call statements as tool calls: `f(x=1)` lines (OLMo 3), `print(default_api.f(x=1))` (Gemini).

Parsed with `ast` and literal evaluation only, never eval. Only keyword arguments with literal
values make a call; a body holding anything else is not a call list at all.
"""

from __future__ import annotations

import ast
import keyword
import re
import warnings
from typing import Any

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._pylist import dotted, literal
from agentcli.wire.dialects._scan import AstBudget, Block
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
    tree = _parse(src)
    renamed: dict[str, str] = {}
    if tree is None:
        # `book_flight(from="SFO")`: an argument named like a Python keyword is still an argument.
        tree, renamed = _rename_keyword_args(src)
    if tree is None:
        return None
    out: list[tuple[str, dict[str, object]]] = []
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        while (
            isinstance(call, ast.Call) and len(call.args) == 1 and not call.keywords
            and dotted(call.func) in wrappers and isinstance(call.args[0], ast.Call)
        ):
            call = call.args[0]
        got = _call(call, namespaces)
        if got is None:
            return None
        out.append((got[0], {renamed.get(k, k): v for k, v in got[1].items()}) if renamed else got)
    return out or None


def _parse(src: str) -> ast.Module | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" in model-written strings
            return ast.parse(src, mode="exec")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


_KEYWORD_ARG = lazy_pattern(
    r"(?<![\w.])(" + "|".join(sorted(keyword.kwlist, key=len, reverse=True)) + r")(?=[ \t]*=(?!=))")


def _rename_keyword_args(src: str) -> tuple[ast.Module | None, dict[str, str]]:
    """`src` parsed with every keyword-named argument (`from=`, `class=`) given a placeholder name,
    and the placeholders mapped back.

    One regex pass and one parse, so the cost stays linear (the tokenize module backtracks on long
    runs of escaped quotes: seconds for a few kilobytes). A `from=` inside a string is renamed too,
    and put back in the string constants here.
    """
    prefix = "_kw_"
    while prefix in src:
        prefix += "_"
    renamed: dict[str, str] = {}

    def rename(m: re.Match[str]) -> str:
        placeholder = f"{prefix}{len(renamed)}x"
        renamed[placeholder] = m.group(1)
        return placeholder

    tree = _parse(_KEYWORD_ARG.sub(rename, src))
    if tree is None or not renamed:
        return None, {}
    back = re.compile(re.escape(prefix) + r"\d+x")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and prefix in node.value:
            node.value = back.sub(lambda m: renamed[m.group()], node.value)
        elif isinstance(node, ast.Constant) and isinstance(node.value, bytes) and prefix.encode() in node.value:
            node.value = back.sub(lambda m: renamed[m.group()], node.value.decode("latin-1")).encode("latin-1")
    return tree, renamed


def _call(call: ast.AST | None, namespaces: tuple[str, ...]) -> tuple[str, dict[str, object]] | None:
    if not isinstance(call, ast.Call) or call.args:
        return None
    name = dotted(call.func)
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
            args[kw.arg] = _value(kw.value)
        except (ValueError, TypeError, SyntaxError, RecursionError):
            return None
    return name, args


_JSON_NAMES: dict[str, Any] = {"true": True, "false": False, "null": None}


def _value(node: ast.AST, depth: int = 0) -> Any:
    """A literal argument value; JSON's true/false/null are read at any depth (models mix them in)."""
    if depth > 64:
        raise ValueError("too deep")
    if isinstance(node, ast.Name) and node.id in _JSON_NAMES:
        return _JSON_NAMES[node.id]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_value(e, depth + 1) for e in node.elts]
    if isinstance(node, ast.Dict):
        if any(k is None for k in node.keys):
            raise ValueError("dict unpacking is not a literal")
        return {_value(k, depth + 1) if k is not None else None: _value(v, depth + 1) for k, v in zip(node.keys, node.values)}
    return literal(node)


def block_read(text: str, blk: Block, dialect: str, calls: list[tuple[str, dict[str, Any]]] | None,
               ) -> tuple[list[Candidate], int] | None:
    """The candidates of one block (see _block.BlockDialect) whose body read as `calls` (None: not a
    call block, left as text), each with the whole block as raw."""
    if not calls:
        return None
    raw = text[blk.start : blk.end]
    return [Candidate(name, args, raw, dialect) for name, args in calls], blk.end
