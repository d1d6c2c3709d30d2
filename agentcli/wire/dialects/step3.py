"""StepFun Step-3 tool calls: steptml invoke/parameter tags inside fullwidth-bar tokens.

<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
<steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
The `function<｜tool_sep｜>` type prefix is optional here. Values are text and keep their
whitespace (exact-match edit tools depend on it). A call the output ended inside after whole
calls (an invoke never closed) is reported as truncated, never executed, and its markup, back to
its call token, leaves the text; with no whole call before it, a cut-off block stays text.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import Block, ParseResult, attr_value, parse_sections, tag_params, total
from agentcli.wire.types import Candidate

BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
CALL_BEGIN, CALL_END = "<｜tool_call_begin｜>", "<｜tool_call_end｜>"
INVOKE_BEGIN, INVOKE_END = "<steptml:invoke", "</steptml:invoke>"
PARAM_OPEN, PARAM_CLOSE = '<steptml:parameter name="', "</steptml:parameter>"
_CALL_END_AFTER = re.compile(r"\s*<｜tool_call_end｜>")
_NAME = re.compile(r'\s+name="([^"<>]{0,256})')
_TRUNCATED = "truncated tool call (output ended inside it)"


class _Step3(Dialect):
    name = "step3"
    markers = (BEGIN,)
    owns = (BEGIN, INVOKE_BEGIN)
    call_wrappers = ((INVOKE_BEGIN, INVOKE_END),)  # a reasoning tag in a value is the value's text
    # each section, invoke and parameter read in order from where the last ended, by its own tags
    reads_in_place = True

    @total
    def parse(self, text: str) -> ParseResult:
        # a section cut after its last call also loses that call's end token (only whitespace between)
        cands, rest = parse_sections(text, (BEGIN, END), (INVOKE_BEGIN, INVOKE_END), self._invoke, trailer=_CALL_END_AFTER,
                                     raw_first=True)
        cut = _cut_call(rest) if cands else None  # with no whole call, a cut-off block stays text
        if cut is None:
            return cands, rest
        return [*cands, cut], rest[: len(rest) - len(cut.raw)]

    def _invoke(self, raw: str, blk: Block) -> Candidate | None:
        """The call in one closed invoke block, read from its own text `raw` (the block copied out once,
        as the call's raw text): the reply holds the full-width tokens, so CPython stores it two bytes
        a character, while the block, copied, is narrowed to one; its searches and the value's copy
        then cost about a third of what they cost in the reply (each value copied out of the reply
        is narrowed character by character)."""
        if not blk.closed:
            return None  # no </steptml:invoke>: parameters may still have been coming
        body_start, body_end = blk.body_start - blk.start, blk.body_end - blk.start
        gt = raw.find(">", body_start, body_end)
        if gt == -1:
            return None
        name = attr_value(raw[body_start:gt], "name")
        if not name or not name.strip():
            return None
        params, complete = tag_params(raw, PARAM_OPEN, '"', PARAM_CLOSE, start=gt + 1, end=body_end)
        if not complete:
            return None
        args = {key: value for key, _, value in params if key}
        return Candidate(name=name.strip(), arguments=args, raw=raw, dialect=self.name, text_values=True)


def _cut_call(rest: str) -> Candidate | None:
    """The invoke the output ended inside, with the call and section tokens just before it."""
    inv = rest.rfind(INVOKE_BEGIN)
    if inv == -1 or INVOKE_END in rest[inv:] or END in rest[inv:]:
        return None
    at = inv
    call = rest.rfind(CALL_BEGIN, 0, inv)
    if call != -1 and CALL_END not in rest[call:inv]:
        between = rest[call + len(CALL_BEGIN) : inv]
        if not between.strip() or between.strip().endswith("<｜tool_sep｜>"):
            at = call
    sec = rest.rfind(BEGIN, 0, at)
    if sec != -1 and not rest[sec + len(BEGIN) : at].strip():
        at = sec
    if at == inv:
        return None  # a bare invoke tag with no call or section token before it: prose naming the markup
    m = _NAME.match(rest, inv + len(INVOKE_BEGIN))
    return Candidate(name=m.group(1).strip() if m else "", arguments=None, raw=rest[at:], dialect="step3", error=_TRUNCATED)


STEP3 = _Step3()
