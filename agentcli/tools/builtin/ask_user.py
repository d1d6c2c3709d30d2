"""ask_user: a question for the human; the loop turns it into a checkpoint and answers it."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext


class AskUser(BuiltinTool):
    spec = Tool(
        name="ask_user",
        description=(
            "Ask the user a question and wait for the reply, which comes back as this tool's result.\n"
            "Use it when: the request is ambiguous in a way that changes the result, or you need a decision or "
            "information only the user has (a password prompt, which of two designs, missing requirements).\n"
            "Do not use it for questions you can answer by reading files or running commands, and do not use it to "
            "report the final result (use submit). Edge case: in a non-interactive run the question stops the run "
            "at a checkpoint, so ask one clear question, not several.\n"
            'Example: {"question": "Should the new flag default to on or off?"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "question": {"type": "string", "description": "One clear question for the user, in plain text."},
            },
            "required": ["question"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
        interactive=True,
    )

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """The question itself: the loop shows it at the checkpoint (this tool is `interactive`)."""
        return str(args.get("question", ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        raise ToolFailure.of(ErrorCode.EXECUTION, "ask_user must be answered by the loop",
                             "This tool is only available inside an agent run.")


TOOL = AskUser()
