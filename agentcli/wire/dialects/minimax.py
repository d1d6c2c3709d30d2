"""MiniMax tool calls: M1's JSON lines in <tool_calls>, and M2's XML invoke blocks.

M1: <tool_calls>
    {"name": "get_current_weather", "arguments": {"city": "Dallas"}}
    </tool_calls>
M2: <minimax:tool_call><invoke name="get_weather"><parameter name="city">Seattle</parameter></invoke></minimax:tool_call>
M1 calls written inside a <think> block are part of the reasoning and are not calls. An M1 line
with a name and no "arguments" is a call that takes none: the wrapper says it is a call, and the
name is whole (a line without a name is not a call).
M2 writes every value as text, so its candidates carry text_values. The wrapper's end closes an
invoke left without </invoke>, and an invoke's end closes a last parameter left without
</parameter>: the model finished the call, only a close tag is missing.
"""

from __future__ import annotations

from collections.abc import Iterator

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._invoke import INVOKE_BEGIN, INVOKE_END, name_attr, read_invoke
from agentcli.wire.dialects._scan import (
    Block,
    ParseResult,
    call_from_object,
    decode_json_at,
    iter_blocks,
    parse_sections,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import find_far
from agentcli.wire.types import Candidate

M1_BEGIN, M1_END = "<tool_calls>", "</tool_calls>"
M2_BEGIN, M2_END = "<minimax:tool_call>", "</minimax:tool_call>"


def _think_ranges(text: str) -> list[tuple[int, int]]:
    # an unclosed <think> runs to the end of the text: everything after it is reasoning
    return [(b.start, b.end) for b in iter_blocks(text, "<think>", "</think>")]


def _outside(blocks: Iterator[Block], thinks: list[tuple[int, int]]) -> Iterator[Block]:
    """The blocks that start outside every think range (both come in text order: one walk over each)."""
    ti = 0
    for blk in blocks:
        while ti < len(thinks) and thinks[ti][1] <= blk.start:
            ti += 1
        if not (ti < len(thinks) and thinks[ti][0] <= blk.start):
            yield blk


class _MiniMaxM1(BlockDialect):
    name = "minimax"
    markers = (M1_BEGIN,)
    empty_lists = ((M1_BEGIN, M1_END),)
    begin, end = M1_BEGIN, M1_END

    @total
    def parse(self, text: str) -> ParseResult:
        thinks = find_far(text, "<think>") != -1  # on a long reply, by the places of its `<` (a memchr each)
        found = _outside(iter_blocks(text, M1_BEGIN, M1_END), _think_ranges(text)) if thinks else None
        cands, spans = self.blocks(text, found=found)
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        found, last = self._lines(text, blk.body_start, blk.body_end)
        return found, blk.end if blk.closed else last

    def _lines(self, text: str, start: int, stop: int) -> tuple[list[Candidate], int]:
        """One JSON call per line (an object may span lines); a line that is not a call is skipped."""
        found: list[Candidate] = []
        last = start
        pos = start
        while pos < stop:
            pos = skip_ws(text, pos, stop)
            if pos >= stop:
                break
            got = decode_json_at(text, pos) if text[pos] == "{" else None
            if got is not None and got[1] <= stop:
                cand = call_from_object(got[0], text[pos : got[1]], self.name)
                if cand is not None:
                    found.append(cand)
                    last = got[1]
                pos = got[1]
                continue
            nl = text.find("\n", pos, stop)
            pos = stop if nl == -1 else nl + 1
        return found, last


class _MiniMaxM2(Dialect):
    name = "minimax_m2"
    markers = (M2_BEGIN,)
    owns = (M2_BEGIN,)
    call_wrappers = ((M2_BEGIN, M2_END),)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, rest = parse_sections(text, (M2_BEGIN, M2_END), (INVOKE_BEGIN, INVOKE_END), self._invoke)
        cut = self._cut_call(rest)
        if cut is None:
            return cands, rest
        return [*cands, cut], rest[: len(rest) - len(cut.raw)]

    def _cut_call(self, rest: str) -> Candidate | None:
        """A call the output ended inside (its wrapper and invoke never closed): reported as an error,
        never executed, and its markup is this dialect's, so no other dialect reads the inner part."""
        at = rest.rfind(M2_BEGIN)
        if at == -1 or M2_END in rest[at:]:
            return None
        inv = rest.find(INVOKE_BEGIN, at)
        if inv == -1 or INVOKE_END in rest[inv:]:
            return None
        gt = rest.find(">", inv)
        name = name_attr(rest[inv + len("<invoke ") : gt + 1]) if gt != -1 else None
        return Candidate(name=(name or "").strip(), arguments=None, raw=rest[at:], dialect=self.name,
                         error="truncated tool call (output ended inside it)")

    def _invoke(self, text: str, blk: Block) -> Candidate | None:
        return read_invoke(text, blk, self.name, M2_END)


MINIMAX = _MiniMaxM1()
MINIMAX_M2 = _MiniMaxM2()
