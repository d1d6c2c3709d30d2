"""StepFun Step-3 tool calls: steptml invoke/parameter tags inside fullwidth-bar tokens.

<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
<steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
The `function<｜tool_sep｜>` type prefix is optional here. Values are text and keep their
whitespace (exact-match edit tools depend on it).
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import Block, ParseResult, attr_value, parse_sections, tag_params, total
from agentcli.wire.types import Candidate

BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
INVOKE_BEGIN, INVOKE_END = "<steptml:invoke", "</steptml:invoke>"
PARAM_OPEN, PARAM_CLOSE = '<steptml:parameter name="', "</steptml:parameter>"
_CALL_END_AFTER = re.compile(r"\s*<｜tool_call_end｜>")


class _Step3(Dialect):
    name = "step3"
    markers = (BEGIN,)
    owns = (BEGIN, INVOKE_BEGIN)

    @total
    def parse(self, text: str) -> ParseResult:
        # a section cut after its last call also loses that call's end token (only whitespace between)
        return parse_sections(text, (BEGIN, END), (INVOKE_BEGIN, INVOKE_END), self._invoke, trailer=_CALL_END_AFTER)

    def _invoke(self, text: str, blk: Block) -> Candidate | None:
        if not blk.closed:
            return None  # no </steptml:invoke>: parameters may still have been coming
        body = text[blk.body_start : blk.body_end]
        gt = body.find(">")
        if gt == -1:
            return None
        name = attr_value(body[:gt], "name")
        if not name or not name.strip():
            return None
        params, complete = tag_params(body[gt + 1 :], PARAM_OPEN, '"', PARAM_CLOSE)
        if not complete:
            return None
        args = {key: value for key, _, value in params if key}
        return Candidate(name=name.strip(), arguments=args, raw="", dialect=self.name, text_values=True)


STEP3 = _Step3()
