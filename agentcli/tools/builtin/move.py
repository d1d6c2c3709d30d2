"""move: rename or move a file or folder inside the workspace (checkpointed: `agent undo` puts it back)."""

from __future__ import annotations

import os
import shutil
from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_bool, arg_str


class Move(BuiltinTool):
    spec = Tool(
        name="move",
        description=(
            "Move or rename a file or folder inside the workspace. When the destination is an existing folder, "
            "the source goes inside it (like mv).\n"
            "Use it when: renaming a file, moving a module to another package, or reorganising folders.\n"
            "Do not use it to copy (use copy) or to change file content. Edge cases: an existing destination file is "
            "replaced only with overwrite=true; missing parent folders are created; .git/ and .agent/ are protected; "
            "paths outside the workspace and symbolic links are refused.\n"
            'Example: {"source": "src/util.py", "destination": "src/helpers/util.py"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "source": {"type": "string", "description": "The file or folder to move, relative to the workspace."},
                "destination": {"type": "string", "description": "The new path, or an existing folder to move into."},
                "overwrite": {"type": "boolean", "description": "Replace an existing destination file (default false)."},
            },
            "required": ["source", "destination"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[Any, Any, str, str]:
        from agentcli.tools import fileops

        ws = ctx.workspace
        src = fileops.existing(ws, arg_str(args, "source"))
        dst = fileops.final_target(ws, src, arg_str(args, "destination"))
        fileops.refuse_existing(dst, arg_bool(args, "overwrite", False), ws.relative(dst))
        return src, dst, ws.relative(src), ws.relative(dst)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        from agentcli.tools import fileops

        src, _dst, a, b = self._plan(args, ctx)
        listed = fileops.tree(src, ctx.workspace.root)
        count = f"{len(listed[0])} files" if listed else f"more than {fileops.MAX_TREE_FILES} files"
        return Judgement.ask(f"move {a} -> {b}" + (f" (a folder, {count})" if fileops.is_dir(src) else ""))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        src, dst, a, b = self._plan(args, ctx)
        os.makedirs(dst.parent, exist_ok=True)
        try:
            os.rename(src, dst)
        except OSError:  # another filesystem under the workspace: copy then remove
            shutil.move(str(src), str(dst))
        return f"Moved {a} to {b}."

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        return [p for p in (args.get("source"), args.get("destination")) if isinstance(p, str)]

    def checkpoint_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[str] | None:
        from agentcli.tools import fileops

        src, _dst, a, b = self._plan(args, ctx)
        listed = fileops.tree(src, ctx.workspace.root)
        if listed is None:
            return None
        return listed[0] + fileops.moved(listed[0], a, b)


TOOL = Move()
