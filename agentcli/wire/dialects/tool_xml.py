"""Tool-named XML (Cline / Roo Code style): the tag is the tool, its children are the parameters.

<read_file>
<path>src/main.js</path>
</read_file>
Any tag could be read so, which is why only tags naming an offered tool are calls (`offered_only`:
the pipeline drops the rest and the text stays as written), and the tag must open a line. Values
are text, kept verbatim (file contents and diffs depend on their whitespace) apart from one layout
newline on each side.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import ParseResult, find_cached, remove_spans, strip_one_newline, total
from agentcli.wire.dialects._seen import find_far, finder
from agentcli.wire.types import Candidate

_OPEN = re.compile(r"(?:^|(?<=\n))[ \t]{0,8}<([A-Za-z_][\w\-]{0,63})>")
_CHILD = re.compile(r"\s*<([A-Za-z_][\w\-]{0,63})>")
_MAX_PARAMS = 64


class _ToolXml(Dialect):
    name = "tool_xml"
    markers = ()  # any tag may be a tool: the offered names decide
    offered_only = True

    @total
    def parse(self, text: str) -> ParseResult:
        if finder(text)("</") == -1:  # on a long reply, by the places of its `<` (a memchr each)
            return [], text
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        closes: dict[str, int] = {}
        pos = 0
        while len(cands) <= MAX_CALLS:
            m = _OPEN.search(text, pos)
            if m is None:
                break
            name = m.group(1)
            close_tag = f"</{name}>"
            end = find_cached(text, close_tag, m.end(), closes)
            args = _params(text, m.end(), end) if end != -1 else None
            if args is None:
                pos = m.end()
                continue
            stop = end + len(close_tag)
            start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
            cands.append(Candidate(name, args, text[start:stop], self.name, text_values=True))
            spans.append((start, stop))
            pos = stop
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


def _params(text: str, start: int, stop: int) -> dict[str, str] | None:
    """The child elements of text[start:stop] as parameters; None when anything else is there."""
    args: dict[str, str] = {}
    pos = start
    while len(args) < _MAX_PARAMS:
        m = _CHILD.match(text, pos, stop)
        if m is None:
            break
        key = m.group(1)
        close = find_far(text, f"</{key}>", m.end(), stop)  # across a long value by the places of `<`
        if close == -1:
            return None
        args[key] = strip_one_newline(text[m.end() : close])
        pos = close + len(key) + 3
    return args if not text[pos:stop].strip() else None


TOOL_XML = _ToolXml()
