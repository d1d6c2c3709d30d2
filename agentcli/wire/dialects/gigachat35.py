"""GigaChat 3.5 tool calls: GCML markup, invokes with typed parameters inside one tool-calls block.

<｜GCML｜tool_calls><｜GCML｜invoke name="get_weather"><｜GCML｜parameter name="city" string="true">Tokyo
</｜GCML｜parameter></｜GCML｜invoke></｜GCML｜tool_calls>
(the bars are U+FF5C). A parameter marked string="true" is text taken verbatim; string="false" holds
JSON (numbers, booleans, null, arrays, objects). A block cut off at the end of the output still
gives its finished invokes; an invoke without its close tag is a truncated call (never run).
"""

from __future__ import annotations

import json
from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._scan import Block
from agentcli.wire.types import Candidate

BAR = "\uff5c"
BEGIN, END = f"<{BAR}GCML{BAR}tool_calls>", f"</{BAR}GCML{BAR}tool_calls>"
INVOKE, INVOKE_END = f"<{BAR}GCML{BAR}invoke", f"</{BAR}GCML{BAR}invoke>"
PARAM, PARAM_END = f"<{BAR}GCML{BAR}parameter", f"</{BAR}GCML{BAR}parameter>"


def _attr(head: str, key: str) -> str | None:
    """The value of `key="..."` in a tag head."""
    at = head.find(f'{key}="')
    if at < 0:
        return None
    start = at + len(key) + 2
    end = head.find('"', start)
    return head[start:end] if end >= 0 else None


def _value(raw: str, is_string: bool) -> Any:
    if is_string:
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw  # not JSON after all: the text, typed later by the schema


def _params(body: str) -> dict[str, Any] | None:
    """The parameters of one invoke body; None when a parameter is malformed or left open."""
    args: dict[str, Any] = {}
    pos = 0
    while True:
        p = body.find(PARAM, pos)
        if p < 0:
            return args if not body[pos:].strip() else None
        if body[pos:p].strip():
            return None  # stray text between parameters: not this format
        head_end = body.find(">", p)
        close = body.find(PARAM_END, head_end + 1) if head_end >= 0 else -1
        if close < 0:
            return None
        head = body[p:head_end]
        name = _attr(head, "name")
        if not name:
            return None
        args[name] = _value(body[head_end + 1 : close], _attr(head, "string") != "false")
        pos = close + len(PARAM_END)


class _GigaChat35(BlockDialect):
    name = "gigachat35"
    markers = (BEGIN,)
    owns = (BEGIN,)
    call_wrappers = ((INVOKE, INVOKE_END),)  # a reasoning tag in a value is the value's text
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        found = self._invokes(text[blk.body_start : blk.body_end], text[blk.start : blk.end])
        return (found, blk.end) if found is not None else None

    def _invokes(self, body: str, raw: str) -> list[Candidate] | None:
        out: list[Candidate] = []
        pos = 0
        while len(out) <= MAX_CALLS:  # one block holding a flood: read no further (the frame caps across blocks)
            i = body.find(INVOKE, pos)
            if i < 0:
                break
            head_end = body.find(">", i)
            name = _attr(body[i:head_end], "name") if head_end >= 0 else None
            if not name:
                return out or None
            close = body.find(INVOKE_END, head_end)
            if close < 0:
                out.append(Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)"))
                break
            args = _params(body[head_end + 1 : close])
            if args is None:
                out.append(Candidate(name, None, raw, self.name, error="the call's parameters are malformed"))
            else:
                out.append(Candidate(name, args, raw, self.name))
            pos = close + len(INVOKE_END)
        return out or None


GIGACHAT35 = _GigaChat35()
