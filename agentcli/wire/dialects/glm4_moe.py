"""GLM-4.5 / 4.6 / 4.7 tool calls: a name line and <arg_key>/<arg_value> pairs in <tool_call>.

<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>Beijing</arg_value>
</tool_call>
Values are written as text (JSON for non-strings), so candidates carry text_values.
A `<tool_call>` whose body starts with `{` is Hermes JSON, not this dialect.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

BEGIN, END = "<tool_call>", "</tool_call>"
KEY_OPEN, KEY_CLOSE = "<arg_key>", "</arg_key>"
VAL_OPEN, VAL_CLOSE = "<arg_value>", "</arg_value>"


def parse_pairs(body: str) -> dict[str, str] | None:
    """`<arg_key>k</arg_key><arg_value>v</arg_value>` pairs; None when a pair is malformed."""
    args: dict[str, str] = {}
    pos = 0
    while True:
        k = body.find(KEY_OPEN, pos)
        if k == -1:
            return args
        ke = body.find(KEY_CLOSE, k)
        if ke == -1:
            return None
        key = body[k + len(KEY_OPEN) : ke].strip()
        v = body.find(VAL_OPEN, ke)
        between = body[ke + len(KEY_CLOSE) : v] if v != -1 else ""
        if v == -1 or between.replace("\\n", "").strip():
            return None
        ve = body.find(VAL_CLOSE, v)
        if ve == -1 or not key or "<" in key:
            return None
        args[key] = body[v + len(VAL_OPEN) : ve]
        pos = ve + len(VAL_CLOSE)


def split_name(body: str) -> tuple[str, str] | None:
    """(name, rest) of a call body: the name ends at a newline, a literal `\\n` or the first tag."""
    stripped = body.lstrip()
    if not stripped or stripped[0] in "{[<\"":
        return None
    cut = len(stripped)
    for stop in ("\n", "\\n", "<"):
        i = stripped.find(stop)
        if i != -1 and i < cut:
            cut = i
    name = stripped[:cut].strip()
    if not name or any(c.isspace() for c in name) or any(c in name for c in '{}"\'=>'):
        return None
    return name, stripped[cut:]


class _Glm4Moe(Dialect):
    name = "glm4_moe"
    markers = (BEGIN,)
    owns = ("<arg_key>",)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            if not blk.closed:
                continue  # no </tool_call>: more pairs may have been coming
            parts = split_name(text[blk.body_start : blk.body_end])
            if parts is None:
                continue
            name, rest = parts
            args = parse_pairs(rest)
            if args is None:
                continue
            leftover = rest
            for tag in (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE):
                leftover = leftover.replace(tag, "")
            if not args and leftover.replace("\\n", "").strip():
                continue  # a name line followed by prose, not a call
            cands.append(Candidate(name=name, arguments=args, raw=text[blk.start : blk.end],
                                   dialect=self.name, text_values=True))
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


GLM4_MOE = _Glm4Moe()
