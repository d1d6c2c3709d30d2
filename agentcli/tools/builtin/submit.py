"""submit: the final answer; the loop ends the run when this call succeeds."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_str


class Submit(BuiltinTool):
    spec = Tool(
        name="submit",
        description=(
            "Finish the task and hand the final answer to the user. This ends the run: no further tool calls "
            "happen after it.\n"
            "Use it when: the task is done (or cannot be done) and you can say what you did or found.\n"
            "Do not use it for progress updates or questions; use ask_user to ask, think to plan. Edge case: "
            "submitting before verifying your change (for example running the tests) usually means a wrong answer.\n"
            'Example: {"answer": "Fixed the off-by-one in src/pager.py line 42; all 18 tests pass.", '
            '"confidence": 0.9}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "answer": {
                    "type": "string",
                    "description": "The final answer or a summary of the work done, written for the user.",
                },
                "confidence": {
                    "type": "number",
                    "description": "How sure you are that the answer is right, from 0.0 to 1.0.",
                    "minimum": 0.0,
                    "maximum": 1.0,
                },
            },
            "required": ["answer"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
        ends_run=True,
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        answer = arg_str(args, "answer")
        confidence = args.get("confidence")
        if confidence is not None and (
            isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 <= confidence <= 1.0
        ):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"confidence must be a number from 0.0 to 1.0, got {confidence!r}",
                                 "Pass confidence like 0.8, or leave it out.", argument="confidence")
        return answer


TOOL = Submit()
