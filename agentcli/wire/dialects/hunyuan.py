"""Hunyuan tool calls, both generations, inside <tool_calls>...</tool_calls>.

A13B: <tool_calls>[{"name": "get_weather", "arguments": {"city": "Boston"}}]</tool_calls>
HY3:  <tool_calls><tool_call>get_weather<tool_sep><arg_key>city</arg_key><arg_value>Boston</arg_value></tool_call></tool_calls>
HY4:  the same without <tool_sep> (the name runs to the first tag).
An output that ends inside a `<tool_calls>` section, after a call's name is whole (`<tool_call>name<`,
or a name run straight into its arguments, `name(`), is a truncated call: reported as an error,
never executed, and its markup leaves the text. A section cut before a name is whole, cut inside
JSON (A13B), or opened before prose stays text.
The shipping HY3 tokenizer may suffix each token (`<tool_calls:opensource>`); those are
folded to the bare form before scanning.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pairs import parse_pairs, split_name
from agentcli.wire.dialects._scan import (
    Block,
    ParseResult,
    calls_from_json,
    decode_json_at,
    remove_spans,
    section_calls,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import holds_any
from agentcli.wire.dialects._tagged import frame_lane
from agentcli.wire.types import Candidate

BEGIN, END = "<tool_calls>", "</tool_calls>"
CALL_BEGIN, CALL_END, SEP = "<tool_call>", "</tool_call>", "<tool_sep>"
_TRUNCATED = "truncated tool call (output ended inside it)"
# what a section cut off at the end must open with to be a call begun: a whole name, after a call
# token or run straight into its arguments (`get_weather<`, `get_weather(`), not a word of prose
_CALL_BEGUN = re.compile(r"\s*(?:<tool_call>\s*)?([A-Za-z_][\w.\-]{0,127})[(<]")
# every suffixed token holds one of these: the pattern runs over the reply only when one stands in it
_SUFFIX_HEADS = ("tool_calls:", "tool_call:", "tool_sep:", "arg_key:", "arg_value:")
_SUFFIXED = re.compile(r"<(/?)(tool_calls|tool_call|tool_sep|arg_key|arg_value):[\w.\-]{1,64}>")


class _Hunyuan(BlockDialect):
    name = "hunyuan"
    markers = ("<tool_calls",)
    # HY3's separator and the suffixed tokens are this family's alone: it reads its own wrapper,
    # so GLM's dialect (same <arg_key> pairs) never takes the inner call and leaves <tool_calls>.
    owns = (SEP, "<tool_calls:")
    begin, end = BEGIN, END
    lane_tokens = (BEGIN, END)  # the lane's frame: outside its JSON strings, every `<` opens one

    @total
    def parse(self, text: str) -> ParseResult:
        original = text
        if ":" in text and holds_any(text, _SUFFIX_HEADS) and _SUFFIXED.search(text):
            text = _SUFFIXED.sub(r"<\1\2>", text)
        cands, spans = self.blocks(text)
        if not cands:
            return [], original  # the folded tokens are for reading, not for the text left
        return cands, remove_spans(text, spans)

    def lane(self, text: str) -> ParseResult | None:
        """A13B's usual reply (Dialect.lane): each `<tool_calls>` holding one JSON list of calls,
        decoded in place (frame_lane); HY3/HY4's tags and suffixed tokens go the full way."""
        name = self.name
        return frame_lane(text, BEGIN, END, lambda value, raw: calls_from_json(value, raw, name) or [])

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        found, end = self._section(text, blk.body_start, blk.body_end, blk.closed)
        if not blk.closed and blk.body_end == len(text):
            cut = self._cut_call(text, end if found else blk.body_start)
            if cut is not None:
                found.append(cut)
                end = len(text)
        return found, blk.end if blk.closed else end

    def _section(self, text: str, start: int, stop: int, closed: bool) -> tuple[list[Candidate], int]:
        first = skip_ws(text, start, stop)
        if first < stop and text[first] in "[{":
            got = decode_json_at(text, first)
            if got is None or got[1] > stop or text[got[1] : stop].strip():
                return [], start
            raw = text[start - len(BEGIN) : stop + len(END) if closed else stop]
            return calls_from_json(got[0], raw, self.name) or [], got[1]
        return section_calls(text, (CALL_BEGIN, CALL_END), start, stop, self._call)

    def _cut_call(self, text: str, at: int) -> Candidate | None:
        """The call the output ended inside, after the last complete one (from `at`), if one begun."""
        m = _CALL_BEGUN.match(text, at)
        if m is None:
            return None
        return Candidate(name=m.group(1), arguments=None, raw=text[at:], dialect=self.name, error=_TRUNCATED)

    def _call(self, text: str, blk: Block) -> Candidate | None:
        if not blk.closed:
            return None  # no </tool_call>: arguments may be unfinished
        body = text[blk.body_start : blk.body_end]
        sep = body.find(SEP)
        if sep == -1:  # HY4 drops the separator: the name runs to the first tag or line end
            parts = split_name(body)
            if parts is None:
                return None
            name, rest = parts
        else:
            name, rest = body[:sep].strip(), body[sep + len(SEP) :]
        args = parse_pairs(rest)
        if not name or any(c.isspace() or c in "<>{}" for c in name) or args is None:
            return None
        return Candidate(name=name, arguments=args, raw="", dialect=self.name, text_values=True)


HUNYUAN = _Hunyuan()
