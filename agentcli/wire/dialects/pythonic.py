"""Pythonic calls: `[get_weather(city="Paris"), f(x=1)]` (Llama 3.2/3.3, Llama 4 <|python_start|>).

Parsed with the `ast` module and literal evaluation only, never eval. Accepted where the model
clearly meant a call: inside <|python_start|>...<|python_end|>, as the whole message, or as a
list on the last line(s) after prose. Positional arguments or anything but literals: not a call.
"""

from __future__ import annotations

import ast
import json
import warnings
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import AstBudget
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

START = "<|python_start|>"
END = "<|python_end|>"
_MAX = 1_000_000  # ast on megabytes of brackets is slow and never a real call list
_TOKEN_BUDGET = 64 * MAX_CALLS  # Python tokens per parse, over all the spans it tries (see AstBudget)


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
            return [Candidate(n, a, text[s: e + len(END) if e >= 0 else len(text)], self.name) for n, a in calls], rest
        stripped = text.strip()
        if not stripped.endswith("]") or "(" not in stripped:
            return [], text
        calls = _calls(stripped, budget)
        if calls is not None:
            return [Candidate(n, a, stripped, self.name) for n, a in calls], ""
        if stripped.count("\n") < 4096:  # a megabyte of short lines is no call list: not split
            lines = [ln.strip() for ln in stripped.split("\n") if ln.strip()]
            if 1 < len(lines) <= 64 and all(ln.startswith("[") and ln.endswith("]") for ln in lines):
                per_line = []  # one list per line (history rendered call by call)
                for ln in lines:
                    per_line.append(_calls(ln, budget))
                    if per_line[-1] is None:
                        break
                else:
                    return [Candidate(n, a, ln, self.name) for ln, cs in zip(lines, per_line) for n, a in cs], ""
        # Prose, then the call list on its own final line(s).
        cut = stripped.rfind("\n[")
        for _ in range(4):  # a few candidate starts, bounded: this must stay linear
            if cut < 0 or len(stripped) - cut > 200_000:
                break
            tail = stripped[cut + 1:]
            calls = _calls(tail, budget)
            if calls is not None:
                return [Candidate(n, a, tail, self.name) for n, a in calls], stripped[:cut]
            cut = stripped.rfind("\n[", 0, cut)
        return [], text

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


def _calls(src: str, budget: AstBudget) -> list[tuple[str, dict[str, Any]]] | None:
    """The calls in `src` when it is exactly a list of keyword-argument calls (or one such call in brackets)."""
    if not src.startswith("[") or not src.endswith("]") or len(src) > _MAX or not budget.take(src):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "invalid escape sequence" in model-written strings
            tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    node = tree.body
    if not isinstance(node, ast.List) or not node.elts:
        return None
    out = []
    for elt in node.elts:
        if not isinstance(elt, ast.Call) or elt.args:
            return None
        name = _dotted(elt.func)
        if name is None:
            return None
        args: dict[str, Any] = {}
        for kw in elt.keywords:
            if kw.arg is None:
                return None
            try:
                args[kw.arg] = _literal(kw.value)
            except (ValueError, TypeError, SyntaxError, RecursionError):
                return None
        out.append((name, args))
    return out


def _literal(node: ast.AST) -> Any:
    # JSON spellings small models mix in: true/false/null as bare names.
    if isinstance(node, ast.Name) and node.id in ("true", "false", "null"):
        return {"true": True, "false": False, "null": None}[node.id]
    value = ast.literal_eval(node)
    if isinstance(value, (set, frozenset, bytes, complex)):
        raise ValueError("not a JSON value")
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
