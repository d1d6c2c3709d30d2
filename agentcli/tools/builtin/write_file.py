"""write_file: create or replace a file atomically (or append), through the shared edit core (tools/edits)."""

from __future__ import annotations

from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import ToolContext, arg_bool, arg_str
from agentcli.tools.edits import EditPlan, EditTool, apply, check_size, exists, line_count, read_any, resolve_rel


class WriteFile(EditTool):
    spec = Tool(
        name="write_file",
        description=(
            "Create a file, or replace a whole file, with the given content (mode 'append' adds to the end). The "
            "write is atomic: the file never holds half of the new content.\n"
            "Use it when: creating a new file, or rewriting a small file completely.\n"
            "Do not use it to change part of an existing file: use your edit tool, which keeps the rest intact. "
            "Edge cases: overwrite replaces everything already in the file; .git/ and .agent/ are protected; paths "
            "outside the workspace and symbolic links are refused; missing folders are created unless "
            "create_directories is false.\n"
            'Example: {"path": "docs/notes.md", "content": "# Notes\\n\\nFirst draft.\\n"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "File path relative to the workspace root."},
                "content": {"type": "string", "description": "The complete text to write (or to append)."},
                "create_directories": {
                    "type": "boolean",
                    "description": "Create missing parent folders (default true).",
                },
                "mode": {
                    "type": "string",
                    "enum": ["overwrite", "append"],
                    "description": "'overwrite' replaces the file (default); 'append' adds content at its end.",
                },
            },
            "required": ["path", "content"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def plan(self, args: dict[str, Any], ctx: ToolContext) -> EditPlan:
        path = arg_str(args, "path")
        content = arg_str(args, "content")
        mode = arg_str(args, "mode", "overwrite", choices=("overwrite", "append"))
        arg_bool(args, "create_directories", True)
        rel = resolve_rel(ctx, path)
        old: bytes | None = None
        if exists(ctx, path):
            old = read_any(ctx, path)
        added = content.encode("utf-8")
        data = check_size(rel, (old or b"") + added if mode == "append" else added)
        plan = EditPlan()
        plan.add(rel, old, data)
        lines = line_count(data)
        noun = "line" if lines == 1 else "lines"
        if mode == "append":
            plan.summary = f"Appended {len(added)} bytes to {rel} (now {len(data)} bytes, {lines} {noun})."
        else:
            verb = "Replaced" if old is not None else "Created"
            plan.summary = f"{verb} {rel} ({len(data)} bytes, {lines} {noun})."
        return plan

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        plan = self.plan(args, ctx)
        apply(ctx, plan, create_dirs=self.create_dirs(args))
        return plan.summary  # the model wrote the content itself: no diff back

    def create_dirs(self, args: dict[str, Any]) -> bool:
        return arg_bool(args, "create_directories", True)


TOOL = WriteFile()
