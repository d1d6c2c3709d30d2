"""think: a scratchpad call with no side effects (the loop records the thought)."""

from __future__ import annotations

from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_str


class Think(BuiltinTool):
    spec = Tool(
        name="think",
        description=(
            "Write down reasoning or a plan without taking any action.\n"
            "Use it when: a task needs several steps, before a risky edit, or after a surprising result, to plan "
            "the next calls.\n"
            "Do not use it to talk to the user or to finish: use submit for the final answer and ask_user for "
            "questions. It reads nothing and changes nothing.\n"
            'Example: {"thought": "The failing test imports parse_args from cli.py; check that file first."}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "thought": {"type": "string", "description": "The reasoning or plan to record, in plain text."},
            },
            "required": ["thought"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        arg_str(args, "thought")
        return "Thought recorded."


TOOL = Think()
