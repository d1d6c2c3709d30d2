"""Qwen3-Coder XML calls: <tool_call><function=name><parameter=p>value</parameter></function></tool_call>.

Tolerates the model's known slips: a missing opening <tool_call> (bare <function=...> followed by an
orphan </tool_call>) and a missing </parameter> before the next parameter or </function>. Quoted names
(`<parameter="city">`) are the names without quotes; a name never holds an angle bracket. A body of
JSON (`<function=name>{"a": 1}</function>`, the Llama 3.1 custom-tool form) is read as JSON arguments.
A tag ended by a newline instead of `>` and a doubled `parameter=` prefix are repaired; parameter
markup broken past that makes the call malformed (reported, never run with the arguments it lost).
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import complete_json, skip_ws
from agentcli.wire.dialects._scan import find_cached
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

# A name holds no angle bracket: `<function=<<not xml>>` is no call, and `<parameter=a<b>` no parameter.
# A tag the model ended with a newline instead of `>` (`<function=bash\n`) ends there all the same.
_FUNC = re.compile(r"<function=([^<>\n]{1,200})(?:>|\n)")
_PARAM = re.compile(r"<parameter=([^<>\n]{1,200})(?:>|\n)")
_TAG_PREFIX = re.compile(r"^(?:\s*(?:parameter|function)=)+")
_END_FUNC = "</function>"
_END_PARAM = "</parameter>"
_WRAP_OPEN = "<tool_call>"
_WRAP_CLOSE = "</tool_call>"


def _name(raw: str) -> str:
    """A function or parameter name, without the quotes of the attribute style (`<parameter="city">`)
    and without the tag's own prefix written twice (`<parameter=parameter=command>`)."""
    return _TAG_PREFIX.sub("", raw.strip()).strip().strip("\"'")


def _strip_nl(value: str) -> str:
    """The template frames a value as `>\nVALUE\n</parameter>`: that pair of newlines is layout. A value
    written inline (`>VALUE\n</parameter>`, Seed-OSS) has no framing, so its own trailing newline stays."""
    if value.startswith("\n"):
        value = value[1:]
        if value.endswith("\n"):
            value = value[:-1]
    return value


def _drop_drifted_close(value: str) -> str:
    """An unclosed value may end in a close marker the sampler let drift (`</parameter1>`,
    `</parameter_x>`, a bare `</parameter`): that marker is markup, not part of the value."""
    cut = value.rfind("</parameter")
    if cut < 0:
        return value
    tail = value[cut + len("</parameter"):]
    tail = tail[:-1] if tail.endswith(">") else tail
    if tail and not (tail.replace("_", "a").isalnum() and tail.isascii()):
        return value
    return value[:cut].rstrip(" \t")


class Qwen3CoderDialect(Dialect):
    name = "qwen3_coder"
    markers = ("<function=",)
    call_wrappers = (("<function=", "</function>"),)
    emulation = True

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        if "<function=" not in text:
            return [], text
        out: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        closes: dict[str, int] = {}  # where </function> next occurs: unclosed calls stay linear
        while True:
            m = _FUNC.search(text, pos)
            if not m:
                break
            name = _name(m.group(1))
            body_start = m.end()
            end = find_cached(text, _END_FUNC, body_start, closes)
            nxt = _FUNC.search(text, body_start)
            if end >= 0 and (nxt is None or end < nxt.start()):
                body, stop, closed = text[body_start:end], end + len(_END_FUNC), True
            else:
                # No </function>: the call ends at </tool_call>, the next call, or the end of text.
                limit = nxt.start() if nxt else len(text)
                wrap = text.find(_WRAP_CLOSE, body_start, limit)
                closed = wrap >= 0
                stop = wrap if closed else limit
                body = text[body_start:stop]
            raw = text[m.start():stop]
            j = m.start()
            while j > pos and text[j - 1].isspace():
                j -= 1
            wrapped = text.startswith(_WRAP_OPEN, j - len(_WRAP_OPEN))
            # A tag ended by a newline is a slip worth repairing only when parameters follow it:
            # `<function=f\n</function>` with nothing inside is no call.
            slipped = m.group(0).endswith("\n") and "<parameter=" not in body
            cand = None if slipped else self._candidate(name, body, raw, closed, wrapped)
            if cand is not None:
                out.append(cand)
                spans.append((m.start(), stop))
            pos = stop
        if not out:
            return [], text
        return out, _cut(text, spans)

    def _candidate(self, name: str, body: str, raw: str, closed: bool, wrapped: bool) -> Candidate | None:
        if not name:
            return None
        i = skip_ws(body, 0)
        if i < len(body) and body[i] == "{" and "<parameter=" not in body:
            js = body[i:].strip()
            if not closed and not complete_json(js):
                return Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)")
            return Candidate(name, js, raw, self.name)
        if not closed and "<parameter=" not in body:
            if wrapped and not body.strip():  # `<tool_call><function=x>` and the output ends: a cut-off call
                return Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)")
            return None  # `<function=x>` mentioned in prose, with nothing of a call after it
        args: dict[str, Any] = {}
        complete = True
        pos = 0
        tags = 0
        closes: dict[str, int] = {}
        while True:
            m = _PARAM.search(body, pos)
            if not m:
                break
            tags += 1
            vstart = m.end()
            end = find_cached(body, _END_PARAM, vstart, closes)
            nxt = _PARAM.search(body, vstart)
            if end >= 0 and (nxt is None or end < nxt.start()):
                args[_name(m.group(1))] = _strip_nl(body[vstart:end])
                pos = end + len(_END_PARAM)
            else:
                stop = nxt.start() if nxt else len(body)
                args[_name(m.group(1))] = _strip_nl(_drop_drifted_close(body[vstart:stop].rstrip()))
                complete = nxt is not None or closed
                pos = stop
        if body[pos:].strip() and not closed:
            complete = False
        if complete and body.count("<parameter=") > tags:
            # Parameter markup that was not read (a tag broken past repair): running the call without
            # those arguments would act on values the model never gave.
            return Candidate(name, None, raw, self.name, error="malformed parameter tag; the call was not run")
        if not complete:
            return Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)")
        return Candidate(name, args, raw, self.name, text_values=True)

    # --- emulation -------------------------------------------------------------------------

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        return _prompt.instructions(tools, compact, _render, results_hint=" inside <tool_response></tool_response>")

    def render_call(self, call: ToolCall) -> str:
        return _render(call.name, call.arguments)

    def render_results(self, results: list[ToolResult]) -> str:
        return "\n".join(f"<tool_response>\n{_prompt.result_text(r)}\n</tool_response>" for r in results)


def _render(name: str, args: dict[str, Any]) -> str:
    lines = [_WRAP_OPEN, f"<function={name}>"]
    for k, v in args.items():
        value = v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
        lines.append(f"<parameter={k}>\n{value}\n{_END_PARAM}")
    lines += [_END_FUNC, _WRAP_CLOSE]
    return "\n".join(lines)


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """Remove each call plus its (possibly missing) <tool_call> wrapper."""
    out, pos = [], 0
    for s, e in spans:
        before = text[pos:s]
        stripped = before.rstrip()
        if stripped.endswith(_WRAP_OPEN):
            before = stripped[: -len(_WRAP_OPEN)]
        j = skip_ws(text, e)
        if text.startswith(_WRAP_CLOSE, j):
            e = j + len(_WRAP_CLOSE)
        out.append(before)
        pos = e
    out.append(text[pos:])
    return "".join(out)


QWEN3_CODER = Qwen3CoderDialect()
