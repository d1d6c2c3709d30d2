"""The begin/end block frame: calls written in `BEGIN body END` blocks, each body read on its own.

Many families write their calls this way (GLM's <tool_call>, FunctionGemma's function-call tokens,
CWM's <tool: ..>, LFM2's <|tool_call_start|>, ...). The frame is the same for all of them: find each
block in one linear pass (an unclosed one runs to the next BEGIN or the end of the text, see
_scan.iter_blocks), let the dialect read its body, and cut every block read out of the visible
text. A dialect declares BEGIN and END and says how one block reads (`read_block`); the scan, the
cut and the call cap live here, once.

The call cap: past MAX_CALLS calls the scan stops and the blocks after stay text. A flood is not a
turn to act on (the pipeline keeps the first MAX_CALLS and says so), and stopping keeps a megabyte
of calls cheap to read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import Block, ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

# What one block reads as: its calls, and where the text cut for them ends (the block's end; a
# dialect may end it earlier, at a cut-off block's last call, or later, at a closing turn token).
BlockRead = tuple[list[Candidate], int]
BlockReader = Callable[[str, Block], "BlockRead | None"]


class BlockDialect(Dialect):
    """A dialect whose calls stand in `begin ... end` blocks (see the module doc)."""

    begin: str = ""
    end: str = ""

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        """The calls of one block of `text` (blk.body_start..blk.body_end is its body; blk.closed is
        False when its END never came), or None when the block holds none and stays text."""
        raise NotImplementedError

    def blocks(self, text: str, *, read: BlockReader | None = None,
               found: Iterable[Block] | None = None) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """(the calls, the spans to cut) of the blocks in `text`, at most about MAX_CALLS calls.

        read:  reads one block, when a parse keeps state across its blocks (a token budget);
               else read_block.
        found: the blocks to read, when the dialect skips some (those quoted in reasoning); else
               every `begin..end` block of the text."""
        reader = read or self.read_block
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, self.begin, self.end) if found is None else found:
            got = reader(text, blk)
            if got is None or not got[0]:
                continue
            cands.extend(got[0])
            spans.append((blk.start, got[1]))
            if len(cands) > MAX_CALLS:
                break  # a flood of calls: the blocks after stay text
        return cands, spans

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = self.blocks(text)
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)
