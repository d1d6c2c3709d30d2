"""JSON calls written into prose: ```json fences, bare call objects, `Action: {...}`, arrays of calls.

The weakest signal of all dialects, so the strictest shape rule: an object counts only when its keys
are exactly a call's (name/tool/function + arguments/args/parameters/input, optional id/type). Code
fences in other languages and inline `code` are never read. The pipeline also drops json_block calls
whose name is not an offered tool. One repair happens here: a call object that ends the text missing
only its own closing brace(s) (vllm#11786), never one whose arguments are cut off.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcli.core import jsonsafe
from agentcli.wire import repair
from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import calls_from_value, decode_at, json_end, salvage_call, scan_brackets
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

_FENCE_LINE = re.compile(r"\n[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")
_FIRST_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")
_JSON_LANGS = frozenset(("", "json", "json5", "jsonc", "tool_call", "tool_calls", "tool", "function_call"))
_KEYS = "name|tool|tool_name|function|function_name|action|type|id|arguments|parameters|args|input|tool_calls"
_START = re.compile(r'\{\s*"(?:' + _KEYS + r')"\s*:|\[\s*\{\s*"')
_TO_EOL = re.compile(r"[^\S\n]*(?:\n|\Z)")  # whitespace, then the end of the line
_LABEL = re.compile(r"(?:Action|Action Input|Tool call|Function call)\s*:\s*$", re.I)


class JsonBlockDialect(Dialect):
    name = "json_block"
    markers = ()
    emulation = True
    name_strict = True  # with offered tools, a name that resolves to none is an example, not a call

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        if "{" not in text:
            return [], text
        out: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        budget = repair.RepairBudget()  # for fenced objects that are call-shaped only once repaired
        for fs, fe, body_start, body_end, lang, closed in _fences(text):
            self._bare(text, pos, fs, out, spans)
            if len(out) > MAX_CALLS:
                break  # a flood of calls: the pipeline keeps the first ones, the rest stays text
            if closed and lang.lower() in _JSON_LANGS:
                cands = self._fenced(text[body_start:body_end], text[fs:fe], budget)
                if cands:
                    out.extend(cands)
                    spans.append((fs, fe))
            pos = fe
        else:
            self._bare(text, pos, len(text), out, spans)
        if not out:
            return [], text
        return out, _cut(text, spans)

    def _fenced(self, body: str, raw: str, budget: repair.RepairBudget) -> list[Candidate]:
        src = body.strip()
        if not src or src[0] not in "{[":
            return []
        hit = decode_at(src, 0)
        if hit is None or hit[1] != len(src):  # what json.loads would refuse
            return self._malformed(src, raw, budget)
        value = hit[0]
        calls = calls_from_value(value)
        return [Candidate(n, a, raw, self.name, id=cid) for n, a, cid in calls or ()]

    def _malformed(self, src: str, raw: str, budget: repair.RepairBudget) -> list[Candidate]:
        """A fenced object that is call-shaped once repaired: hand its arguments text to the repair layer.
        Past the reply's repair allowance a broken fence stays text (it may not be a call at all)."""
        if src[0] != "{" or json_end(src, 0) is None:
            return []
        repaired = repair.cheap_repair(src) if len(src) > repair.CHEAP_FIRST else None
        if repaired is None:
            if not budget.take(src):
                return []
            import json_repair

            try:
                repaired = json_repair.loads(src)
            except Exception:
                return []
        if not calls_from_value(repaired):
            return []
        salvaged = salvage_call(src)
        if salvaged is None:
            return []
        return [Candidate(salvaged[0], salvaged[1], raw, self.name)]

    def _bare(self, text: str, start: int, stop: int, out: list[Candidate], spans: list[tuple[int, int]]) -> None:
        pos = start
        while pos < stop and len(out) <= MAX_CALLS:
            m = _START.search(text, pos, stop)
            if not m:
                return
            p = m.start()
            if p > 0 and text[p - 1] == "`":  # inline code: an example, not a call
                end = json_end(text, p, stop)
                if end is None:
                    return
                pos = end
                continue
            hit = decode_at(text, p)
            if hit is None or hit[1] > stop:
                end, closers = scan_brackets(text, p, stop)  # bounded: one pass per gap between fences
                if closers and stop == len(text) and _standalone(text, p, len(text)):
                    cand = self._unclosed(text, p, closers)
                    if cand is not None:
                        out.append(cand)
                        spans.append((p, len(text)))
                if end is None or end > stop:
                    return  # never closes: nothing after it can be a separate call
                pos = end
                continue
            value, end = hit
            calls = calls_from_value(value)
            if calls and _standalone(text, p, end):
                raw = text[p:end]
                out.extend(Candidate(n, a, raw, self.name, id=cid) for n, a, cid in calls)
                spans.append((p, end))
            pos = end

    def _unclosed(self, text: str, p: int, closers: str) -> Candidate | None:
        """The call object at `p` that ends the text without its `closers`: a call when closing them
        gives strict JSON of exactly one call whose arguments are themselves complete."""
        if len(closers) > 2 or closers.strip("}"):
            return None
        src = text[p:].rstrip()
        try:
            value = jsonsafe.loads(src + closers)
        except ValueError:
            return None
        calls = calls_from_value(value) if isinstance(value, dict) else None
        if not calls:
            return None
        # Open brackets form a chain from the root: more of them than wrapper levels (the call object,
        # plus "function" in the OpenAI item) means the arguments were cut off, not a brace forgotten.
        wrappers = 2 if isinstance(value.get("function"), dict) else 1
        name, args, cid = calls[0]
        if len(closers) > wrappers or (isinstance(args, str) and not isinstance(_loads(args), dict)):
            return None
        fix = ("close_brackets", f"the {name} call object was missing {len(closers)} closing brace(s) at the end")
        return Candidate(name, args, text[p:], self.name, id=cid, fixes=(fix,))

    # --- emulation -------------------------------------------------------------------------

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        if compact:
            return _prompt.instructions(tools, True, _inline)
        return _prompt.instructions(tools, False, _fence, results_hint=" as 'Tool result' text")

    def render_call(self, call: ToolCall) -> str:
        return _fence(call.name, call.arguments)

    def render_results(self, results: list[ToolResult]) -> str:
        return "\n\n".join(
            f"Tool result ({r.tool_name}{'' if r.ok else ', failed'}):\n{_prompt.result_text(r)}" for r in results
        )


def _loads(s: str) -> Any:
    try:
        return jsonsafe.loads(s)
    except ValueError:
        return None


def _standalone(text: str, start: int, end: int) -> bool:
    """A bare call ends its line and starts one (or follows a label ending in ':'); JSON mentioned
    mid-sentence ("the API expects [...] as input") is an example."""
    if not _TO_EOL.match(text, end):  # looked at up to the line's end only: many calls on one line stay linear
        return False
    window = text[max(0, start - 400):start]
    before = window[window.rfind("\n") + 1:].strip()
    return not before or before.endswith(":")


def _inline(name: str, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def _fence(name: str, args: dict[str, Any]) -> str:
    return "```json\n" + _inline(name, args) + "\n```"


def _fences(text: str) -> list[tuple[int, int, int, int, str, bool]]:
    """(fence start, fence end, body start, body end, language, closed) for each fence, in order.

    Fence lines are paired in order (CommonMark: a closer uses the opener's character, at least
    as many of them, and no info string). One regex pass keyed on the newline finds them (so the
    engine skips ahead instead of trying every position); a megabyte of fences is ~40k lines, so
    the loop stays lean."""
    if "```" not in text and "~~~" not in text:
        return []
    out: list[tuple[int, int, int, int, str, bool]] = []
    n = len(text)
    opener: tuple[int, int, str, str] | None = None  # (start, body start, marker, language)
    first = _FIRST_FENCE.match(text)
    lines = _FENCE_LINE.finditer(text)
    m = first
    while True:
        if m is None:
            m = next(lines, None)
            if m is None:
                break
            start = m.start() + 1
        else:
            start = m.start()
        marker, info = m.groups()
        if opener is None:
            info = info.strip()
            opener = (start, min(m.end() + 1, n), marker, info.split(None, 1)[0] if info else "")
        elif marker[0] == opener[2][0] and len(marker) >= len(opener[2]) and not info.strip():
            out.append((opener[0], m.end(), opener[1], start, opener[3], True))
            opener = None
        m = None
    if opener is not None:  # an unclosed fence runs to the end; its content is not read (truncated output)
        out.append((opener[0], n, opener[1], n, opener[3], False))
    return out


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for s, e in sorted(spans):
        before = text[pos:s]
        label = _LABEL.search(before[-40:]) if ":" in before[-40:] else None
        if label:
            before = before[: len(before) - 40 + label.start()] if len(before) > 40 else before[: label.start()]
        out.append(before)
        pos = e
    out.append(text[pos:])
    return "".join(out)


JSON_BLOCK = JsonBlockDialect()
