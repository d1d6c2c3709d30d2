"""edit_file: exact find-and-replace in one file, written atomically."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_str, decode_text, unified_diff


class EditFile(BuiltinTool):
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

    def _plan(self, args: dict[str, Any], ctx: ToolContext) -> tuple[str, str, str, str]:
        """(relative path, old text, new text, summary) without writing anything."""
        path = arg_str(args, "path")
        old_c = arg_str(args, "old_content")
        new_c = arg_str(args, "new_content")
        occurrence = arg_str(args, "occurrence", "first", choices=("first", "last", "all"))
        ws = ctx.workspace
        real = ws.resolve(path, write=True)
        rel = ws.relative(real)
        if not real.exists():
            raise ToolFailure.of(ErrorCode.NOT_FOUND, f"{rel} does not exist",
                                 "Create it with write_file, or check the path with list_files.")
        data = ws.read_bytes(path)
        decode_text(data[:8192], rel)  # refuses binary files
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is not valid UTF-8; editing it here could corrupt it",
                                 "Edit it with bash (for example sed or a script) if you must.") from None
        if old_c == "":
            raise ToolFailure.of(ErrorCode.VALIDATION, "old_content is empty",
                                 "Copy the exact text to replace from the file; use write_file to create a file.")
        if old_c == new_c:
            raise ToolFailure.of(ErrorCode.VALIDATION, "old_content and new_content are the same; nothing would change",
                                 "Pass the changed text as new_content.")
        note = ""
        count = text.count(old_c)
        if count == 0 and "\r\n" in text and "\n" in old_c and "\r\n" not in old_c:
            # The file uses CRLF line endings; the model almost always writes LF.
            crlf_old, crlf_new = old_c.replace("\n", "\r\n"), new_c.replace("\n", "\r\n")
            if text.count(crlf_old):
                old_c, new_c, count = crlf_old, crlf_new, text.count(crlf_old)
                note = " (matched with the file's CRLF line endings)"
        if count == 0:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"old_content was not found in {rel}", _miss_hint(text, old_c))
        if count > 1 and occurrence == "first":
            lines = _line_numbers(text, old_c)
            raise ToolFailure.of(
                ErrorCode.VALIDATION,
                f"old_content appears {count} times in {rel} (lines {', '.join(map(str, lines[:10]))}); it must be unique",
                "Include more surrounding lines in old_content so it matches once, or set occurrence to 'all' or 'last'.",
            )
        if occurrence == "all":
            new_text, done = text.replace(old_c, new_c), count
            at = _line_numbers(text, old_c)
        else:
            idx = text.rfind(old_c) if occurrence == "last" else text.find(old_c)
            new_text, done = text[:idx] + new_c + text[idx + len(old_c):], 1
            at = [text.count("\n", 0, idx) + 1]
        plural = "s" if done > 1 else ""
        where = ", ".join(map(str, at[:10])) + (" ..." if len(at) > 10 else "")
        return rel, text, new_text, f"Replaced {done} occurrence{plural} in {rel} (line{plural} {where}){note}."

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        rel, _old, new_text, summary = self._plan(args, ctx)
        ctx.workspace.write_atomic(args["path"], new_text.encode("utf-8"))
        if ctx.result_mode == "detailed":
            return summary + "\n" + unified_diff(_old, new_text, rel)
        return summary

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """An edit that cannot apply (bad path, no match) is refused with its error before anyone is asked."""
        rel, old, new, _ = self._plan(args, ctx)
        return Judgement.ask(unified_diff(old, new, rel))

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            rel, old, new, _ = self._plan(args, ctx)
        except ToolFailure as exc:
            return f"(cannot preview: {exc.error.message})"
        return unified_diff(old, new, rel)

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []


def _line_numbers(text: str, needle: str) -> list[int]:
    out: list[int] = []
    i = text.find(needle)
    while i >= 0 and len(out) < 1000:
        out.append(text.count("\n", 0, i) + 1)
        i = text.find(needle, i + len(needle))
    return out


def _miss_hint(text: str, old: str) -> str:
    """Say why an exact match failed when a looser one would have worked."""
    if old.strip() and old.strip() in text:
        return "The text exists but with different leading/trailing whitespace or line breaks; copy it exactly."
    squash = " ".join(old.split())
    if squash and squash in " ".join(text.split()):
        return "The text exists with different indentation or spacing; re-read the file and copy it exactly."
    first = next((ln.strip() for ln in old.splitlines() if ln.strip()), "")
    if first and first in text:
        line = text.count("\n", 0, text.find(first)) + 1
        return f"Its first line appears near line {line}, but the rest differs; re-read that part with read_file."
    return "Re-read the file with read_file and copy the text exactly (without the line-number prefix)."


TOOL = EditFile()
