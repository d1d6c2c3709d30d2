"""Meituan LongCat tool calls: `<longcat_tool_call>` holding a JSON call, or GLM's layout under
LongCat's own tag names (what LongCat-Flash-Lite and LongCat-Next write):

<longcat_tool_call>get_weather
<longcat_arg_key>city</longcat_arg_key>
<longcat_arg_value>Tokyo</longcat_arg_value>
</longcat_tool_call>

Values are text (JSON for non-strings), so those candidates carry text_values. The model also
writes the arguments as one JSON object right after a key tag, with no value tags and often no
close tag (`functions.get_weather\\n<longcat_arg_key>{"city": "Tokyo"}`): that object is the
arguments. A name line followed by prose is not a call.
"""

from __future__ import annotations

from agentcli.wire.dialects._callscan import json_end, skip_ws
from agentcli.wire.dialects._pairs import parse_pairs, split_name
from agentcli.wire.dialects._tagged import TaggedJsonDialect
from agentcli.wire.types import Candidate

KEY_OPEN, KEY_CLOSE = "<longcat_arg_key>", "</longcat_arg_key>"
VAL_OPEN, VAL_CLOSE = "<longcat_arg_value>", "</longcat_arg_value>"
_TAGS = (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE)
_CLOSE = "</longcat_tool_call>"


class LongcatDialect(TaggedJsonDialect):
    """The JSON form of the tag, and the key/value pairs form in it."""

    def __init__(self) -> None:
        super().__init__("longcat", "longcat_tool_call")
        self.owns = self.markers

    def _parse_body(self, body: str, raw: str, closed: bool) -> list[Candidate] | None:
        found = super()._parse_body(body, raw, closed)
        if found is not None:
            return found
        parts = split_name(body)
        if parts is None:
            return None
        name, rest = parts
        rest = rest.replace("\\n", "\n").strip()
        if not rest:
            return [Candidate(name, {}, raw, self.name)] if closed else None
        if not rest.startswith(KEY_OPEN):
            return None  # a name line followed by prose
        j = skip_ws(rest, len(KEY_OPEN))
        if rest.startswith("{", j):  # the arguments as one object after the key tag
            end = json_end(rest, j)
            if end is None:
                return [Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)")]
            tail = rest[end:].strip()
            if tail and not _CLOSE.startswith(tail) and tail not in (KEY_CLOSE,) and not KEY_CLOSE.startswith(tail):
                return None
            return [Candidate(name, rest[j:end], raw, self.name)]
        args = parse_pairs(rest, strict=not closed, tags=_TAGS)
        if args is None:
            if not closed:
                return [Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)")]
            return [Candidate(name, None, raw, self.name, error="malformed tool call (a key without its value)")]
        return [Candidate(name, args, raw, self.name, text_values=True)]


LONGCAT = LongcatDialect()
