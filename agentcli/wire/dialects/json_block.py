"""JSON calls written into prose: ```json fences, bare call objects, `Action: {...}`, arrays of calls.

The weakest signal of all dialects, so the strictest shape rule: an object counts only when its keys
are exactly a call's (name/tool/function + arguments/args/parameters/input, optional id/type). Code
fences in other languages and inline `code` are never read. The pipeline also drops json_block calls
whose name is not an offered tool.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import calls_from_value, decode_at, json_end, salvage_call
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

_FENCE_LINE = re.compile(r"\n[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")
_FIRST_FENCE = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")
_JSON_LANGS = frozenset(("", "json", "json5", "jsonc", "tool_call", "tool_calls", "tool", "function_call"))
_KEYS = "name|tool|tool_name|function|function_name|action|type|id|arguments|parameters|args|input|tool_calls"
_START = re.compile(r'\{\s*"(?:' + _KEYS + r')"\s*:|\[\s*\{\s*"')
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
        for fs, fe, body_start, body_end, lang, closed in _fences(text):
            self._bare(text, pos, fs, out, spans)
            if closed and lang.lower() in _JSON_LANGS:
                cands = self._fenced(text[body_start:body_end], text[fs:fe])
                if cands:
                    out.extend(cands)
                    spans.append((fs, fe))
            pos = fe
        self._bare(text, pos, len(text), out, spans)
        if not out:
            return [], text
        return out, _cut(text, spans)

    def _fenced(self, body: str, raw: str) -> list[Candidate]:
        src = body.strip()
        if not src or src[0] not in "{[":
            return []
        try:
            value = json.loads(src)
        except ValueError:
            return self._malformed(src, raw)
        calls = calls_from_value(value)
        return [Candidate(n, a, raw, self.name, id=cid) for n, a, cid in calls or ()]

    def _malformed(self, src: str, raw: str) -> list[Candidate]:
        """A fenced object that is call-shaped once repaired: hand its arguments text to the repair layer."""
        if src[0] != "{" or json_end(src, 0) is None:
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
        while pos < stop:
            m = _START.search(text, pos, stop)
            if not m:
                return
            p = m.start()
            if p > 0 and text[p - 1] == "`":  # inline code: an example, not a call
                end = json_end(text, p)
                if end is None:
                    return
                pos = end
                continue
            hit = decode_at(text, p)
            if hit is None or hit[1] > stop:
                end = json_end(text, p)
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


def _standalone(text: str, start: int, end: int) -> bool:
    """A bare call ends its line and starts one (or follows a label ending in ':'); JSON mentioned
    mid-sentence ("the API expects [...] as input") is an example."""
    nl = text.find("\n", end)
    if text[end: nl if nl >= 0 else len(text)].strip():
        return False
    window = text[max(0, start - 400):start]
    before = window[window.rfind("\n") + 1:].strip()
    return not before or before.endswith(":")


def _inline(name: str, args: dict[str, Any]) -> str:
    return json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def _fence(name: str, args: dict[str, Any]) -> str:
    return "```json\n" + _inline(name, args) + "\n```"


def _fence_lines(text: str):
    """(line start, line end, marker, info) per line that opens with a fence; one regex pass keyed
    on the newline (so the engine skips ahead instead of trying every position)."""
    m = _FIRST_FENCE.match(text)
    if m:
        yield 0, m.end(), m.group(1), m.group(2)
    for m in _FENCE_LINE.finditer(text):
        yield m.start() + 1, m.end(), m.group(1), m.group(2)


def _fences(text: str):
    """(fence start, fence end, body start, body end, language, closed) for each fence, in order.

    Fence lines are paired in order (CommonMark: a closer uses the opener's character, at least
    as many of them, and no info string)."""
    lines = _fence_lines(text)
    for start, eol, marker, info in lines:
        info = info.strip()
        lang = info.split(None, 1)[0] if info else ""
        body_start = min(eol + 1, len(text))
        for cstart, cend, close, cinfo in lines:
            if close[0] == marker[0] and len(close) >= len(marker) and not cinfo.strip():
                yield start, cend, body_start, cstart, lang, True
                break
        else:  # an unclosed fence runs to the end; its content is not read (truncated output)
            yield start, len(text), body_start, len(text), lang, False
            return


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    out, pos = [], 0
    for s, e in sorted(spans):
        before = text[pos:s]
        label = _LABEL.search(before[-40:])
        if label:
            before = before[: len(before) - 40 + label.start()] if len(before) > 40 else before[: label.start()]
        out.append(before)
        pos = e
    out.append(text[pos:])
    return "".join(out)


JSON_BLOCK = JsonBlockDialect()
