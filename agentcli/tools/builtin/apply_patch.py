"""apply_patch: the V4A patch tool OpenAI's GPT-4.1, GPT-5 and codex models were trained on.

Its definition matches the one they saw in training (a function tool with one string
argument, `input`, holding the whole patch). The format is parsed and fitted by
`tools/patch_v4a`; the bytes are changed by the shared edit core, all files or none.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools import patch_v4a as v4a
from agentcli.tools.base import ToolContext, arg_str, decode_text
from agentcli.tools.edits import EditPlan, EditTool, check_size, exists, read_any, resolve_rel

DESCRIPTION = """Use the `apply_patch` tool to edit files. The patch format is a small file-oriented diff:

*** Begin Patch
[ one or more file sections ]
*** End Patch

Each file section starts with one of three headers:

*** Add File: <path> - create a new file. Every following line is a + line (the new file's contents).
*** Delete File: <path> - remove an existing file. Nothing follows.
*** Update File: <path> - change an existing file in place, optionally followed by *** Move to: <new path> to rename it.

An update holds one or more hunks, each introduced by @@ (optionally followed by a line that anchors it, such as the
class or function it is in). Within a hunk every line starts with ' ' (unchanged context), '-' (removed) or '+' (added).
Show 3 lines of context above and below each change; if that is not unique in the file, add an @@ anchor, and if one
anchor is not enough use several, each narrowing the one before:

@@ class BaseClass
@@     def method():
 [3 lines of context]
-[old code]
+[new code]
 [3 lines of context]

End a hunk with *** End of File when its lines reach the end of the file.

Grammar:
Patch := "*** Begin Patch" NEWLINE { FileOp } "*** End Patch" NEWLINE
FileOp := AddFile | DeleteFile | UpdateFile
AddFile := "*** Add File: " path NEWLINE { "+" line NEWLINE }
DeleteFile := "*** Delete File: " path NEWLINE
UpdateFile := "*** Update File: " path NEWLINE [ "*** Move to: " newPath NEWLINE ] { Hunk }
Hunk := "@@" [ header ] NEWLINE { (" " | "-" | "+") text NEWLINE } [ "*** End of File" NEWLINE ]

Example:
*** Begin Patch
*** Add File: hello.txt
+Hello world
*** Update File: src/app.py
*** Move to: src/main.py
@@ def greet():
-print("Hi")
+print("Hello, world!")
*** Delete File: obsolete.txt
*** End Patch

Remember: every change needs its header; new lines get a + prefix even in a new file; paths are relative to the
workspace root, never absolute. The whole patch is applied or none of it."""


class ApplyPatch(EditTool):
    spec = Tool(
        name="apply_patch",
        description=DESCRIPTION,
        parameters={
            "type": "object",
            "properties": {
                "input": {"type": "string", "description": "The entire contents of the apply_patch command"},
            },
            "required": ["input"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def paths(self, args: dict[str, Any]) -> list[str]:
        text = args.get("input")
        return v4a.paths_of(text) if isinstance(text, str) else []

    def plan(self, args: dict[str, Any], ctx: ToolContext) -> EditPlan:
        return plan_patch(arg_str(args, "input"), ctx)


def plan_patch(text: str, ctx: ToolContext) -> EditPlan:
    """Every file the patch changes, as bytes before and after; nothing is written."""
    try:
        ops = v4a.parse(text)
    except v4a.PatchError as exc:
        raise _failure(exc) from None
    plan = EditPlan()
    state: dict[str, bytes | None] = {}  # files as this patch has left them so far
    original: dict[str, bytes | None] = {}
    report: list[str] = []
    notes: list[str] = []

    def current(rel: str, path: str) -> bytes | None:
        if rel not in state:
            original[rel] = state[rel] = read_any(ctx, path) if exists(ctx, path) else None
        return state[rel]

    for op in ops:
        rel = resolve_rel(ctx, op.path)
        if op.kind == "add":
            before = current(rel, op.path)
            state[rel] = check_size(rel, op.contents.encode("utf-8"))
            report.append(("M " if before is not None else "A ") + rel)
        elif op.kind == "delete":
            if current(rel, op.path) is None:
                raise ToolFailure.of(ErrorCode.NOT_FOUND, f"Failed to delete file {rel}: it does not exist",
                                     "Check the path with list_files; nothing was changed.")
            state[rel] = None
            report.append("D " + rel)
        else:
            before = current(rel, op.path)
            if before is None:
                raise ToolFailure.of(ErrorCode.NOT_FOUND, f"Failed to read file to update {rel}: it does not exist",
                                     "Use '*** Add File:' to create it; nothing was changed.")
            text_now = _decode(rel, before)
            try:
                done = v4a.apply_chunks(text_now, op.chunks, rel)
            except v4a.PatchError as exc:
                raise _failure(exc) from None
            notes.extend(f"{rel}: {n}" for n in done.notes)
            data = check_size(rel, done.text.encode("utf-8"))
            if op.move_to is not None:
                dest = resolve_rel(ctx, op.move_to)
                current(dest, op.move_to)
                state[rel], state[dest] = None, data
                report.append("M " + dest)
            else:
                state[rel] = data
                report.append("M " + rel)
    for rel, after in state.items():
        if after != original[rel]:
            plan.add(rel, original[rel], after)
    plan.summary = "Success. Updated the following files:\n" + "\n".join(report)
    if notes:
        plan.summary += "\nNote: " + "; ".join(notes[:10])
    return plan


def _decode(rel: str, data: bytes) -> str:
    decode_text(data[:8192], rel)  # refuses binary files
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is not valid UTF-8; it is not patched here") from None


def _failure(exc: v4a.PatchError) -> ToolFailure:
    message = exc.message
    if exc.hunk:
        message += ":\n" + exc.hunk
    return ToolFailure.of(ErrorCode.VALIDATION, message,
                          (exc.hint + " " if exc.hint else "") + "Nothing was changed; fix the patch and call apply_patch again.")


TOOL = ApplyPatch()
