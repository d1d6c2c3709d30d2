"""Gemini `tool_code` fences: Python calls on the `default_api` namespace, usually printed.

```tool_code
print(default_api.get_weather(location="Paris"))
```
Gemma and Gemini models prompted with the Gemini tool-use convention write this form. Only a
body made wholly of keyword-argument calls with literal values is a call list.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._pycalls import statement_calls
from agentcli.wire.dialects._scan import AstBudget, ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

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
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            body = text[blk.body_start : blk.body_end]
            if body[:1] not in ("\n", "\r") or not blk.closed:
                continue  # `tool_code` must be the whole info string, and the fence must close
            calls = statement_calls(body.strip(), budget, wrappers=("print",), namespaces=("default_api",))
            if calls is None:
                continue
            raw = text[blk.start : blk.end]
            cands.extend(Candidate(name, args, raw, self.name) for name, args in calls)
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


GEMINI_TOOL_CODE = _GeminiToolCode()
