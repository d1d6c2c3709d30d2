"""Kimi K2 tool calls: section tokens around `functions.NAME:IDX` ids and JSON arguments.

<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>
The written id (`functions.get_weather:0`) is kept as the call id; the name is the part
between the `functions.` namespace and the `:IDX` counter.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, json_object_complete, remove_spans, total
from agentcli.wire.types import Candidate

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
CALL_END = "<|tool_call_end|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"


def _name_from_id(call_id: str) -> str | None:
    """`functions.get_weather:0` -> `get_weather`; a bare counter names nothing."""
    name = call_id
    if name.startswith("functions."):
        name = name[len("functions.") :]
    head, colon, idx = name.rpartition(":")
    if colon and idx.isdigit():
        name = head
    if not name or name.isdigit() or any(c.isspace() or c in "<>{}" for c in name):
        return None
    return name


class _KimiK2(Dialect):
    name = "kimi_k2"
    markers = (*SECTION_BEGINS, CALL_BEGIN)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, CALL_BEGIN, CALL_END):
            body = text[blk.body_start : blk.body_end]
            sep = body.find(ARG_BEGIN)
            if sep == -1:
                continue
            call_id = body[:sep].strip()
            name = _name_from_id(call_id)
            args = body[sep + len(ARG_BEGIN) :].strip()
            if name is None:
                continue
            if not blk.closed:
                # Cut off: keep the call only if its arguments are whole, dropping
                # a section-end token that may follow them.
                for end in SECTION_ENDS:
                    if args.endswith(end):
                        args = args[: -len(end)].rstrip()
                if not json_object_complete(args):
                    continue
            cands.append(Candidate(name=name, arguments=args or "{}", raw=text[blk.start : blk.end],
                                   dialect=self.name, id=call_id))
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        spans.extend(_section_tokens(text, spans))
        return cands, remove_spans(text, spans)


def _section_tokens(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans for section tokens that wrap the found calls (with the whitespace between them)."""
    out: list[tuple[int, int]] = []
    first, last = spans[0][0], spans[-1][1]
    for tok in SECTION_BEGINS:
        i = text.rfind(tok, 0, first)
        if i != -1 and not text[i + len(tok) : first].strip():
            out.append((i, first))
    for tok in SECTION_ENDS:
        j = text.find(tok, last)
        if j != -1 and not text[last:j].strip():
            out.append((last, j + len(tok)))
    # whitespace between consecutive calls belongs to the section
    for (_, e1), (s2, _) in zip(spans, spans[1:]):
        if not text[e1:s2].strip():
            out.append((e1, s2))
    return out


KIMI_K2 = _KimiK2()
