"""list_files: directory entries, optionally recursive, capped with a count of the rest."""

from __future__ import annotations

import fnmatch
from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_bool, arg_int, arg_str, off_loop
from agentcli.tools.names import is_odd, shown

MAX_ENTRIES = 1000
MAX_SCAN = 100_000  # stop counting hidden-from-view entries after this many
_NOT_ENTERED = frozenset({".git"})


class ListFiles(BuiltinTool):
    spec = Tool(
        name="list_files",
        description=(
            "List the files and folders under a workspace directory. Folders end with '/', symbolic links with "
            "'@'.\n"
            "Use it when: you need to see how a project is laid out or find a file by name (use pattern, e.g. "
            "'*.py' or 'test_*').\n"
            "Do not use it to look inside files (use search for text, read_file for contents). Edge cases: hidden "
            "entries (names starting with '.') are skipped unless include_hidden is true; .git/ is never entered; "
            "long listings are cut with a count of what was left out, so narrow path or pattern instead of "
            "listing the whole tree.\n"
            'Example: {"path": "src", "recursive": true, "pattern": "*.py", "max_depth": 3}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "Directory relative to the workspace root (default '.', the root).",
                },
                "recursive": {"type": "boolean", "description": "List sub-folders too (default false)."},
                "include_hidden": {
                    "type": "boolean",
                    "description": "Include names starting with '.' (default false).",
                },
                "pattern": {
                    "type": "string",
                    "description": "Glob on names (or on relative paths when it contains '/'), e.g. '*.md'.",
                },
                "max_depth": {
                    "type": "integer",
                    "description": "How many folder levels to descend when recursive (default 10).",
                    "minimum": 1,
                },
            },
            "required": [],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return await off_loop(self._list, args, ctx)

    def _list(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = arg_str(args, "path", ".")
        recursive = arg_bool(args, "recursive", False)
        hidden = arg_bool(args, "include_hidden", False)
        pattern = arg_str(args, "pattern", None)
        depth = arg_int(args, "max_depth", 10, lo=1) if recursive else 1
        detailed = ctx.result_mode == "detailed"
        ws = ctx.workspace
        base = ws.relative(ws.resolve(path, write=False))
        lines: list[str] = []
        used, count, hidden_count, scanned, odd = 0, 0, 0, 0, 0
        budget = ctx.budget
        for e in ws.walk(path, max_depth=depth, include_hidden=hidden, skip_dirs=_NOT_ENTERED):
            scanned += 1
            if scanned > MAX_SCAN:
                hidden_count = -1
                break
            if pattern and not _matches(e.rel, e.name, pattern, base):
                continue
            shown_rel = e.rel if base == "." else e.rel[len(base) + 1:]
            mark = {"dir": "/", "link": "@", "other": "|"}.get(e.kind, "")
            odd += is_odd(shown_rel)
            row = f"{shown(shown_rel)}{mark}"
            if detailed and e.kind == "file":
                row += f"  ({e.size} bytes)"
            row += "\n"
            if count >= MAX_ENTRIES or used + len(row.encode()) > budget:
                hidden_count += 1
                continue
            lines.append(row)
            used += len(row.encode())
            count += 1
        where = "the workspace root" if base == "." else shown(base) + "/"
        if not lines and not hidden_count:
            extra = f" matching {shown(pattern)!r}" if pattern else ""
            return f"No entries{extra} in {where}."
        out = "".join(lines)
        if odd:
            out += (f"[{odd} name(s) are not valid UTF-8 or hold control characters; they are shown with "
                    "\\xNN escapes]\n")
        if hidden_count:
            more = "more than " + str(MAX_SCAN - count) if hidden_count < 0 else str(hidden_count)
            out += (f"[{count} entries shown, {more} more not shown. Narrow with a deeper path, a pattern, "
                    "or a smaller max_depth.]")
        elif detailed:
            out += f"[{count} entries in {where}]"
        return out

    def touched_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []


def _matches(rel: str, name: str, pattern: str, base: str) -> bool:
    if "/" in pattern:
        shown = rel if base == "." else rel[len(base) + 1:]
        return fnmatch.fnmatchcase(shown, pattern) or fnmatch.fnmatchcase(rel, pattern)
    return fnmatch.fnmatchcase(name, pattern)


TOOL = ListFiles()
