"""rednote dots.llm1: calls in <dots_function_call> sections, each holding MiniMax-M2-style invoke
blocks or one JSON call object (vLLM's `dots` parser reads both).

    ok<dots_function_call><invoke name="search"><parameter name="query">chairs</parameter></invoke></dots_function_call>
    <dots_function_call>{"name": "search", "arguments": {"query": "tables"}}</dots_function_call>

The section tokens are this family's alone, so the dialect owns them: no generic XML or JSON dialect
takes the inner call and leaves the wrapper on screen. They are markup, never prose: a section holding
neither form shows its content without them, and a stray token (an end with no start) goes.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._invoke import INVOKE_BEGIN, INVOKE_END, read_invoke
from agentcli.wire.dialects._scan import (
    Block,
    ParseResult,
    call_from_object,
    decode_json_at,
    iter_blocks,
    remove_spans,
    section_calls,
    skip_ws,
    total,
)
from agentcli.wire.types import Candidate

BEGIN, END = "<dots_function_call>", "</dots_function_call>"


class _Dots(Dialect):
    name = "dots"
    markers = (BEGIN, END)
    owns = (BEGIN, END)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for sec in iter_blocks(text, BEGIN, END):
            found, _last = section_calls(text, (INVOKE_BEGIN, INVOKE_END), sec.body_start, sec.body_end,
                                         self._invoke)
            found = found or self._json(text, sec)
            if found:
                cands.extend(found)
                spans.append((sec.start, sec.end))
            elif sec.closed:  # neither form: the tokens go, the content stays
                spans.append((sec.start, sec.body_start))
                spans.append((sec.body_end, sec.end))
        rest = remove_spans(text, spans) if spans else text
        if END in rest:  # a stray end token
            rest = rest.replace(END, "")
        return cands, rest

    def _invoke(self, text: str, blk: Block) -> Candidate | None:
        # an invoke left without </invoke> is cut off: no call (only MiniMax-M2 closes one at its wrapper end)
        return read_invoke(text, blk, self.name, None)

    def _json(self, text: str, sec: Block) -> list[Candidate]:
        """One JSON call object filling the section."""
        pos = skip_ws(text, sec.body_start)
        got = decode_json_at(text, pos) if pos < sec.body_end and text[pos] == "{" else None
        if got is None or skip_ws(text, got[1]) < sec.body_end:
            return []
        cand = call_from_object(got[0], text[pos : got[1]], self.name)
        return [cand] if cand is not None else []


DOTS = _Dots()
