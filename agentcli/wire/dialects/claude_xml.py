"""Anthropic-style XML calls: a function_calls block of invoke elements with parameter children.

Namespaced variants (`<ns:function_calls>`, `<ns:invoke ...>`) are read the same way. The closing
function_calls tag is optional (it was the classic stop sequence). Values are taken verbatim (a
trailing newline in an edit's old text matters) and decoded later as text values.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import find_cached
from agentcli.wire.dialects._seen import holds
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

_BLOCK = "function_calls"
_INVOKE = "invoke"
_PARAM = "parameter"
_NS = r"((?:[A-Za-z_][\w.\-]{0,30}:)?)"
_OPEN_INVOKE = re.compile(r"<" + _NS + _INVOKE + r"""\s+name\s*=\s*["']([^"'<>\n]{1,200})["']\s*>""")
_PARAM_TAIL = r"""\s+name\s*=\s*["']([^"'<>\n]{1,200})["']\s*>"""


class ClaudeXmlDialect(Dialect):
    name = "claude_xml"
    markers = (_INVOKE + " name=", _BLOCK + ">")
    call_wrappers = (("<" + _INVOKE, "</" + _INVOKE + ">"),)
    emulation = True

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        if not holds(text, self.markers[0]):  # where its `=` stands (a memchr), not a scan of the text
            return [], text  # a function_calls block without any invoke holds no call
        out: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        closes: dict[str, int] = {}  # closing tag -> where it next occurs: unclosed invokes stay linear
        while True:
            m = _OPEN_INVOKE.search(text, pos)
            if not m:
                break
            ns, name = m.group(1), m.group(2).strip()
            close_tag = f"</{ns}{_INVOKE}>"
            body_start = m.end()
            end = find_cached(text, close_tag, body_start, closes)
            nxt = _OPEN_INVOKE.search(text, body_start)
            closed = end >= 0 and (nxt is None or end < nxt.start())
            if closed:
                body, stop = text[body_start:end], end + len(close_tag)
            else:
                stop = nxt.start() if nxt else len(text)
                body = text[body_start:stop]
            args, complete = self._params(body, ns)
            raw = text[m.start():stop]
            # An invoke left open is a cut-off call (the stop sequence only ever eats the block's close).
            if closed or (complete and nxt is not None):
                out.append(Candidate(name, args, raw, self.name, text_values=True))
            else:
                out.append(Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)"))
            spans.append((m.start(), stop))
            pos = stop
        if not out:
            return [], text
        return out, _cut(text, spans)

    @staticmethod
    def _params(body: str, ns: str) -> tuple[dict[str, Any], bool]:
        """Parameters of one invoke, and whether the body ended cleanly (every parameter closed)."""
        opener = re.compile("<" + re.escape(ns) + _PARAM + _PARAM_TAIL)
        closer = f"</{ns}{_PARAM}>"
        args: dict[str, Any] = {}
        pos = 0
        complete = True
        closes: dict[str, int] = {}
        while True:
            m = opener.search(body, pos)
            if not m:
                break
            vstart = m.end()
            end = find_cached(body, closer, vstart, closes)
            nxt = opener.search(body, vstart)
            if end >= 0 and (nxt is None or end < nxt.start()):
                args[m.group(1)] = body[vstart:end]
                pos = end + len(closer)
            else:
                stop = nxt.start() if nxt else len(body)
                args[m.group(1)] = body[vstart:stop].rstrip("\n")
                complete = nxt is not None
                pos = stop
        if body[pos:].strip():
            complete = False
        return args, complete

    # --- emulation -------------------------------------------------------------------------

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        return _prompt.instructions(
            tools, compact, lambda n, a: _render([(n, a)]), _render,
            results_hint=f" inside <{'function_results'}>",
        )

    def render_call(self, call: ToolCall) -> str:
        return _render([(call.name, call.arguments)])

    def render_results(self, results: list[ToolResult]) -> str:
        parts = ["<function_results>"]
        for r in results:
            tag = "stdout" if r.ok else "error"
            parts.append(f"<result>\n<tool_name>{r.tool_name}</tool_name>\n<{tag}>\n{_prompt.result_text(r)}\n</{tag}>\n</result>")
        parts.append("</function_results>")
        return "\n".join(parts)


def _value(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)


def _render(calls: list[tuple[str, dict[str, Any]]]) -> str:
    lines = [f"<{_BLOCK}>"]
    for name, args in calls:
        lines.append(f'<{_INVOKE} name="{name}">')
        lines.extend(f'<{_PARAM} name="{k}">{_value(v)}</{_PARAM}>' for k, v in args.items())
        lines.append(f"</{_INVOKE}>")
    lines.append(f"</{_BLOCK}>")
    return "\n".join(lines)


_WRAP_OPEN = re.compile(r"<" + _NS + _BLOCK + r">\s*$")
_WRAP_CLOSE = re.compile(r"\s*</" + _NS + _BLOCK + r">")


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """Remove the invoke spans, the whitespace between them and their function_calls wrapper."""
    merged: list[list[int]] = []
    for s, e in spans:
        if merged and not text[merged[-1][1]:s].strip():
            merged[-1][1] = e
        else:
            merged.append([s, e])
    for span in merged:
        head = text[max(0, span[0] - 64):span[0]]
        m = _WRAP_OPEN.search(head)
        if m:
            span[0] -= len(head) - m.start()
        m = _WRAP_CLOSE.match(text, span[1])
        if m:
            span[1] = m.end()
    out, pos = [], 0
    for s, e in merged:
        out.append(text[pos:s])
        pos = e
    out.append(text[pos:])
    return "".join(out)


CLAUDE_XML = ClaudeXmlDialect()
