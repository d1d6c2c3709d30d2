"""write_file: create or replace a file atomically (or append), inside the workspace only."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_bool, arg_str, unified_diff


class WriteFile(BuiltinTool):
    spec = Tool(
        name="write_file",
        description=(
            "Create a file, or replace a whole file, with the given content (mode 'append' adds to the end). The "
            "write is atomic: the file never holds half of the new content.\n"
            "Use it when: creating a new file, or rewriting a small file completely.\n"
            "Do not use it to change part of an existing file: use edit_file, which keeps the rest intact. "
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

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[str, bytes, bytes, bool]:
        """(relative path, old bytes, new bytes, existed) without writing anything."""
        path = arg_str(args, "path")
        content = arg_str(args, "content")
        mode = arg_str(args, "mode", "overwrite", choices=("overwrite", "append"))
        ws = ctx.workspace
        real = ws.resolve(path, write=True)
        rel = ws.relative(real)
        old, existed = b"", real.exists()
        if existed:
            if real.is_dir():
                raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is a directory", "Give a file path.")
            old = ws.read_bytes(path)
        new = old + content.encode("utf-8") if mode == "append" else content.encode("utf-8")
        return rel, old, new, existed

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        rel, _old, data, existed = self._plan(args, ctx)
        create_dirs = arg_bool(args, "create_directories", True)
        ctx.workspace.write_atomic(args["path"], data, create_dirs=create_dirs)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        noun = "line" if lines == 1 else "lines"
        if args.get("mode") == "append":
            return f"Appended {len(args['content'].encode())} bytes to {rel} (now {len(data)} bytes, {lines} {noun})."
        verb = "Replaced" if existed else "Created"
        return f"{verb} {rel} ({len(data)} bytes, {lines} {noun})."

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """A path outside the workspace, protected or a folder is refused before anyone is asked;
        otherwise a person sees the diff."""
        rel, old, new, _ = self._plan(args, ctx)
        return Judgement.ask(unified_diff(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"), rel))

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            rel, old, new, _ = self._plan(args, ctx)
        except ToolFailure as exc:
            return f"(cannot preview: {exc.error.message})"
        return unified_diff(old.decode("utf-8", "replace"), new.decode("utf-8", "replace"), rel)

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []


TOOL = WriteFile()
