"""edit_file: exact find-and-replace in one file, applied through the shared edit core (tools/edits)."""

from __future__ import annotations

from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import ToolContext, arg_str
from agentcli.tools.edits import EditPlan, EditTool, check_size, read_text, replace_text


class EditFile(EditTool):
    spec = Tool(
        name="edit_file",
        description=(
            "Replace exact text in an existing file: old_content is found character for character (spaces, tabs "
            "and line breaks included) and replaced by new_content.\n"
            "Use it when: changing part of a file you have read, such as fixing a line or adding a function after "
            "another one.\n"
            "Do not use it to create files or rewrite a whole file (use write_file). Edge cases: with occurrence "
            "'first' (the default) old_content must appear exactly once, so include enough surrounding lines to "
            "make it unique; 'last' and 'all' accept repeats. Do not copy the line numbers that read_file shows. "
            "An empty new_content deletes the text.\n"
            'Example: {"path": "src/util.py", "old_content": "def add(a, b):\\n    return a - b\\n", '
            '"new_content": "def add(a, b):\\n    return a + b\\n"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path relative to the workspace root."},
                "old_content": {
                    "type": "string",
                    "description": "The exact text to replace, copied from the file (unique when occurrence is first).",
                },
                "new_content": {"type": "string", "description": "The text to put in its place."},
                "occurrence": {
                    "type": "string",
                    "enum": ["first", "last", "all"],
                    "description": "Which match to replace: 'first' (default; requires a unique match), 'last' or 'all'.",
                },
            },
            "required": ["path", "old_content", "new_content"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def plan(self, args: dict[str, Any], ctx: ToolContext) -> EditPlan:
        path = arg_str(args, "path")
        old_c = arg_str(args, "old_content")
        new_c = arg_str(args, "new_content")
        occurrence = arg_str(args, "occurrence", "first", choices=("first", "last", "all"))
        f = read_text(ctx, path, hint="Create it with write_file, or check the path with list_files.")
        new_text, summary = replace_text(f, old_c, new_c, occurrence)
        plan = EditPlan(summary=summary)
        plan.add(f.rel, f.raw, check_size(f.rel, new_text.encode("utf-8")))
        return plan


TOOL = EditFile()
