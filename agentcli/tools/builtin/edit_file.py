"""edit_file: exact find-and-replace in one file, applied through the shared edit core (tools/edits)."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import ToolContext, arg_str
from agentcli.tools.edits import EditPlan, EditTool, TextFile, check_size, read_text


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


def replace_text(f: TextFile, old_c: str, new_c: str, occurrence: str = "first",
                 names: tuple[str, str] = ("old_content", "new_content")) -> tuple[str, str]:
    """(new text, summary) for an exact find-and-replace in `f`; shared by the edit tools that
    replace a string, with the argument names each of them uses in its messages."""
    old_n, new_n = names
    rel, text = f.rel, f.text
    if old_c == "":
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{old_n} is empty",
                             f"Copy the exact text to replace from the file into {old_n}.")
    if old_c == new_c:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{old_n} and {new_n} are the same; nothing would change",
                             f"Pass the changed text as {new_n}.")
    note = ""
    count = text.count(old_c)
    if count == 0 and f.crlf and "\n" in old_c and "\r\n" not in old_c:
        # The file uses CRLF line endings; the model almost always writes LF.
        crlf_old, crlf_new = old_c.replace("\n", "\r\n"), new_c.replace("\n", "\r\n")
        if text.count(crlf_old):
            old_c, new_c, count = crlf_old, crlf_new, text.count(crlf_old)
            note = " (matched with the file's CRLF line endings)"
    if count == 0:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{old_n} was not found in {rel}", _miss_hint(text, old_c))
    if count > 1 and occurrence == "first":
        lines = _line_numbers(text, old_c)
        raise ToolFailure.of(
            ErrorCode.VALIDATION,
            f"{old_n} appears {count} times in {rel} (lines {', '.join(map(str, lines[:10]))}); it must be unique",
            f"Include more surrounding lines in {old_n} so it matches once"
            + (", or set occurrence to 'all' or 'last'." if names[0] == "old_content" else "."),
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
    return new_text, f"Replaced {done} occurrence{plural} in {rel} (line{plural} {where}){note}."


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
