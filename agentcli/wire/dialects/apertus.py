"""Swiss AI Apertus tool calls: a JSON array of {name: arguments} objects between special tokens.

<|tools_prefix|>[{"get_weather": {"location": "London"}}, {"get_time": {}}]<|tools_suffix|>
The suffix may be missing (the reply stopped on it) and the output may end inside the array: each
complete element is a call, and a last element cut off after its arguments still names them. An
element cut off inside its arguments is reported as a truncated call (never run), and its markup is
not shown as prose; one that does not decode inside a closed block is reported as malformed.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import decode_at, is_tool_name, skip_ws
from agentcli.wire.dialects._scan import ParseResult, total
from agentcli.wire.dialects._seen import finder
from agentcli.wire.types import Candidate

PREFIX, SUFFIX = "<|tools_prefix|>", "<|tools_suffix|>"
_KEY = re.compile(r'\{\s*"([^"\\]{1,128})"\s*:\s*')


class _Apertus(Dialect):
    name = "apertus"
    markers = (PREFIX,)
    empty_lists = ((PREFIX, SUFFIX),)
    owns = (PREFIX,)
    reasoning_tags = (("<|inner_prefix|>", "<|inner_suffix|>"),)
    section_openers = (PREFIX,)

    @total
    def parse(self, text: str) -> ParseResult:
        out: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        # On a long reply the tokens are looked for where their `|` stands (a memchr): a plain search
        # walks every character of the arguments, four bytes each in a reply holding an emoji.
        find = finder(text)
        start = find(PREFIX)
        close_at = -2  # the next suffix, found once and reused until passed (-1: none left): linear
        while start >= 0:
            body_start = start + len(PREFIX)
            if close_at != -1 and close_at < body_start:
                close_at = find(SUFFIX, body_start)
            end = close_at
            nxt = find(PREFIX, body_start)
            if end < 0 or (0 <= nxt < end):
                end = nxt if nxt >= 0 else len(text)
                stop = end
            else:
                stop = end + len(SUFFIX)
            raw = text[start:stop]
            calls = _calls(text[body_start:end], raw, self.name, end == len(text))
            kept.append(text[pos:stop] if calls is None else text[pos:start])
            out.extend(calls or ())
            pos = stop
            start = nxt if nxt >= stop else (find(PREFIX, stop) if nxt >= 0 else -1)
        kept.append(text[pos:])
        return (out, "".join(kept)) if out else ([], text)


_CUT = "truncated tool call (output ended inside it)"
_BAD = "malformed tool call (an array element does not decode)"


def _calls(body: str, raw: str, dialect: str, at_end: bool) -> list[Candidate] | None:
    """The calls of one array body; None when it does not open as one."""
    i = skip_ws(body, 0)
    if i >= len(body) or body[i] != "[":
        return None
    found: list[Candidate] = []
    i = skip_ws(body, i + 1)
    while i < len(body) and body[i] == "{":
        hit = decode_at(body, i)
        if hit is None:  # cut off: the element still names its call when its arguments are whole
            m = _KEY.match(body, i)
            args = decode_at(body, m.end()) if m else None
            if m and args is not None and isinstance(args[0], dict) and is_tool_name(m.group(1)):
                found.append(Candidate(m.group(1), args[0], raw, dialect))
            elif m and is_tool_name(m.group(1)):
                found.append(Candidate(m.group(1), None, raw, dialect, error=_CUT if at_end else _BAD))
            break
        obj = hit[0]
        if not isinstance(obj, dict) or len(obj) != 1:
            return found or None
        (name, args), = obj.items()
        if not is_tool_name(name) or not isinstance(args, dict):
            return found or None
        found.append(Candidate(name, args, raw, dialect))
        i = skip_ws(body, hit[1])
        if i < len(body) and body[i] == ",":
            i = skip_ws(body, i + 1)
    return found or None


APERTUS = _Apertus()
