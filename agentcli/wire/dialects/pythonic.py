"""Pythonic calls: `[get_weather(city="Paris"), f(x=1)]` (Llama 3.2/3.3, Llama 4 <|python_start|>).

Parsed with the `ast` module and literal evaluation only, never eval. Accepted where the model
clearly meant a call: inside <|python_start|>...<|python_end|>, as the whole message, or as a
list on the last line(s) after prose. A list inside a sentence (`Here's a call: [f(x=1)]`), a bare
`f(x=1)` as the whole message, and bare calls one to a line ending the message, after prose or not
(Granite 3.3 writes `get_weather(city="Paris")` lines), are embedded calls: kept only for an offered
tool's name. Lists inside code fences or `inline code` are examples. One call that cannot be read (positional or
non-literal arguments, a broken quote, a number JSON cannot carry) is reported as a broken call
next to its readable siblings; a list with no readable call is not a call list.
"""

from __future__ import annotations

import ast
import bisect
import json
import math
import re
import warnings
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import fences
from agentcli.wire.dialects._scan import AstBudget
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

START = "<|python_start|>"
END = "<|python_end|>"
_MAX = 1_000_000  # ast on megabytes of brackets is slow and never a real call list
_TOKEN_BUDGET = 64 * MAX_CALLS  # Python tokens per parse, over all the spans it tries (see AstBudget)
_INLINE = re.compile(r"\[\s*[A-Za-z_][\w.]*\s*\(")  # a call list opening inside prose
_BARE = re.compile(r"[A-Za-z_][\w.]*\s*\(")  # a whole message that is one call without brackets
_SPLIT = re.compile(r"\)\s*,\s*(?=[A-Za-z_][\w.]*\s*\()")  # between two calls of a list
_HEAD = re.compile(r"\s*([A-Za-z_][\w.]*)\s*\(")
_SPAN_MAX = 20_000  # an inline list longer than this is not read (and bounds the bracket scan)
_BARE_LINES = 64  # bare call lines read at the end of a message, at most

# (name, arguments, error): arguments are None exactly when error says why the call is unreadable.
Call = tuple[str, "dict[str, Any] | None", "str | None"]


class PythonicDialect(Dialect):
    name = "pythonic"
    markers = ()  # the bare list form has no marker
    stream_markers = (START,)  # what the stream detector may hold on
    emulation = True

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        budget = AstBudget(_TOKEN_BUDGET)
        s = text.find(START)
        if s >= 0:
            e = text.find(END, s)
            body = text[s + len(START): e if e >= 0 else len(text)]
            calls = _calls(body.strip(), budget)
            if calls is None:
                return [], text
            rest = text[:s] + (text[e + len(END):] if e >= 0 else "")
            return _cands(calls, text[s: e + len(END) if e >= 0 else len(text)], self.name), rest
        stripped = text.strip()
        if "(" not in stripped:
            return [], text
        if stripped.endswith("]"):
            found = self._whole(stripped, budget)
            if found is not None:
                return found
        if stripped.endswith(")"):
            if _BARE.match(stripped):
                calls = _calls("[" + stripped + "]", budget)
                if calls is not None and all(err is None for _, _, err in calls):
                    return _cands(calls, stripped, self.name, embedded=True), ""
            found = self._bare_lines(stripped, budget)
            if found is not None:
                return found
        return self._inline(text, budget)

    def _bare_lines(self, stripped: str, budget: AstBudget) -> tuple[list[Candidate], str] | None:
        """Bare calls one to a line ending the message, after prose or not: embedded calls, the text
        before them the text. Read from the last line up to the first line that is not one good call."""
        found: list[Candidate] = []
        cut = len(stripped)
        while len(found) < _BARE_LINES:
            nl = stripped.rfind("\n", 0, cut)
            line = stripped[nl + 1: cut].strip()
            if line:
                if not (line.endswith(")") and _BARE.match(line)):
                    break
                calls = _calls("[" + line + "]", budget)
                if calls is None or len(calls) != 1 or calls[0][2] is not None:
                    break
                found.extend(_cands(calls, line, self.name, embedded=True))
            cut = max(nl, 0)
            if nl < 0:
                break
        if not found:
            return None
        found.reverse()
        prose = stripped[:cut]
        before, rest = self._inline(prose, budget) if prose else ([], prose)
        return before + found, rest

    def _whole(self, stripped: str, budget: AstBudget) -> tuple[list[Candidate], str] | None:
        """The message is a call list, one list per line, or prose with the list on its last line(s)."""
        calls = _calls(stripped, budget)
        if calls is not None:
            return _cands(calls, stripped, self.name), ""
        if stripped.count("\n") < 4096:  # a megabyte of short lines is no call list: not split
            lines = [ln.strip() for ln in stripped.split("\n") if ln.strip()]
            if 1 < len(lines) <= 64 and all(ln.startswith("[") and ln.endswith("]") for ln in lines):
                per_line = []  # one list per line (history rendered call by call)
                for ln in lines:
                    per_line.append(_calls(ln, budget))
                    if per_line[-1] is None:
                        break
                else:
                    return [c for ln, cs in zip(lines, per_line) for c in _cands(cs or [], ln, self.name)], ""
        # Prose, then the call list on its own final line(s).
        cut = stripped.rfind("\n[")
        for _ in range(4):  # a few candidate starts, bounded: this must stay linear
            if cut < 0 or len(stripped) - cut > 200_000:
                break
            tail = stripped[cut + 1:]
            calls = _calls(tail, budget)
            if calls is not None:
                return _cands(calls, tail, self.name), stripped[:cut]
            cut = stripped.rfind("\n[", 0, cut)
        return None

    def _inline(self, text: str, budget: AstBudget) -> tuple[list[Candidate], str]:
        """Call lists inside sentences, outside code fences and inline code: embedded candidates.
        The bracket scans share a budget of twice the text, so many unclosed openers stay linear."""
        if "[" not in text:
            return [], text
        skip: list[tuple[int, int]] | None = None  # fence spans, found only once a list reads as calls
        out: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        scan_left = 2 * len(text)
        for m in _INLINE.finditer(text):
            p = m.start()
            if p < pos or (p > 0 and text[p - 1] == "`"):
                continue
            if scan_left <= 0 or len(out) > MAX_CALLS:
                break
            end = _list_end(text, p, min(len(text), p + _SPAN_MAX))
            scan_left -= (end or min(len(text), p + _SPAN_MAX)) - p
            if end is None:
                continue
            calls = _calls(text[p:end], budget)
            if calls is None or any(err for _, _, err in calls):
                continue  # inside prose only a list read whole is taken
            if skip is None:
                skip = [(fs, fe) for fs, fe, *_ in fences(text)]
            k = bisect.bisect_right(skip, (p, len(text)))
            if k and skip[k - 1][0] <= p < skip[k - 1][1]:
                continue  # inside a code fence: an example
            out.extend(_cands(calls, text[p:end], self.name, embedded=True))
            kept.append(text[pos:p])
            pos = end
        if not out:
            return [], text
        kept.append(text[pos:])
        return out, "".join(kept)

    # --- emulation -------------------------------------------------------------------------

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        return _prompt.instructions(
            tools, compact, lambda n, a: _render([(n, a)]), _render,
            results_hint=" as text after 'Tool results:'",
        )

    def render_call(self, call: ToolCall) -> str:
        return _render([(call.name, call.arguments)])

    def render_results(self, results: list[ToolResult]) -> str:
        return "Tool results:\n" + "\n".join(f"{r.tool_name}: {_prompt.result_text(r)}" for r in results)


def _render(calls: list[tuple[str, dict[str, Any]]]) -> str:
    return "[" + ", ".join(f"{n}({', '.join(f'{k}={_py(v)}' for k, v in a.items())})" for n, a in calls) + "]"


def _py(value: Any) -> str:
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    return repr(value)


def keyword_calls(src: str) -> list[Call] | None:
    """The calls in `src`, one `name(k=v, ...)` call or several separated by commas (other dialects'
    bodies written the pythonic way); None when it is not that."""
    return _calls("[" + src.strip() + "]", AstBudget(_TOKEN_BUDGET))


def _cands(calls: list[Call], raw: str, dialect: str, *, embedded: bool = False) -> list[Candidate]:
    return [Candidate(n, a, raw, dialect, error=err, embedded=embedded) for n, a, err in calls]


def _calls(src: str, budget: AstBudget) -> list[Call] | None:
    """The calls in `src` when it is a list of calls (or one call in brackets); None when it is not.

    A list that does not parse as Python is split between its calls and each part read alone: the
    readable ones are calls and the rest broken calls, unless no part reads at all."""
    if not src.startswith("[") or not src.endswith("]") or len(src) > _MAX or not budget.take(src):
        return None
    node = _parse(src)
    if node is None:
        parts = _SPLIT.split(src[1:-1])
        if len(parts) < 2:
            return None
        out: list[Call] = []
        for i, part in enumerate(parts):
            piece = part if i == len(parts) - 1 else part + ")"
            one = _parse("[" + piece.strip() + "]")
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


def _parse(src: str) -> ast.AST | None:
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
        name = _dotted(elt.func)
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
                args[kw.arg] = _literal(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
                error = f"argument {kw.arg!r} is not a JSON value ({exc})"
                break
        out.append((name, None, error) if error else (name, args, None))
    return out


def _list_end(text: str, start: int, stop: int) -> int | None:
    """Index past the ']' closing the '[' at `start`, skipping Python strings; None when it does not
    close before `stop` or a bracket mismatches."""
    want: list[str] = []
    pairs = {"[": "]", "(": ")", "{": "}"}
    i = start
    while i < stop:
        c = text[i]
        if c in pairs:
            want.append(pairs[c])
        elif c in ")]}":
            if not want or want.pop() != c:
                return None
            if not want:
                return i + 1
        elif c in "'\"":
            i += 1
            while i < stop and text[i] != c:
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    return None  # a string never spans lines in a call list
                i += 1
        i += 1
    return None


def _literal(node: ast.AST) -> Any:
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


def _dotted(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


PYTHONIC = PythonicDialect()
