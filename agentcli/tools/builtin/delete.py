"""delete: remove a file, or a folder with recursive=true (checkpointed: `agent undo` restores it)."""

from __future__ import annotations

import os
import shutil
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_bool, arg_str


class Delete(BuiltinTool):
    spec = Tool(
        name="delete",
        description=(
            "Delete a file, an empty folder, or (with recursive=true) a folder and everything in it.\n"
            "Use it when: removing a file the task makes obsolete, or a generated folder.\n"
            "Do not use it to empty a file (use write_file) or to move it away (use move). Edge cases: a folder with "
            "content needs recursive=true; .git/ and .agent/ are protected; paths outside the workspace are refused; "
            "the user approves each deletion and agent undo can restore it.\n"
            'Example: {"path": "build/old_report.txt"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The file or folder to delete, relative to the workspace."},
                "recursive": {"type": "boolean", "description": "Delete a folder with everything in it (default false)."},
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[Any, str, list[str] | None]:
        from agentcli.tools import fileops

        ws = ctx.workspace
        real = fileops.existing(ws, arg_str(args, "path"), "path")
        rel = ws.relative(real)
        listed = fileops.tree(real, ws.root)
        files = listed[0] if listed else None
        if fileops.is_dir(real) and (files is None or files) and not arg_bool(args, "recursive", False):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is a folder that is not empty",
                                 "Pass recursive=true to delete it with everything in it.", argument="recursive")
        return real, rel, files

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        from agentcli.tools import fileops

        _real, rel, files = self._plan(args, ctx)
        if files is None:
            what = f"a folder with more than {fileops.MAX_TREE_FILES} files"
        elif len(files) > 1 or (files and files[0] != rel):
            what = f"a folder with {len(files)} files: " + ", ".join(files[:10]) + (" ..." if len(files) > 10 else "")
        else:
            what = "a file" if files else "an empty folder"
        return Judgement.ask(f"delete {rel} ({what})")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.tools import fileops

        real, rel, files = self._plan(args, ctx)
        if fileops.is_dir(real):
            shutil.rmtree(real)  # fd-based on Linux: a link swapped in cannot lead it outside
            return f"Deleted the folder {rel}" + (f" ({len(files)} files)." if files is not None else ".")
        os.unlink(real)
        return f"Deleted {rel}."

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []

    def checkpoint_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[str] | None:
        return self._plan(args, ctx)[2]


TOOL = Delete()
