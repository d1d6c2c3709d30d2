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

import bisect
import json
from typing import TYPE_CHECKING, Any

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import fences_in_order
from agentcli.wire.dialects._pylist import TOKEN_BUDGET, Call, call_list, spend_as_read
from agentcli.wire.dialects._scan import AstBudget
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

START = "<|python_start|>"
END = "<|python_end|>"
_INLINE = lazy_pattern(r"\[\s*[A-Za-z_][\w.]*\s*\(")  # a call list opening inside prose
_BARE = lazy_pattern(r"[A-Za-z_][\w.]*\s*\(")  # a whole message that is one call without brackets
_SPAN_MAX = 20_000  # an inline list longer than this is not read (and bounds the bracket scan)
_BARE_LINES = 64  # bare call lines read at the end of a message, at most


class PythonicDialect(Dialect):
    name = "pythonic"
    markers = ()  # the bare list form has no marker
    stream_markers = (START,)  # what the stream detector may hold on
    emulation = True

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        budget = AstBudget(TOKEN_BUDGET)
        s = text.find(START)
        if s >= 0:
            e = text.find(END, s)
            body = text[s + len(START): e if e >= 0 else len(text)]
            calls = call_list(body.strip(), budget)
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
                calls = call_list("[" + stripped + "]", budget)
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
                calls = call_list("[" + line + "]", budget)
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
        calls = call_list(stripped, budget)
        if calls is not None:
            return _cands(calls, stripped, self.name), ""
        if stripped.count("\n") < 4096:  # a megabyte of short lines is no call list: not split
            lines = [ln.strip() for ln in stripped.split("\n") if ln.strip()]
            if 1 < len(lines) <= 64 and all(ln.startswith("[") and ln.endswith("]") for ln in lines):
                per_line = []  # one list per line (history rendered call by call)
                for ln in lines:
                    per_line.append(call_list(ln, budget))
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
            calls = call_list(tail, budget)
            if calls is not None:
                return _cands(calls, tail, self.name), stripped[:cut]
            cut = stripped.rfind("\n[", 0, cut)
        return None

    def _inline(self, text: str, budget: AstBudget) -> tuple[list[Candidate], str]:
        """Call lists inside sentences, outside code fences and inline code: embedded candidates.
        The bracket scans share a budget of twice the text, so many unclosed openers stay linear; once
        the parse's token budget is spent no list reads as calls, so the walk ends there (a megabyte of
        fenced examples holds some 12,000 lists, each a bracket scan in Python)."""
        if "[" not in text:
            return [], text
        skip: _Fenced | None = None  # the fences, asked only once a list reads as calls
        out: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        scan_left = 2 * len(text)
        for m in _INLINE.finditer(text):
            p = m.start()
            if p < pos or (p > 0 and text[p - 1] == "`"):
                continue
            if scan_left <= 0 or len(out) > MAX_CALLS or budget.spent:
                break  # (a spent budget reads no list: every later one would be passed over)
            end = _list_end(text, p, min(len(text), p + _SPAN_MAX))
            scan_left -= (end or min(len(text), p + _SPAN_MAX)) - p
            if end is None:
                continue
            if skip is not None and skip.inside(p):
                spend_as_read(text[p:end], budget)  # an example: passed over, its tokens spent as before
                continue
            calls = call_list(text[p:end], budget)
            if calls is None or any(err for _, _, err in calls):
                continue  # inside prose only a list read whole is taken
            if skip is None:
                skip = _Fenced(text)
                if skip.inside(p):
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


def _cands(calls: list[Call], raw: str, dialect: str, *, embedded: bool = False) -> list[Candidate]:
    return [Candidate(n, a, raw, dialect, error=err, embedded=embedded) for n, a, err in calls]


class _Fenced:
    """Whether a place of a text stands in a code fence, the fences taken in order (fences_in_order)
    only as far as the places asked: a list in a fence is an example, and the lists of a megabyte
    of examples stop being read where the parse's token budget runs out."""

    __slots__ = ("spans", "_more", "_size")

    def __init__(self, text: str) -> None:
        self.spans: list[tuple[int, int]] = []
        self._more = fences_in_order(text) if "```" in text or "~~~" in text else None
        self._size = len(text)

    def inside(self, p: int) -> bool:
        spans = self.spans
        while self._more is not None and (not spans or spans[-1][0] <= p):  # every fence opening by `p`
            got = next(self._more, None)
            if got is None:
                self._more = None
            else:
                spans.append((got[0], got[1]))
        k = bisect.bisect_right(spans, (p, self._size))
        return bool(k) and spans[k - 1][0] <= p < spans[k - 1][1]


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


PYTHONIC = PythonicDialect()
