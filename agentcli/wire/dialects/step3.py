"""StepFun Step-3 tool calls: steptml invoke/parameter tags inside fullwidth-bar tokens.

<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="get_weather">
<steptml:parameter name="city">Tokyo</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>
The `function<｜tool_sep｜>` type prefix is optional here. Values are text and keep their
whitespace (exact-match edit tools depend on it).
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, attr_value, iter_blocks, remove_spans, tag_params, total
from agentcli.wire.types import Candidate

BEGIN, END = "<｜tool_calls_begin｜>", "<｜tool_calls_end｜>"
INVOKE_BEGIN, INVOKE_END = "<steptml:invoke", "</steptml:invoke>"
PARAM_OPEN, PARAM_CLOSE = '<steptml:parameter name="', "</steptml:parameter>"
_CALL_END_AFTER = re.compile(r"\s*<｜tool_call_end｜>")


class _Step3(Dialect):
    name = "step3"
    markers = (BEGIN,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for sec in iter_blocks(text, BEGIN, END):
            found: list[Candidate] = []
            last = sec.start
            for blk in iter_blocks(text, INVOKE_BEGIN, INVOKE_END, sec.body_start, sec.body_end):
                cand = self._invoke(text[blk.body_start : blk.body_end], blk.closed)
                if cand is not None:
                    cand.raw = text[blk.start : blk.end]
                    found.append(cand)
                    last = blk.end
            if found:
                cands.extend(found)
                end = sec.end
                if not sec.closed:
                    close = _CALL_END_AFTER.match(text, last)  # only whitespace may come between
                    end = close.end() if close else last
                spans.append((sec.start, end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)

    def _invoke(self, body: str, closed: bool) -> Candidate | None:
        if not closed:
            return None  # no </steptml:invoke>: parameters may still have been coming
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
