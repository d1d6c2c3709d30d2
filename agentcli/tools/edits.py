"""One implementation of "change these bytes", shared by every edit tool.

An edit tool only *plans*: it reads the files it needs through `read_text` and returns an
`EditPlan` (the bytes before and after for each file it touches). This module does the rest
the same way for all of them: the approval diff (`EditTool.preview`), the paths recorded for
undo (`EditTool.changed_paths`, read by the session's checkpoint recorder), size limits,
the workspace path rules (every path goes through `Workspace.resolve(write=True)`), and
applying a plan all or nothing across files: if one write fails, the files already written
are put back as they were.
"""

from __future__ import annotations

import os
import stat
from dataclasses import field
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.record import record
from agentcli.core.types import Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, decode_text, unified_diff

MAX_EDIT_FILE_BYTES = 8 * 1024 * 1024  # a file larger than this is not edited (and could not be undone)
MAX_EDIT_FILES = 100  # files one call may change


@record(frozen=True)
class FileEdit:
    """One file's change: `before`/`after` are its bytes, None where there is no file."""

    rel: str  # workspace-relative, POSIX
    before: bytes | None
    after: bytes | None


@record
class EditPlan:
    """Everything one call would change, and what to tell the model once it has."""

    edits: list[FileEdit] = field(default_factory=list)
    summary: str = ""

    def add(self, rel: str, before: bytes | None, after: bytes | None) -> None:
        """Record a change; a second change to the same file folds into the first."""
        for i, e in enumerate(self.edits):
            if e.rel == rel:
                self.edits[i] = FileEdit(rel, e.before, after)
                return
        if len(self.edits) >= MAX_EDIT_FILES:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"one call may change at most {MAX_EDIT_FILES} files",
                                 "Split the change into several calls.")
        self.edits.append(FileEdit(rel, before, after))

    def diff(self) -> str:
        """The approval view: one unified diff per file."""
        parts = []
        for e in self.edits:
            old = (e.before or b"").decode("utf-8", "replace")
            new = (e.after or b"").decode("utf-8", "replace")
            text = unified_diff(old, new, e.rel)
            if e.after is None:
                text = f"deleted {e.rel}\n" + text.replace(f"+++ b/{e.rel}", "+++ /dev/null", 1)
            parts.append(text)
        return "".join(parts) or "(no change)\n"


@record(frozen=True)
class TextFile:
    """A file read for editing: its path, raw bytes and text, and the line ending it uses."""

    rel: str
    raw: bytes
    text: str

    @property
    def crlf(self) -> bool:
        return "\r\n" in self.text


def resolve_rel(ctx: ToolContext, path: str) -> str:
    """The workspace-relative form of a path a tool may write (refused outside, in .git, through links)."""
    ws = ctx.workspace
    return ws.relative(ws.resolve(path, write=True))


def exists(ctx: ToolContext, path: str) -> bool:
    """Whether something is at a path a tool may write (the path rules apply first)."""
    return ctx.workspace.resolve(path, write=True).exists()


def read_text(ctx: ToolContext, path: str, *, hint: str = "") -> TextFile:
    """An existing UTF-8 text file within the size limit, or a clear error saying why not."""
    ws = ctx.workspace
    real = ws.resolve(path, write=True)
    rel = ws.relative(real)
    if not real.exists():
        raise ToolFailure.of(ErrorCode.NOT_FOUND, f"{rel} does not exist",
                             hint or "Check the path with list_files (paths are relative to the workspace root).")
    if real.is_dir():
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is a directory", "Give a file path.")
    data = ws.read_bytes(path, limit=MAX_EDIT_FILE_BYTES + 1)
    if len(data) > MAX_EDIT_FILE_BYTES:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is larger than {MAX_EDIT_FILE_BYTES // (1024 * 1024)} MB; "
                             "it is not edited here", "Edit it with bash (for example sed) if you must.")
    decode_text(data[:8192], rel)  # refuses binary files
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is not valid UTF-8; editing it here could corrupt it",
                             "Edit it with bash (for example sed or a script) if you must.") from None
    return TextFile(rel, data, text)


def check_size(rel: str, data: bytes) -> bytes:
    if len(data) > MAX_EDIT_FILE_BYTES:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"the new {rel} would be {len(data)} bytes; the limit is "
                             f"{MAX_EDIT_FILE_BYTES}", "Write smaller files.")
    return data


def apply(ctx: ToolContext, plan: EditPlan, *, create_dirs: bool = True) -> None:
    """Write the plan, all or nothing: a file that changed since it was planned stops the whole
    call before anything is written; a write that fails puts back the files already written."""
    ws = ctx.workspace
    for e in plan.edits:
        now = _current(ctx, e.rel)
        if now != e.before:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"{e.rel} changed since this edit was planned; nothing was written",
                                 "Read the file again and redo the edit.")
    done: list[FileEdit] = []
    try:
        for e in plan.edits:
            if e.after is None:
                _unlink(ctx, e.rel)
            else:
                ws.write_atomic(e.rel, check_size(e.rel, e.after), create_dirs=create_dirs)
            done.append(e)
    except BaseException:
        for e in reversed(done):
            try:
                if e.before is None:
                    _unlink(ctx, e.rel)
                else:
                    ws.write_atomic(e.rel, e.before, create_dirs=True)
            except (ToolFailure, OSError):
                continue  # best effort: the checkpoint still holds the old bytes for `agent undo`
        raise


def _current(ctx: ToolContext, rel: str) -> bytes | None:
    real = ctx.workspace.resolve(rel, write=True)
    if not real.exists():
        return None
    if real.is_dir():
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is a directory", "Give a file path.")
    return ctx.workspace.read_bytes(rel, limit=MAX_EDIT_FILE_BYTES + 1)


def _unlink(ctx: ToolContext, rel: str) -> None:
    """Remove one regular file, reached from the root without following links."""
    ws = ctx.workspace
    real = ws.resolve(rel, write=True)
    parts = os.path.relpath(real, ws.root).split(os.sep)
    try:
        dfd = ws._open_dir(parts[:-1])
    except OSError as exc:
        raise ToolFailure.of(ErrorCode.EXECUTION, f"could not delete {rel!r}: {exc.strerror or exc}") from None
    try:
        ws._verify_fd(dfd, real.parent, rel)
        st = os.stat(parts[-1], dir_fd=dfd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is not a regular file; only files are deleted")
        os.unlink(parts[-1], dir_fd=dfd)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ToolFailure.of(ErrorCode.EXECUTION, f"could not delete {rel!r}: {exc.strerror or exc}") from None
    finally:
        os.close(dfd)


class EditTool(BuiltinTool):
    """A tool that changes files through an EditPlan. Subclasses implement `plan` and `paths`;
    running, previewing and naming the paths for checkpoints are shared."""

    spec: Tool

    def plan(self, args: dict[str, Any], ctx: ToolContext) -> EditPlan:
        raise NotImplementedError

    def paths(self, args: dict[str, Any]) -> list[str]:
        """Paths the call names (before planning, so the checkpoint can snapshot them first)."""
        path = args.get("path")
        return [path] if isinstance(path, str) else []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        plan = self.plan(args, ctx)
        apply(ctx, plan, create_dirs=self.create_dirs(args))
        if ctx.result_mode == "detailed" and plan.edits:
            return plan.summary + "\n" + plan.diff()
        return plan.summary

    def create_dirs(self, args: dict[str, Any]) -> bool:
        """Whether missing parent folders are made (write_file lets the model say no)."""
        return True

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """An edit that cannot apply (bad path, no match) is refused with its error before anyone
        is asked; one that would apply asks with its diff."""
        plan = self.plan(args, ctx)
        return Judgement.ask(plan.diff()) if plan.edits else Judgement.allow()

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        try:
            return self.plan(args, ctx).diff()
        except ToolFailure as exc:
            return f"(cannot preview: {exc.error.message})"

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        try:
            return self.paths(args)
        except ToolFailure:
            return []


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def read_any(ctx: ToolContext, path: str) -> bytes:
    """An existing file's bytes (text or not) within the size limit, for a tool that replaces it whole."""
    rel = resolve_rel(ctx, path)
    if ctx.workspace.resolve(path, write=True).is_dir():
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is a directory", "Give a file path.")
    data = ctx.workspace.read_bytes(path, limit=MAX_EDIT_FILE_BYTES + 1)
    if len(data) > MAX_EDIT_FILE_BYTES:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} is larger than {MAX_EDIT_FILE_BYTES // (1024 * 1024)} MB; "
                             "it is not replaced here", "Use bash if you must.")
    return data


# ----- exact find-and-replace (edit_file, the text editor's str_replace) ---------------------

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
