"""Gemini `tool_code` fences: Python calls on the `default_api` namespace, usually printed.

```tool_code
print(default_api.get_weather(location="Paris"))
```
Gemma and Gemini models prompted with the Gemini tool-use convention write this form. Only a
body made wholly of keyword-argument calls with literal values is a call list.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._pycalls import calls_in_blocks, statement_calls
from agentcli.wire.dialects._scan import AstBudget, Block, ParseResult, total

BEGIN, END = "```tool_code", "```"
_TOKEN_BUDGET = 64 * MAX_CALLS


class _GeminiToolCode(Dialect):
    name = "gemini_tool_code"
    markers = (BEGIN,)
    owns = (BEGIN,)
    name_strict = True  # a fence can also be an example in prose: with tools offered, only their names count

    @total
    def parse(self, text: str) -> ParseResult:
        budget = AstBudget(_TOKEN_BUDGET)

        def read(blk: Block) -> list[tuple[str, dict[str, Any]]] | None:
            body = text[blk.body_start : blk.body_end]
            if body[:1] not in ("\n", "\r") or not blk.closed:
                return None  # `tool_code` must be the whole info string, and the fence must close
            return statement_calls(body.strip(), budget, wrappers=("print",), namespaces=("default_api",))

        return calls_in_blocks(text, BEGIN, END, self.name, read)


GEMINI_TOOL_CODE = _GeminiToolCode()
