"""make_dir: create a folder (and its missing parents) inside the workspace."""

from __future__ import annotations

import os
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_str


class MakeDir(BuiltinTool):
    spec = Tool(
        name="make_dir",
        description=(
            "Create a folder, with any missing parent folders, inside the workspace.\n"
            "Use it when: a new package or an empty folder is needed before files go in.\n"
            "Do not use it before write_file, move or copy: they create missing parents themselves. Edge cases: an "
            "existing folder is fine (nothing changes); .git/ and .agent/ are protected; paths outside the workspace "
            "and symbolic links are refused.\n"
            'Example: {"path": "src/helpers"}'
        ),
        parameters={
            "type": "object",
            "properties": {"path": {"type": "string", "description": "The folder to create, relative to the workspace."}},
            "required": ["path"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )
    changes_files = False  # a folder holds no content to keep: undo leaves an empty folder behind

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[Any, str]:
        ws = ctx.workspace
        real = ws.resolve(arg_str(args, "path"), write=True)
        if os.path.lexists(real) and not os.path.isdir(real):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{ws.relative(real)} exists and is not a folder",
                                 "Choose another name.")
        return real, ws.relative(real)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        real, rel = self._plan(args, ctx)
        return Judgement.allow() if os.path.isdir(real) else Judgement.ask(f"make folder {rel}")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        real, rel = self._plan(args, ctx)
        existed = os.path.isdir(real)
        os.makedirs(real, exist_ok=True)
        return f"{rel} already exists." if existed else f"Created the folder {rel}."


TOOL = MakeDir()
