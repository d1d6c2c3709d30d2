"""ByteDance Seed-OSS tool calls: <function=NAME> blocks with <parameter=KEY> values.

<seed:tool_call>
<function=get_weather>
<parameter=location>Barcelona, Spain</parameter>
</function>
</seed:tool_call>
Calls spelled out inside <seed:think> are reasoning, not calls. Values are text; a value framed as
`>\nVALUE\n</parameter>` loses that pair of layout newlines, one written inline keeps its own.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import Block, ParseResult, parse_sections, tag_params, total
from agentcli.wire.dialects._seen import find_far
from agentcli.wire.types import Candidate

BEGIN, END = "<seed:tool_call>", "</seed:tool_call>"
FUNC_BEGIN, FUNC_END = "<function=", "</function>"
THINK_END = "</seed:think>"


def _unframe(value: str) -> str:
    if value.startswith("\n"):
        value = value[1:]
        if value.endswith("\n"):
            value = value[:-1]
    return value


class _SeedOss(Dialect):
    name = "seed_oss"
    markers = (BEGIN,)
    owns = (BEGIN,)
    reasoning_tags = (("<seed:think>", THINK_END),)

    @total
    def parse(self, text: str) -> ParseResult:
        start = 0
        think = find_far(text, "<seed:think>")  # on a long reply, by the places of its `<` (a memchr each)
        if think != -1:  # calls begin after the reasoning; an unclosed think holds none
            think_end = text.rfind(THINK_END)
            start = think_end + len(THINK_END) if think_end > think else len(text)
        return parse_sections(text, (BEGIN, END), (FUNC_BEGIN, FUNC_END), self._function, start=start)

    def _function(self, text: str, blk: Block) -> Candidate | None:
        if not blk.closed:
            return None  # no </function>: parameters may still have been coming
        body = text[blk.body_start : blk.body_end]
        gt = body.find(">")
        if gt == -1:
            return None
        name = body[:gt].strip()
        if not name or any(c.isspace() or c in "<{\"" for c in name):
            return None
        params, complete = tag_params(body[gt + 1 :], "<parameter=", ">", "</parameter>")
        if not complete:
            return None
        args = {key: _unframe(value) for key, _, value in params if key}
        return Candidate(name=name, arguments=args, raw="", dialect=self.name, text_values=True)


SEED_OSS = _SeedOss()
