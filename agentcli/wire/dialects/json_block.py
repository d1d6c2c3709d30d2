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
from agentcli.core.lazy import lazy_pattern
from agentcli.wire import repair
from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import (
    calls_from_value,
    close_call,
    decode_at,
    json_end,
    salvage_call,
    scan_brackets,
)
from agentcli.wire.dialects._callscan import fences as _fences
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

_JSON_LANGS = frozenset(("", "json", "json5", "jsonc", "tool_call", "tool_calls", "tool", "function_call"))
_KEYS = "name|tool|tool_name|function|function_name|action|type|id|arguments|parameters|args|input|tool_calls|tool_call|function_call|tool_use"
_START = lazy_pattern(r'\{\s*"(?:' + _KEYS + r')"\s*:|\[\s*\{\s*"')
_SHORTEST_START = 3  # characters of the shortest text _START matches (`[{"`)
_NAMED = lazy_pattern(r"\s*([A-Za-z_][\w.\-]{0,127})\s*(?=\{)")  # `get_weather{"city": "Paris"}`
_TO_EOL = lazy_pattern(r"[^\S\n]*(?:\n|\Z)")  # whitespace, then the end of the line
_LABEL = lazy_pattern(r"(?:Action|Action Input|Tool call|Function call)\s*:\s*$", re.I)


class JsonBlockDialect(Dialect):
    name = "json_block"
    markers = ()
    emulation = True
    name_strict = True  # with offered tools, a name that resolves to none is an example, not a call

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        if "{" not in text:
            return [], text
        named = _NAMED.match(text)
        if named:  # the whole message is `name{...}`: a bare call, embedded
            hit = decode_at(text, named.end(1))
            if hit is not None and isinstance(hit[0], dict) and not text[hit[1]:].strip():
                return [Candidate(named.group(1), hit[0], text.strip(), self.name, embedded=True)], ""
        whole = _required_list(text)
        if whole:
            return whole, ""
        out: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        budget = repair.RepairBudget()  # for fenced objects that are call-shaped only once repaired
        for fs, fe, body_start, body_end, lang, closed in _fences(text):
            if fs - pos >= _SHORTEST_START:  # the gap between two fences is often one line break
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
        repaired = repair.cheap_repair(src)
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
                    cands = self._unclosed(text, p, closers)
                    if cands:
                        out.extend(cands)
                        spans.append((p, len(text)))
                if end is None or end > stop:
                    return  # never closes: nothing after it can be a separate call
                pos = end
                continue
            value, end = hit
            calls = calls_from_value(value)
            if calls:
                # A call on its own line is a call; one inside a sentence is embedded: a call only
                # for an offered tool's name.
                inline = not _standalone(text, p, end)
                if inline and not _in_sentence(text, p, end):
                    pos = end
                    continue  # glued to other markup (a tag, a word): not this dialect's to read
                raw = text[p:end]
                out.extend(Candidate(n, a, raw, self.name, id=cid, embedded=inline) for n, a, cid in calls)
                spans.append((p, end))
            pos = end

    def _unclosed(self, text: str, p: int, closers: str) -> list[Candidate]:
        """The call object (or list of calls) at `p` that ends the text without its closing
        bracket(s): only the wrapper's own brackets may be missing (see close_call)."""
        if text[p] == "[":
            if closers != "]":
                return []
            try:
                value = jsonsafe.loads(text[p:].rstrip() + "]")
            except (ValueError, RecursionError):
                return []
            calls = calls_from_value(value)
            fix = ("close_brackets", "the list of calls was missing its closing bracket at the end")
            return [Candidate(n, a, text[p:], self.name, id=cid, fixes=(fix,)) for n, a, cid in calls or ()]
        got = close_call(text[p:])
        if got is None:
            return []
        name, args, cid, shut = got
        fix = ("close_brackets", f"the {name} call object was missing {len(shut)} closing brace(s) at the end")
        return [Candidate(name, args, text[p:], self.name, id=cid, fixes=(fix,))]

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


def _required_list(text: str) -> list[Candidate]:
    """A whole message that is a list of call objects (the tool_choice="required" form), where a
    no-argument call may leave its arguments out: [{"name": "get_time"}]. Otherwise []."""
    src = text.strip()
    if not src.startswith("[") or not src.endswith("]"):
        return []
    hit = decode_at(src, 0)
    if hit is None or hit[1] != len(src) or not isinstance(hit[0], list):
        return []
    calls = calls_from_value(hit[0], need_args=False)
    return [Candidate(n, a, src, JsonBlockDialect.name, id=cid) for n, a, cid in calls or ()]


def _standalone(text: str, start: int, end: int) -> bool:
    """A bare call ends its line and starts one (or follows a label ending in ':'); JSON mentioned
    mid-sentence ("the API expects [...] as input") is an example."""
    if not _TO_EOL.match(text, end):  # looked at up to the line's end only: many calls on one line stay linear
        return False
    window = text[max(0, start - 400):start]
    before = window[window.rfind("\n") + 1:].strip()
    return not before or before.endswith(":")


def _in_sentence(text: str, start: int, end: int) -> bool:
    """The object stands as a phrase of its own: space (or the text's edge) before it, and space,
    punctuation or the edge after it."""
    before = text[start - 1] if start else " "
    after = text[end] if end < len(text) else " "
    return (before.isspace() or before in "(:") and (after.isspace() or after in ".,;:!?)")


def _inline(name: str, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def _fence(name: str, args: dict[str, Any]) -> str:
    return "```json\n" + _inline(name, args) + "\n```"


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
