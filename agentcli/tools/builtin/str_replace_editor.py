"""str_replace_based_edit_tool: the text editor Claude models were trained on (view, create,
str_replace, insert).

On Anthropic's API the tool is sent as its native type (`native_form` on the spec; the wire
adapter names the version), so Claude gets the schema it was trained with; on every other
route the same commands are an ordinary JSON-schema tool. Changes go through the shared
edit core; `view` reads like read_file and lists directories two levels deep.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import Judgement, ToolContext, arg_int, arg_str, clip_line, off_loop
from agentcli.tools.edits import EditPlan, EditTool, check_size, exists, read_text, replace_text, resolve_rel

NAME = "str_replace_based_edit_tool"
COMMANDS = ("view", "create", "str_replace", "insert")
VIEW_SKIP = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"})


class StrReplaceEditor(EditTool):
    spec = Tool(
        name=NAME,
        description=(
            "View, create and edit text files in the workspace.\n"
            "* `view` shows a file with line numbers (like `cat -n`), or lists a directory's non-hidden files and "
            "folders two levels deep; `view_range` [start, end] shows lines start..end (1-based; end -1 = to the end).\n"
            "* `create` writes a new file with `file_text` (it refuses to replace an existing file).\n"
            "* `str_replace` replaces `old_str`, which must match exactly one place in the file (whitespace "
            "included), with `new_str`; an empty or missing `new_str` deletes the text.\n"
            "* `insert` puts `insert_text` after line `insert_line` (0 = at the top of the file).\n"
            "Paths are relative to the workspace root. Every change is shown as a diff for approval."
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "enum": list(COMMANDS), "description": "The command to run."},
                "path": {"type": "string", "description": "File or directory path relative to the workspace root."},
                "file_text": {"type": "string", "description": "create: the content of the new file."},
                "old_str": {"type": "string", "description": "str_replace: the exact text to replace (unique)."},
                "new_str": {"type": "string", "description": "str_replace: the text to put in its place."},
                "insert_line": {"type": "integer", "minimum": 0,
                                "description": "insert: the line after which to insert (0 = top of the file)."},
                "insert_text": {"type": "string", "description": "insert: the text to insert."},
                "view_range": {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2,
                               "description": "view: [start, end] line numbers, 1-based; end -1 = to the end."},
            },
            "required": ["command", "path"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
        native_form="text_editor",
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        if _command(args) == "view":
            return await off_loop(view, args, ctx)
        return await super().run(args, ctx)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """`view` reads only: allowed without asking, like read_file (its path is checked when it
        runs); the editing commands ask with their diff."""
        if _command(args) == "view":
            return Judgement.allow()
        return super().judge(args, ctx)

    def changes_files_in(self, args: dict[str, Any]) -> bool:
        return args.get("command") != "view"  # no workspace snapshot around a view

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        if args.get("command") == "view":
            return f"(view {args.get('path', '')!s:.300}: reads only)"
        return super().preview(args, ctx)

    def paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) and args.get("command") != "view" else []

    def plan(self, args: dict[str, Any], ctx: ToolContext) -> EditPlan:
        command = _command(args)
        path = arg_str(args, "path")
        plan = EditPlan()
        if command == "create":
            text = arg_str(args, "file_text")
            rel = resolve_rel(ctx, path)
            if exists(ctx, path):
                raise ToolFailure.of(ErrorCode.VALIDATION, f"File already exists at: {rel}. Cannot overwrite files "
                                     "using command `create`.", "Change it with str_replace or insert.")
            data = check_size(rel, text.encode("utf-8"))
            plan.add(rel, None, data)
            plan.summary = f"File created successfully at: {rel}"
            return plan
        f = read_text(ctx, path, hint="Create it with the `create` command, or check the path with `view`.")
        if command == "str_replace":
            old = arg_str(args, "old_str")
            new = arg_str(args, "new_str", "")
            new_text, summary = replace_text(f, old, new, names=("old_str", "new_str"))
        else:
            new_text, summary = _insert(f.text, f.rel, args)
        plan.add(f.rel, f.raw, check_size(f.rel, new_text.encode("utf-8")))
        plan.summary = summary
        return plan


def _command(args: dict[str, Any]) -> str:
    command = args.get("command")
    if command == "undo_edit":
        raise ToolFailure.of(ErrorCode.VALIDATION, "undo_edit is not available in this version of the text editor",
                             "Put the old text back with str_replace (the user can undo with `agent undo`).")
    return str(arg_str(args, "command", choices=COMMANDS))


def _insert(text: str, rel: str, args: dict[str, Any]) -> tuple[str, str]:
    line = arg_int(args, "insert_line", None, lo=0)
    if line is None:
        raise ToolFailure.of(ErrorCode.VALIDATION, "missing required argument 'insert_line'",
                             "Give the line after which to insert (0 = top of the file).", argument="insert_line")
    # Earlier text editor versions called the inserted text new_str.
    new = args.get("insert_text")
    if new is None:  # absent, or null (strict schemas send every optional field)
        new = args.get("new_str")
    if not isinstance(new, str):
        raise ToolFailure.of(ErrorCode.VALIDATION, "missing required argument 'insert_text'",
                             "Pass the text to insert as insert_text.", argument="insert_text")
    nl = "\r\n" if "\r\n" in text else "\n"
    lines = text.splitlines(keepends=True)
    if line > len(lines):
        raise ToolFailure.of(ErrorCode.VALIDATION, f"insert_line {line} is past the end of {rel} ({len(lines)} lines)",
                             f"Use an insert_line between 0 and {len(lines)}.")
    block = new if new.endswith(("\n", "\r")) or not new else new + nl
    if nl == "\r\n" and "\r\n" not in block:
        block = block.replace("\n", "\r\n")
    if line and not lines[line - 1].endswith(("\n", "\r")):
        lines[line - 1] += nl
    lines.insert(line, block)
    return "".join(lines), f"Inserted {block.count(chr(10))} line(s) after line {line} of {rel}."


def view(args: dict[str, Any], ctx: ToolContext) -> str:
    """A file with numbered lines (honouring view_range), or a directory two levels deep."""
    path = arg_str(args, "path")
    ws = ctx.workspace
    real = ws.resolve(path, write=False)
    rel = ws.relative(real)
    if real.is_dir():
        if args.get("view_range") is not None:
            raise ToolFailure.of(ErrorCode.VALIDATION, "view_range applies to files, not directories",
                                 "Leave view_range out when viewing a directory.")
        rows = [e.rel + ("/" if e.kind == "dir" else "") for e in ws.walk(path, max_depth=2, skip_dirs=VIEW_SKIP)]
        shown, used = [], 0
        for r in rows:
            used += len(r) + 1
            if used > ctx.budget:
                break
            shown.append(r)
        more = f"\n[{len(rows) - len(shown)} more entries not shown]" if len(shown) < len(rows) else ""
        return (f"Here are the files and directories up to 2 levels deep in {rel}, excluding hidden items:\n"
                + "\n".join(shown) + more)
    f = read_text(ctx, path)
    lines = f.text.splitlines()
    start, end = 1, len(lines)
    rng = args.get("view_range")
    if rng is not None:
        if (not isinstance(rng, list) or len(rng) != 2
                or not all(isinstance(n, int) and not isinstance(n, bool) for n in rng)):
            raise ToolFailure.of(ErrorCode.VALIDATION, "view_range must be two integers [start, end]",
                                 "For example [10, 40], or [10, -1] for line 10 to the end.", argument="view_range")
        start, end = rng[0], (len(lines) if rng[1] == -1 else rng[1])
        if start < 1 or start > max(1, len(lines)):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"view_range start {start} is outside {rel} "
                                 f"(lines 1-{len(lines)})", f"Use a start between 1 and {max(1, len(lines))}.")
        if end < start or end > len(lines):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"view_range end {rng[1]} must be -1 or between {start} and "
                                 f"{len(lines)}", "Use -1 to read to the end of the file.")
    out: list[str] = []
    used, n = 0, start
    while n <= end:
        row = f"{n:6}\t{clip_line(lines[n - 1], ctx.line_limit)}"
        if used + len(row) + 1 > ctx.budget and out:
            break
        out.append(row)
        used += len(row) + 1
        n += 1
    note = f"\n[Showing lines {start}-{n - 1} of {len(lines)}; view_range [{n}, -1] continues.]" if n <= end else ""
    return f"Here's the result of running `cat -n` on {rel}:\n" + "\n".join(out) + note


TOOL = StrReplaceEditor()
