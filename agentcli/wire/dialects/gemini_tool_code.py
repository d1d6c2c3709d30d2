"""Gemini `tool_code` fences: Python calls on the `default_api` namespace, usually printed.

```tool_code
print(default_api.get_weather(location="Paris"))
```
Gemma and Gemini models prompted with the Gemini tool-use convention write this form. Only a
body made wholly of keyword-argument calls with literal values is a call list.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._pycalls import block_read, statement_calls
from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, remove_spans, total

BEGIN, END = "```tool_code", "```"
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

        cands, spans = self.blocks(text, read=read)
        return (cands, remove_spans(text, spans)) if cands else ([], text)


GEMINI_TOOL_CODE = _GeminiToolCode()
