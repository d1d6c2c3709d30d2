"""search: matching lines across workspace files, grouped by file, capped with a count of the rest.

Patterns come from a model, so they run on RE2 (google-re2): matching time is linear in the
line for every pattern, where a backtracking engine takes forever on `^(a+)+$`. RE2 has no
backreferences or lookaround; such a pattern gets a clear error the model can act on. The scan
runs in a worker thread that checks a stop flag between files and lines, so cancelling the
call (Ctrl-C) ends it at once.
"""

from __future__ import annotations

import fnmatch
import threading
import time
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_bool, arg_int, arg_str, clip_line, off_loop
from agentcli.tools.names import shown

MAX_FILE_BYTES = 5 * 1024 * 1024
MAX_FILES = 50_000
TIME_BUDGET_S = 20.0
MAX_LINE_CHARS = 10_000  # a regex only sees this much of one line (bounds pathological patterns)
_SKIP_DIRS = frozenset({".git", "node_modules", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache", ".tox"})


class Search(BuiltinTool):
    spec = Tool(
        name="search",
        description=(
            "Find lines that contain a text or regular-expression pattern in workspace files. Results are grouped "
            "by file: 'N:' marks a matching line, 'N-' a context line.\n"
            "Use it when: you need to know where something is defined or used (a function name, an error message, "
            "a config key) and do not know the file yet.\n"
            "Do not use it to read a whole file you already know (use read_file) or to list files by name (use "
            "list_files with pattern). Edge cases: type is 'literal' by default, so characters like ( or . match "
            "themselves; set type to 'regex' for regular expressions. Binary files, files over 5 MB and the folders "
            ".git, node_modules, __pycache__ and .venv are skipped. Results stop at max_results with a count of "
            "the rest.\n"
            'Example: {"pattern": "def load_config", "path": "src", "include_pattern": "*.py", "context_lines": 1}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Text to find, or a regular expression (RE2 syntax: no backreferences or lookaround)."},
                "path": {
                    "type": "string",
                    "description": "File or directory to search, relative to the workspace root (default '.').",
                },
                "type": {
                    "type": "string",
                    "enum": ["literal", "regex"],
                    "description": "How to read pattern: 'literal' text (default) or 'regex'.",
                },
                "case_sensitive": {"type": "boolean", "description": "Match case exactly (default true)."},
                "include_pattern": {
                    "type": "string",
                    "description": "Only search files whose name or relative path matches this glob, e.g. '*.py'.",
                },
                "exclude_pattern": {
                    "type": "string",
                    "description": "Skip files and folders matching this glob, e.g. 'tests/**' or '*.min.js'.",
                },
                "max_results": {
                    "type": "integer",
                    "description": "Most matching lines to return (default 50).",
                    "minimum": 1,
                    "maximum": 1000,
                },
                "context_lines": {
                    "type": "integer",
                    "description": "Lines of context before and after each match (default 2).",
                    "minimum": 0,
                    "maximum": 10,
                },
            },
            "required": ["pattern"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        pattern = arg_str(args, "pattern")
        if pattern == "":
            raise ToolFailure.of(ErrorCode.VALIDATION, "pattern is empty", "Pass the text you are looking for.")
        kind = arg_str(args, "type", "literal", choices=("literal", "regex"))
        rx = compile_pattern(pattern, literal=kind == "literal", case_sensitive=arg_bool(args, "case_sensitive", True))
        job = _Job(
            pattern=pattern,
            rx=rx,
            path=arg_str(args, "path", "."),
            include=arg_str(args, "include_pattern", None),
            exclude=arg_str(args, "exclude_pattern", None),
            max_results=arg_int(args, "max_results", 50, lo=1, hi=1000),
            context=arg_int(args, "context_lines", 2, lo=0, hi=10),
            ctx=ctx,
        )
        try:
            return await off_loop(job.run)
        finally:
            job.stop.set()  # cancelled (Ctrl-C) or done: the worker thread stops at its next check

    def touched_paths(self, args: dict[str, Any]) -> list[str]:
        path = args.get("path")
        return [path] if isinstance(path, str) else []


def compile_pattern(pattern: str, *, literal: bool, case_sensitive: bool) -> Any:
    """An RE2 pattern object (linear-time matching), or a validation error the model can fix."""
    import re2

    options = re2.Options()
    options.log_errors = False  # RE2 would otherwise write its own message to stderr
    options.case_sensitive = case_sensitive
    options.literal = literal
    try:
        return re2.compile(pattern, options)
    except (re2.error, ValueError) as exc:  # ValueError: a lone surrogate cannot become UTF-8
        detail = exc.args[0].decode("utf-8", "replace") if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ToolFailure.of(
            ErrorCode.VALIDATION, f"invalid or unsupported regular expression: {detail}",
            "Fix the expression (backreferences and lookaround are not supported: matching runs in linear "
            "time), or set type to 'literal' to search for the text as written.") from None


class _Job:
    def __init__(self, *, pattern: str, rx: Any, path: str, include: str | None, exclude: str | None,
                 max_results: int, context: int, ctx: ToolContext) -> None:
        self.pattern, self.stop = pattern, threading.Event()
        self.rx, self.path, self.include, self.exclude = rx, path, include, exclude
        self.max_results, self.context, self.ctx = max_results, context, ctx
        self.shown = 0
        self.total = 0
        self.files_with = 0
        self.skipped_large = 0
        self.out: list[str] = []
        self.used = 0
        self.full = False

    def _files(self) -> list[str]:
        ws = self.ctx.workspace
        real = ws.resolve(self.path, write=False)
        if real.is_file():
            return [ws.relative(real)]
        files: list[str] = []
        pruned: list[str] = []
        for e in ws.walk(self.path, max_depth=64, include_hidden=True, skip_dirs=_SKIP_DIRS):
            if self.stop.is_set():
                break
            if any(e.rel.startswith(p) for p in pruned):
                continue
            if e.kind == "dir":
                if self.exclude and _excluded(e.rel, e.name, self.exclude):
                    pruned.append(e.rel + "/")
                continue
            if e.kind != "file":
                continue
            if self.exclude and _excluded(e.rel, e.name, self.exclude):
                continue
            if self.include and not (fnmatch.fnmatchcase(e.name, self.include) or fnmatch.fnmatchcase(e.rel, self.include)):
                continue
            if e.size > MAX_FILE_BYTES:
                self.skipped_large += 1
                continue
            files.append(e.rel)
            if len(files) >= MAX_FILES:
                break
        return files

    def run(self) -> str:
        deadline = time.monotonic() + TIME_BUDGET_S
        timed_out = False
        budget = self.ctx.budget
        for rel in self._files():
            if self.stop.is_set():
                break
            if time.monotonic() > deadline:
                timed_out = True
                break
            try:
                data = self.ctx.workspace.read_bytes(rel, limit=MAX_FILE_BYTES)
            except ToolFailure:
                continue  # vanished or turned into a link since the walk: skip it
            if b"\x00" in data[:8192]:
                continue
            self._scan(rel, data.decode("utf-8", errors="replace").splitlines(), budget)
        return self._render(timed_out)

    def _scan(self, rel: str, lines: list[str], budget: int) -> None:
        hits = []
        for i, line in enumerate(lines):
            if self.rx.search(line[:MAX_LINE_CHARS]):
                hits.append(i)
            if not i % 4096 and self.stop.is_set():
                return
        if not hits:
            return
        self.total += len(hits)
        self.files_with += 1
        if self.full:
            return
        hit_set = set(hits)
        block: list[str] = [f"{shown(rel)}\n"]
        size = len(block[0].encode())
        shown_here = 0
        last = -1
        for i in hits:
            if i <= last:
                continue  # already printed as another match's context
            if self.shown + shown_here >= self.max_results:
                self.full = True
                break
            lo, hi = max(0, i - self.context, last + 1), min(len(lines) - 1, i + self.context)
            rows = []
            if last >= 0 and lo > last + 1:
                rows.append("  --\n")
            for k in range(lo, hi + 1):
                if k in hit_set and self.shown + shown_here >= self.max_results:
                    hi = k - 1
                    break
                rows.append(f"  {k + 1}{':' if k in hit_set else '-'} {clip_line(lines[k], min(500, self.ctx.line_limit))}\n")
                shown_here += k in hit_set
            row_bytes = sum(len(r.encode()) for r in rows)
            if self.used + size + row_bytes > budget:
                shown_here -= sum(1 for k in range(lo, hi + 1) if k in hit_set)
                self.full = True
                break
            block.extend(rows)
            size += row_bytes
            last = hi
        if shown_here:
            self.out.extend(block)
            self.used += size
            self.shown += shown_here

    def _render(self, timed_out: bool) -> str:
        where = self.path if self.path not in ("", ".") else "the workspace"
        if self.total == 0:
            note = " (stopped early: time limit)" if timed_out else ""
            return f"No matches for {shown(self.pattern)!r} in {shown(where)}{note}."
        text = "".join(self.out)
        rest = self.total - self.shown
        tail: list[str] = []
        if rest > 0:
            tail.append(f"[{self.shown} of {self.total} matching lines shown ({rest} more, in {self.files_with} "
                        "files in all). Narrow with path, include_pattern or a more specific pattern.]")
        elif self.ctx.result_mode == "detailed":
            tail.append(f"[{self.total} matching lines in {self.files_with} files]")
        if self.skipped_large:
            tail.append(f"[{self.skipped_large} files over 5 MB were skipped]")
        if timed_out:
            tail.append("[stopped early: time limit reached; narrow the search]")
        return text + "\n".join(tail)


def _excluded(rel: str, name: str, pattern: str) -> bool:
    if fnmatch.fnmatchcase(rel, pattern) or fnmatch.fnmatchcase(name, pattern):
        return True
    stem = pattern[:-3] if pattern.endswith("/**") else pattern.rstrip("/")
    return stem != pattern and (fnmatch.fnmatchcase(rel, stem) or fnmatch.fnmatchcase(name, stem))


TOOL = Search()
