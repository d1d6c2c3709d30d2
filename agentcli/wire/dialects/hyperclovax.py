"""NAVER HyperCLOVA X SEED Think tool calls, in the two forms its releases write.

Think 32B: GLM's markup with JSON-encoded values (a value that is not JSON is kept as written):
<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>"Seoul"</arg_value>
</tool_call>
Think 14B: a `-> tool/function_call` turn holding a JSON list (or one object) of calls:
 -> tool/function_call
[{"name": "get_weather", "arguments": {"city": "Seoul"}}]
An abbreviated `-> tool/NAME` header over bare arguments is not a call.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pairs import parse_pairs, split_name
from agentcli.wire.dialects._scan import (
    INVALID,
    Block,
    ParseResult,
    calls_from_json,
    decode_json_at,
    loads,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.types import Candidate

BEGIN, END = "<tool_call>", "</tool_call>"  # GLM's wrapper
HEADER = "-> tool/function_call"


def _value(raw: str) -> Any:
    got = loads(raw)
    return raw if got is INVALID else got


class _HyperClovaX(BlockDialect):
    name = "hyperclovax"
    markers = (BEGIN, HEADER)
    owns = (HEADER, "<arg_key>")  # its own chain reads GLM-style markup first (JSON values)
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        if not blk.closed:
            return None  # no </tool_call>: more pairs may have been coming
        parts = split_name(text[blk.body_start : blk.body_end])
        if parts is None:
            return None
        pairs = parse_pairs(parts[1], strict=True)
        if pairs is None:
            return None
        return [Candidate(name=parts[0], arguments={k: _value(v) for k, v in pairs.items()},
                          raw=text[blk.start : blk.end], dialect=self.name)], blk.end

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = self.blocks(text)
        pos = 0
        while (h := text.find(HEADER, pos)) != -1:
            pos = h + len(HEADER)
            j = skip_ws(text, pos)
            if j >= len(text) or text[j] not in "[{":
                continue
            got = decode_json_at(text, j)
            found = calls_from_json(got[0], text[j : got[1]], self.name) if got is not None else None
            if not found:
                continue
            cands.extend(found)
            spans.append((h, got[1]))  # type: ignore[index]
            pos = got[1]  # type: ignore[index]
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


HYPERCLOVAX = _HyperClovaX()
