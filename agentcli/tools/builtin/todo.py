"""todo: the plan the model keeps for a multi-step task, which the user watches.

The model sends the whole list each time (simplest for models to get right: no ids to track);
the tool keeps it for the session, answers with the list as it now stands, and reports a
`PlanUpdated` event that the terminal renders live and `--json` prints as a `plan` record.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext

STATUSES = ("pending", "in_progress", "done")
MAX_ITEMS = 50
MAX_TEXT = 300
MARKS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}


class Todo(BuiltinTool):
    spec = Tool(
        name="todo",
        description=(
            "Write your plan for the task as a list of steps, each with a status. Update it as you go: the user "
            "sees it live. Send the whole list every time.\n"
            "Use it when: the task has three or more steps, or the user gave you several things to do.\n"
            "Do not use it for a one-step task, or as a place for notes (use think). Edge cases: at most one step "
            "in_progress at a time; the list replaces the previous one; up to 50 steps.\n"
            'Example: {"items": [{"content": "Find the failing test", "status": "done"}, '
            '{"content": "Fix parse()", "status": "in_progress"}, {"content": "Run the tests", "status": "pending"}]}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "items": {
                    "type": "array",
                    "description": "Every step of the plan, in order, each with its status.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "content": {"type": "string", "description": "The step, in a few words."},
                            "status": {"type": "string", "enum": list(STATUSES),
                                       "description": "pending, in_progress or done."},
                        },
                        "required": ["content", "status"],
                        "additionalProperties": False,
                    },
                },
            },
            "required": ["items"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )
    changes_files = False

    @staticmethod
    def _items(args: dict[str, Any]) -> list[dict[str, str]]:
        raw = args.get("items")
        if not isinstance(raw, list) or len(raw) > MAX_ITEMS:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"items must be a list of up to {MAX_ITEMS} steps",
                                 'Pass items like [{"content": "Fix parse()", "status": "pending"}].', argument="items")
        out = []
        for i, item in enumerate(raw, 1):
            content = item.get("content") if isinstance(item, dict) else None
            status = item.get("status") if isinstance(item, dict) else None
            if not isinstance(content, str) or not content.strip() or status not in STATUSES:
                raise ToolFailure.of(ErrorCode.VALIDATION, f"step {i} needs a content text and a status "
                                     f"({', '.join(STATUSES)})", "Send every step with both fields.", argument="items")
            out.append({"content": " ".join(content.split())[:MAX_TEXT], "status": str(status)})
        if sum(it["status"] == "in_progress" for it in out) > 1:
            raise ToolFailure.of(ErrorCode.VALIDATION, "more than one step is in_progress",
                                 "Mark one step in_progress; the others pending or done.", argument="items")
        return out

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.core.events import PlanUpdated  # here, so listing the tools does not load the events

        items = self._items(args)
        plan: list[dict[str, str]] = ctx.kept("todo.plan", list)
        plan[:] = items
        ctx.events.append(PlanUpdated([dict(it) for it in items]))
        done = sum(it["status"] == "done" for it in items)
        lines = [f"Plan updated ({done} of {len(items)} done):"]
        lines += [f"{MARKS[it['status']]} {it['content']}" for it in items]
        return "\n".join(lines)


TOOL = Todo()
