"""Liquid LFM2 / LFM2.5 tool calls: a pythonic call list between tool-call tokens.

<|tool_call_start|>[get_candidate_status(candidate_id='12345'), get_weather()]<|tool_call_end|>
The list is read with `ast` (never evaluated). Common model slips are repaired first:
raw newlines / NUL bytes inside strings and zero-padded integers. A JSON list of
{"name", "arguments"} objects is accepted too. One unreadable call does not drop its
siblings: the list is then split at top-level commas and each call read alone. A single call
whose one string argument holds unescaped quotes of its own kind (shell commands) is read verbatim.
"""

from __future__ import annotations

import ast
import functools
import json
import keyword
import re
import warnings
from typing import Any

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pylist import skeleton, with_strings
from agentcli.wire.dialects._scan import (
    AstBudget,
    Block,
    ParseResult,
    calls_from_json,
    loads,
    remove_spans,
    total,
)
from agentcli.wire.types import Candidate

BEGIN, END = "<|tool_call_start|>", "<|tool_call_end|>"
_NAMES = {"True": True, "False": False, "None": None, "true": True, "false": False, "null": None}
_MAX_SOURCE = 200_000  # ast on larger blocks is not worth the time; no model writes one
_TOKEN_BUDGET = 64 * MAX_CALLS  # Python tokens per parse over all its blocks (see AstBudget)


class _NotLiteral(ValueError):
    pass


def _literal(node: ast.AST) -> Any:
    """A JSON-able value from a literal AST node (strings, numbers, containers, True/None)."""
    if isinstance(node, ast.Constant):
        if node.value is None or isinstance(node.value, (str, int, float, bool)):
            return node.value
        raise _NotLiteral(type(node.value).__name__)
    if isinstance(node, ast.Name) and node.id in _NAMES:
        return _NAMES[node.id]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        val = _literal(node.operand)
        if isinstance(val, bool) or not isinstance(val, (int, float)):
            raise _NotLiteral("sign on non-number")
        return -val if isinstance(node.op, ast.USub) else val
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [_literal(e) for e in node.elts]
    if isinstance(node, ast.Dict):
        out: dict[str, Any] = {}
        for k, v in zip(node.keys, node.values):
            if k is None:
                raise _NotLiteral("dict unpacking")
            key = _literal(k)
            out[key if isinstance(key, str) else json.dumps(key)] = _literal(v)
        return out
    raise _NotLiteral(type(node).__name__)


def _func_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _func_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


def _call(node: ast.AST) -> tuple[str, dict[str, Any]] | None:
    """(name, kwargs) of one `f(a=1)` node; positional arguments make it no call."""
    if not isinstance(node, ast.Call) or node.args:
        return None
    name = _func_name(node.func)
    if not name:
        return None
    try:
        args = {kw.arg: _literal(kw.value) for kw in node.keywords if kw.arg}
    except _NotLiteral:
        return None
    if any(kw.arg is None for kw in node.keywords):
        return None
    return name, args


def _repair(src: str) -> str:
    """Escape raw control characters inside string literals and strip zero-padded ints.

    Inside a string the next character that matters (its quote, a backslash, a control character)
    is found by one pattern search, so a long string argument is copied in a few slices instead of
    character by character; outside strings (names, numbers, punctuation) the walk is per character."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(src)
    while i < n:
        if quote:
            m = _in_string(quote).search(src, i)
            if m is None:
                out.append(src[i:])
                break
            j = m.start()
            out.append(src[i:j])
            ch = src[j]
            if ch == "\\" and j + 1 < n:
                out.append(src[j : j + 2])
                i = j + 2
                continue
            if ch == quote:
                quote = ""
            out.append(_ESCAPED.get(ch, ch))
            i = j + 1
            continue
        ch = src[i]
        if ch in "'\"":
            quote = ch
        elif ch.isdigit() and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] in "._")):
            j = i
            while j < n and src[j].isdigit():
                j += 1
            digits = src[i:j]
            follower = src[j] if j < n else ""
            if len(digits) > 1 and digits[0] == "0" and digits.strip("0") and follower not in ".eEjJxXoObB":
                out.append(str(int(digits)))
                i = j
                continue
            out.append(digits)
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_ESCAPED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\x00"}


@functools.cache
def _in_string(quote: str) -> re.Pattern[str]:
    """What ends or changes a run of string text quoted by `quote`: the quote, a backslash, or a
    raw control character to escape (compiled on first use)."""
    return re.compile("[" + re.escape(quote) + "\\\\\n\r\t\x00]")


def _parse_expr(src: str) -> ast.AST | None:
    return _parse_plain(src, skeleton(src))  # the string literals read by memchr, not by the tokenizer


def _parse_plain(src: str, plain: tuple[str, list[str]] | None) -> ast.AST | None:
    """_parse_expr of a source whose skeleton (None: it has none) the caller made already."""
    if plain is not None:
        tree = _parsed(plain[0])
        if tree is not None:
            return with_strings(tree, plain[1])
    tree = _parsed(src)
    return tree if tree is not None else _parsed(_repair(src))  # repaired only when read as written fails


def _parsed(candidate: str) -> ast.AST | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in model strings warn
            return ast.parse(candidate.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _split_top_level(src: str) -> list[str]:
    """Split `[a(..), b(..)]` into call sources at commas outside strings and brackets."""
    s = src.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1]
    parts: list[str] = []
    depth, start, quote = 0, 0, ""
    i = 0
    while i < len(s):
        ch = s[i]
        if quote:
            if ch == "\\":
                i += 2
                continue
            if ch == quote:
                quote = ""
        elif ch in "'\"":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(s[start:i])
            start = i + 1
        i += 1
    parts.append(s[start:])
    return [p.strip() for p in parts if p.strip()]


# One call with one string argument whose quotes were not escaped (`bash(command='sed -n '1,2p' f')`):
# the value is everything between the first quote and the one closing the call, taken verbatim.
_RAW_HEAD = re.compile(r"([A-Za-z_][\w.]*)\(\s*([A-Za-z_]\w*)\s*=\s*(['\"])")


def _raw_string_call(src: str) -> tuple[str, dict[str, Any]] | None:
    s = src.strip()
    if s.startswith("[") and s.endswith("]"):
        s = s[1:-1].strip()
    head = _RAW_HEAD.match(s)
    if head is None or not s.endswith(")"):
        return None
    tail = s[:-1].rstrip()
    q = head.group(3)
    value = tail[head.end() : -1]
    if len(tail) <= head.end() or not tail.endswith(q) or f"{q})," in value or re.search(rf"{q}\s*,\s*\w+\s*=", value):
        return None  # a call or argument boundary inside: several things, not one broken string
    return head.group(1), {head.group(2): value}


def parse_block(src: str, budget: AstBudget | None = None) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in one block's text; None when nothing in it reads as a call (or it would cost more
    than what is left of `budget`, the parse's)."""
    if len(src) > _MAX_SOURCE or not src.strip():
        return None
    budget = budget if budget is not None else AstBudget(_TOKEN_BUDGET)
    plain = skeleton(src)
    if plain is not None:
        simple = _simple_calls(plain)
    else:  # no skeleton: read as written when it holds no string (no placeholder to stand for one)
        simple = _simple_calls((src, [])) if "'" not in src and '"' not in src else None
    if simple is not None:  # the usual list of calls: read without the parser, its tokens counted as it is read
        return simple[0] if budget.spend(simple[1]) else None
    if not budget.take(src):
        return None
    tree = _parse_plain(src, plain)
    if tree is not None:
        elts = tree.elts if isinstance(tree, ast.List) else [tree]
        calls = [_call(e) for e in elts]
        good = [c for c in calls if c is not None]
        if good:
            return good
    salvaged = [c for part in _split_top_level(src) if (node := _parse_expr(part)) is not None
                if (c := _call(node)) is not None]
    if salvaged:
        return salvaged
    one = _raw_string_call(src)
    return [one] if one else None


# The usual call list, as its skeleton writes it (string literals as `'i'`): calls named by
# dotted ASCII names, keyword arguments only, each value a literal, a plain integer or decimal, or
# one of the names _NAMES reads; whitespace Python's tokenizer skips in brackets. Anything else
# (a keyword as a name, a nested value, an exponent, a comment) is left to the parser.
_NAME = "(?!(?:" + "|".join(keyword.kwlist) + r")(?![A-Za-z0-9_]))[A-Za-z_][A-Za-z0-9_]*"
_GAP = r"[ \t\f\n]*"
_INLINE_GAP = r"[ \t\f]*"  # outside brackets
_VALUE = r"(?:'[0-9]+'|-?(?:0|[1-9][0-9]{0,99})(?:\.[0-9]{1,99})?|" + "|".join(_NAMES) + ")"
_KWARG = rf"{_NAME}{_GAP}={_GAP}{_VALUE}"


def _call_pattern(before: str) -> str:
    """One call, `before` what may stand between its name and its `(` (outside brackets a line
    break ends the expression)."""
    return rf"({_NAME}(?:\.{_NAME})*){before}\({_GAP}((?:{_KWARG}(?:{_GAP},{_GAP}{_KWARG})*{_GAP},?)?){_GAP}\)"


_CALL = _call_pattern(_GAP)
_SIMPLE = lazy_pattern(rf"\[{_GAP}{_CALL}(?:{_GAP},{_GAP}{_CALL})*{_GAP},?{_GAP}\]|{_call_pattern(_INLINE_GAP)}")
_CALLS = lazy_pattern(_CALL)
_KWARGS = lazy_pattern(rf"({_NAME}){_GAP}={_GAP}({_VALUE})")


def _simple_calls(plain: tuple[str, list[str]]) -> tuple[list[tuple[str, dict[str, Any]]], int] | None:
    """(the calls, the Python tokens of the source) of a skeleton (`_pylist.skeleton`) in the usual
    shape (see _SIMPLE), or None for any other. What parse_block's parse gives for it: every element
    is a call (`_call`), each value the literal `_literal` reads; and its tokens what
    AstBudget.take counts (each literal one, each word and punctuation mark one)."""
    src, values = plain
    src = src.strip()  # as _parsed strips
    if _SIMPLE.fullmatch(src) is None:
        return None
    calls: list[tuple[str, dict[str, Any]]] = []
    tokens = src.count(",") + (2 if src[0] == "[" else 0)
    for call in _CALLS.finditer(src):
        name = call.group(1)
        tokens += 3 + 2 * name.count(".")  # the name's words and dots, the two parentheses
        args: dict[str, Any] = {}
        for kwarg in _KWARGS.finditer(call.group(2)):
            text = kwarg.group(2)
            head = text[0]
            if head == "'":
                value: Any = values[int(text[1:-1])]
                tokens += 3
            elif head in _NAMES_START:
                value = _NAMES[text]
                tokens += 3
            else:
                value = float(text) if "." in text else int(text)
                tokens += 3 + (head == "-") + (2 if "." in text else 0)
            args[kwarg.group(1)] = value
        calls.append((name, args))
    return calls, tokens


_NAMES_START = frozenset(n[0] for n in _NAMES)


class _Lfm2(BlockDialect):
    name = "lfm2"
    markers = (BEGIN,)
    owns = (BEGIN,)
    call_wrappers = ((BEGIN, END),)
    reads_in_place = True  # each block read from its token to the end token past its strings
    begin, end = BEGIN, END

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)  # one per reply, spent over its blocks
        cands, spans = self.blocks(text, read=lambda t, blk: self._read(t, blk, budget))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)

    def _read(self, text: str, blk: Block, budget: AstBudget) -> BlockRead | None:
        body = text[blk.body_start : blk.body_end]
        raw = text[blk.start : blk.end]
        if not blk.closed and not body.rstrip().endswith("]"):
            return None  # cut off inside the list
        found = self._json(body, raw)
        if found is None:
            calls = parse_block(body, budget)
            if not calls:
                return None
            found = [Candidate(name=n, arguments=a, raw=raw, dialect=self.name) for n, a in calls]
        return found, blk.end

    def _json(self, body: str, raw: str) -> list[Candidate] | None:
        s = body.strip()
        if not (s.startswith("{") or (s.startswith("[") and s[1:].lstrip().startswith("{"))):
            return None
        value = loads(s)
        if isinstance(value, (list, dict)):
            return calls_from_json(value, raw, self.name)
        return None


LFM2 = _Lfm2()
