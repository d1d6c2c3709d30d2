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
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tool
from agentcli.tools.base import BuiltinTool, ToolContext, decode_text, unified_diff

MAX_EDIT_FILE_BYTES = 8 * 1024 * 1024  # a file larger than this is not edited (and could not be undone)
MAX_EDIT_FILES = 100  # files one call may change


@dataclass(frozen=True, slots=True)
class FileEdit:
    """One file's change: `before`/`after` are its bytes, None where there is no file."""

    rel: str  # workspace-relative, POSIX
    before: bytes | None
    after: bytes | None


@dataclass(slots=True)
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


@dataclass(frozen=True, slots=True)
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
        return True

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
