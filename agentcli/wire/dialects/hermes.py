"""Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": .., "arguments": ..}</tool_call>.

Also the emulation style "hermes": tools listed as JSON inside <tools></tools>, results
returned in <tool_response> blocks, as the Hermes and Qwen chat templates do.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects.generic_tags import TaggedJsonDialect

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult


def _call(name: str, args: dict[str, Any]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


class HermesDialect(TaggedJsonDialect):
    emulation = True

    def __init__(self) -> None:
        super().__init__("hermes", "tool_call")

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        if compact:
            return _prompt.instructions(tools, True, _call)
        listing = "<tools>\n" + "\n".join(
            json.dumps(
                {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}},
                ensure_ascii=False,
            )
            for t in tools
        ) + "\n</tools>"
        return _prompt.instructions(
            tools, False, _call, listing="Function signatures, inside <tools></tools>:\n" + listing,
            results_hint=" inside <tool_response></tool_response>",
        )

    def render_call(self, call: ToolCall) -> str:
        return _call(call.name, call.arguments)

    def render_results(self, results: list[ToolResult]) -> str:
        return "\n".join(
            "<tool_response>\n"
            + json.dumps({"name": r.tool_name, "content": _prompt.result_text(r)}, ensure_ascii=False)
            + "\n</tool_response>"
            for r in results
        )


HERMES = HermesDialect()
