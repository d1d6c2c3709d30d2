"""MiniCPM5 tool calls: XML elements with the name and each parameter's name as attributes.

<function name="get_weather"><param name="city">Paris</param></function>
The parameters may sit in an <arguments> element, a value may be wrapped in <![CDATA[...]]>, the
attributes may be single- or double-quoted, and calls may be wrapped in <tool_call>..</tool_call>.
Values are written as text, so candidates carry text_values (the schema coerces them).
A call the output ends inside (its <function name=..> open, then only parameters, the last one
possibly unfinished, and no </function>) is a truncated call: reported, never run, and its markup
is not prose.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import is_tool_name
from agentcli.wire.dialects._scan import ParseResult, remove_spans, total
from agentcli.wire.dialects._seen import finder
from agentcli.wire.types import Candidate

OPEN, CLOSE = "<function name=", "</function>"
PARAM_CLOSE = "</param>"
CDATA_OPEN, CDATA_CLOSE = "<![CDATA[", "]]>"
WRAP_OPEN, WRAP_CLOSE = "<tool_call>", "</tool_call>"
_ATTR = re.compile(r"""\s*=?\s*(?:"([^"<>\n]{1,128})"|'([^'<>\n]{1,128})')\s*>""")
_PARAM = re.compile(r"""<param\s+name\s*=\s*(?:"([^"<>\n]{1,128})"|'([^'<>\n]{1,128})')\s*>""")
_ARGS = re.compile(r"\s*<arguments>(.*)</arguments>\s*", re.S)


def _params(body: str) -> dict[str, str] | None:
    """The <param> elements of a call body, and nothing else but whitespace; None when malformed."""
    m = _ARGS.fullmatch(body)
    if m:
        body = m.group(1)
    args: dict[str, str] = {}
    pos = 0
    while True:
        at = body.find("<", pos)
        if at < 0:
            return args if not body[pos:].strip() else None
        if body[pos:at].strip():
            return None  # prose between parameters: not this form
        pm = _PARAM.match(body, at)
        if pm is None:
            return None
        start = pm.end()
        if body.startswith(CDATA_OPEN, start):
            ce = body.find(CDATA_CLOSE, start)
            if ce < 0 or not body.startswith(PARAM_CLOSE, ce + len(CDATA_CLOSE)):
                return None
            value, pos = body[start + len(CDATA_OPEN) : ce], ce + len(CDATA_CLOSE) + len(PARAM_CLOSE)
        else:
            end = body.find(PARAM_CLOSE, start)
            if end < 0:
                return None
            value, pos = body[start:end], end + len(PARAM_CLOSE)
        name = pm.group(1) or pm.group(2)
        if name in args:
            return None
        args[name] = value


def _cut_body(body: str) -> bool:
    """Whether `body`, running to the end of the output, is a call body cut off: whole <param>
    elements, then at most one unfinished (its tag or its value), or a close tag begun."""
    pos = len(body) - len(body.lstrip())
    if body.startswith("<arguments>", pos):
        pos += len("<arguments>")
    while True:
        at = body.find("<", pos)
        if at < 0 or body[pos:at].strip():
            return at < 0 and not body[pos:].strip()
        pm = _PARAM.match(body, at)
        if pm is None:
            rest = body[at:].rstrip()
            return (">" not in rest and rest.startswith("<param")) or any(
                t.startswith(rest) for t in ("<param", "</arguments>", CLOSE))
        end = body.find(PARAM_CLOSE, pm.end())
        if end < 0:
            return True  # cut off inside the value
        pos = end + len(PARAM_CLOSE)


def _wrapped(text: str, start: int, end: int) -> tuple[int, int]:
    """(start, end) grown over a <tool_call> just before and a </tool_call> just after, with the space between."""
    i = start
    while i > 0 and text[i - 1] in " \t\r\n":
        i -= 1
    if text.endswith(WRAP_OPEN, 0, i):
        start = i - len(WRAP_OPEN)
    j = end
    while j < len(text) and text[j] in " \t\r\n":
        j += 1
    if text.startswith(WRAP_CLOSE, j):
        end = j + len(WRAP_CLOSE)
    return start, end


class _MiniCPM5(Dialect):
    name = "minicpm5"
    markers = (OPEN,)
    call_wrappers = ((OPEN, CLOSE),)  # a reasoning tag in a value is the value's text

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        # On a long reply the tags are looked for where their `<` stands (a memchr): a plain search
        # walks every character of the arguments, four bytes each in a reply holding an emoji.
        find = finder(text)
        at = find(OPEN)
        close = -2  # the next </function>, found once and reused until passed (-1: none left): linear
        while at >= 0:
            m = _ATTR.match(text, at + len(OPEN) - 1)
            if m is not None and close != -1 and close < m.end():
                close = find(CLOSE, m.end())
            if close == -1:  # no call is closed past here; one left open at the end was cut off
                if m is not None and is_tool_name(name := m.group(1) or m.group(2)) and _cut_body(text[m.end() :]):
                    cands.append(Candidate(name=name, arguments=None, raw=text[at:], dialect=self.name,
                                           error="truncated tool call (output ended inside it)"))
                    spans.append((_wrapped(text, at, len(text))[0], len(text)))
                break
            if m is None:
                at = find(OPEN, at + len(OPEN))
                continue
            name = m.group(1) or m.group(2)
            args = _params(text[m.end() : close])
            end = close + len(CLOSE)
            if args is not None and is_tool_name(name):
                cands.append(Candidate(name=name, arguments=dict(args), raw=text[at:end], dialect=self.name,
                                       text_values=True))
                spans.append(_wrapped(text, at, end))
            at = find(OPEN, end)
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


MINICPM5 = _MiniCPM5()
