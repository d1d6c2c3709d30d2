"""copy: copy a file or folder inside the workspace (bounded; checkpointed for `agent undo`)."""

from __future__ import annotations

import os
import shutil
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_bool, arg_str


class Copy(BuiltinTool):
    spec = Tool(
        name="copy",
        description=(
            "Copy a file or a folder to a new path inside the workspace. When the destination is an existing "
            "folder, the copy goes inside it (like cp -r).\n"
            "Use it when: starting a new file from an existing one, or duplicating a folder of templates.\n"
            "Do not use it to move or rename (use move). Edge cases: an existing destination file is replaced only "
            "with overwrite=true; links inside a folder are copied as links; folders over 2000 files or 200 MB are "
            "refused; .git/ and .agent/ are protected.\n"
            'Example: {"source": "config.example.toml", "destination": "config.toml"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "source": {"type": "string", "description": "The file or folder to copy, relative to the workspace."},
                "destination": {"type": "string", "description": "The new path, or an existing folder to copy into."},
                "overwrite": {"type": "boolean", "description": "Replace an existing destination file (default false)."},
            },
            "required": ["source", "destination"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[Any, Any, str, str, list[str]]:
        from agentcli.tools import fileops

        ws = ctx.workspace
        src = ws.resolve(arg_str(args, "source"), write=False)  # reading: a protected file may be copied out
        dst = fileops.final_target(ws, src, arg_str(args, "destination"))
        fileops.refuse_existing(dst, arg_bool(args, "overwrite", False), ws.relative(dst))
        listed = fileops.tree(src, ws.root)
        fileops.refuse_hard_links(src, ws.root)
        if listed is None or listed[1] > fileops.MAX_COPY_BYTES:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{ws.relative(src)} is too large to copy here "
                                 f"(over {fileops.MAX_TREE_FILES} files or {fileops.MAX_COPY_BYTES >> 20} MB)",
                                 "Copy a smaller part of it.")
        a, b = ws.relative(src), ws.relative(dst)
        return src, dst, a, b, fileops.moved(listed[0], a, b)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        _src, _dst, a, b, files = self._plan(args, ctx)
        return Judgement.ask(f"copy {a} -> {b} ({len(files)} file{'s' * (len(files) != 1)})")

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.tools import fileops

        src, dst, a, b, files = self._plan(args, ctx)
        os.makedirs(dst.parent, exist_ok=True)
        if fileops.is_dir(src):
            shutil.copytree(src, dst, symlinks=True)
        elif os.path.islink(src):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{a} is a symbolic link", "Copy the file it points to.")
        else:
            shutil.copyfile(src, dst, follow_symlinks=False)
            shutil.copymode(src, dst)
        return f"Copied {a} to {b} ({len(files)} file{'s' * (len(files) != 1)})."

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        dst = args.get("destination")
        return [dst] if isinstance(dst, str) else []

    def checkpoint_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[str] | None:
        return self._plan(args, ctx)[4]


TOOL = Copy()
