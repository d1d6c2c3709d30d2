"""read_file: numbered lines of a text file, paginated to fit the output budget."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_int, arg_str, clip_line, decode_text, off_loop

MAX_FILE_BYTES = 20 * 1024 * 1024
PAGE_LINES = 2000


class ReadFile(BuiltinTool):
    spec = Tool(
        name="read_file",
        description=(
            "Read a text file from the workspace. Each line comes back as '<line number><TAB><text>'; the number "
            "and tab are not part of the file.\n"
            "Use it when: you know which file you need and want its exact contents, before editing it, or to look "
            "at a line range reported by search.\n"
            "Do not use it to find which file holds something (use search) or to list a folder (use list_files). "
            "Edge cases: long files come back one page at a time with the shown range and the start_line to "
            "continue from; very long lines are cut; binary files are refused.\n"
            'Example: {"path": "src/app/config.py", "start_line": 40, "end_line": 90}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File path relative to the workspace root, e.g. 'src/main.py'.",
                },
                "start_line": {
                    "type": "integer",
                    "description": "First line to return, 1-based and inclusive (default 1).",
                    "minimum": 1,
                },
                "end_line": {
                    "type": "integer",
                    "description": "Last line to return, inclusive (default: as many as fit in one page).",
                    "minimum": 1,
                },
            },
            "required": ["path"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return await off_loop(self._read, args, ctx)  # file I/O off the loop: reads run in parallel

    def _read(self, args: dict[str, Any], ctx: ToolContext) -> str:
        path = arg_str(args, "path")
        start = arg_int(args, "start_line", 1, lo=1)
        end = arg_int(args, "end_line", None, lo=1)
        if end is not None and end < start:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"end_line {end} is before start_line {start}",
                                 "Pass end_line >= start_line, or leave end_line out.")
        ws = ctx.workspace
        rel = ws.relative(ws.resolve(path, write=False))
        data = ws.read_bytes(path, limit=MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is larger than {MAX_FILE_BYTES // (1024 * 1024)} MB",
                                 "Use search to find the part you need, or bash with head/sed -n for a slice.")
        text = decode_text(data, rel)
        if not text:
            return f"{rel} is empty (0 lines)."
        lines = text.splitlines()
        total = len(lines)
        if start > total:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"start_line {start} is past the end of {rel} ({total} lines)",
                                 f"Use a start_line between 1 and {total}.")
        last = min(total, end if end is not None else start + PAGE_LINES - 1)
        out: list[str] = []
        used = 0
        n = start
        budget = ctx.budget
        while n <= last:
            row = f"{n}\t{clip_line(lines[n - 1], ctx.line_limit)}\n"
            if used + len(row.encode()) > budget and out:
                break
            out.append(row)
            used += len(row.encode())
            n += 1
        shown_end = n - 1
        body = "".join(out)
        if start == 1 and shown_end == total:
            if ctx.result_mode == "detailed":
                return f"{rel} ({total} lines, {len(data)} bytes)\n{body}"
            return body
        note = f"[Showing lines {start}-{shown_end} of {total} in {rel}."
        if shown_end < total:
            cut = " (output limit reached)" if shown_end < last else ""
            note += f"{cut} Call read_file with start_line={shown_end + 1} to continue.]"
        else:
            note += "]"
        return body + note

    def touched_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []


TOOL = ReadFile()
