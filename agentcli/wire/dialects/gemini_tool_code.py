"""Gemini `tool_code` fences: Python calls on the `default_api` namespace, usually printed.

```tool_code
print(default_api.get_weather(location="Paris"))
```
Gemma and Gemini models prompted with the Gemini tool-use convention write this form. Only a
body made wholly of keyword-argument calls with literal values is a call list.
"""

from __future__ import annotations

from collections.abc import Iterator

from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pycalls import block_read, statement_calls
from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, remove_spans, total

# The fence closes on a line of its own: a "```" inside a call's string (a value quoting Markdown) closes nothing.
BEGIN, END = "```tool_code", "\n```"
_TOKEN_BUDGET = 64 * MAX_CALLS


class _GeminiToolCode(BlockDialect):
    name = "gemini_tool_code"
    markers = (BEGIN,)
    owns = (BEGIN,)
    name_strict = True  # a fence can also be an example in prose: with tools offered, only their names count
    begin, end = BEGIN, END

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)  # one per reply, spent over its blocks

        def read(text: str, blk: Block) -> BlockRead | None:
            body = text[blk.body_start : blk.body_end]
            if body[:1] not in ("\n", "\r") or not blk.closed:
                return None  # `tool_code` must be the whole info string, and the fence must close
            calls = statement_calls(body.strip(), budget, wrappers=("print",), namespaces=("default_api",))
            return block_read(text, blk, self.name, calls)

        cands, spans = self.blocks(text, read=read, found=_fenced(text))
        return (cands, remove_spans(text, spans)) if cands else ([], text)


def _fenced(text: str) -> Iterator[Block]:
    """The `tool_code` blocks: each opening on a line of its own (a Markdown fence opens at a line's
    start, after up to three spaces), so "```tool_code" inside a call's string opens none, and
    running to the next fence line (END), else to the end."""
    pos = 0
    while (b := text.find(BEGIN, pos)) != -1:
        line = text.rfind("\n", 0, b) + 1
        if b - line > 3 or text[line:b].strip(" "):
            pos = b + 1
            continue
        e = text.find(END, b + len(BEGIN))
        if e == -1:
            yield Block(b, b + len(BEGIN), len(text), len(text), False)
            return
        yield Block(b, b + len(BEGIN), e, e + len(END), True)
        pos = e + len(END)


GEMINI_TOOL_CODE = _GeminiToolCode()
