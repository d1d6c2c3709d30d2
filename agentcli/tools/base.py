"""What a built-in tool is: a spec the model sees, `run` for the work, `preview` for the checkpoint.

Argument readers here re-check types even though the loop validates against the
schema first: the executor can be called directly, and a wrong type must come back
as a structured VALIDATION error, not a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tool

if TYPE_CHECKING:
    from agentcli.config.schema import BashConfig
    from agentcli.tools.sandbox import Workspace

ResultMode = Literal["concise", "detailed"]
MAX_DIFF_LINES = 400


@dataclass(slots=True)
class ToolContext:
    """Everything a tool may use: the sandbox, the shell rules, the output budget."""

    workspace: Workspace
    bash: BashConfig
    max_output_bytes: int
    result_mode: ResultMode = "concise"
    key_env: tuple[str, ...] = ()  # the variables holding the session's API key: never passed to a command

    @property
    def budget(self) -> int:
        """Bytes of payload a tool should aim for; the rest of the cap is room for its notes and hints."""
        return max(64, self.max_output_bytes - min(600, self.max_output_bytes // 2))

    @property
    def line_limit(self) -> int:
        """Characters of one line shown before it is clipped."""
        return max(40, min(2000, self.budget // 4))


class BuiltinTool:
    """One built-in tool. Subclasses set `spec` and implement `run`."""

    spec: Tool

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        raise NotImplementedError

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """What the approval checkpoint shows; read-only tools show nothing."""
        return ""

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        """Paths this call would change, for the run summary."""
        return []


# ----- argument readers -------------------------------------------------------------------

_MISSING = object()


_T = TypeVar("_T")


async def off_loop(fn: Callable[..., _T], *args: Any) -> _T:
    """Run blocking file work in a worker thread, so read-only calls run in parallel. asyncio is
    imported here, when a tool runs, so that listing the tools does not load it."""
    import asyncio

    return await asyncio.to_thread(fn, *args)


def _bad(name: str, want: str, got: Any) -> ToolFailure:
    return ToolFailure.of(
        ErrorCode.VALIDATION, f"argument {name!r} must be {want}, got {type(got).__name__} {str(got)[:60]!r}",
        f"Pass {name} as {want}.", argument=name,
    )


def arg_str(args: dict[str, Any], name: str, default: Any = _MISSING, *, choices: tuple[str, ...] = ()) -> Any:
    value = args.get(name, None)
    if value is None:
        if default is _MISSING:
            raise ToolFailure.of(ErrorCode.VALIDATION, f"missing required argument {name!r}",
                                 f"Call the tool again with {name} set.", argument=name)
        return default
    if not isinstance(value, str):
        raise _bad(name, "a string", value)
    if choices and value not in choices:
        raise _bad(name, "one of " + ", ".join(choices), value)
    return value


def arg_int(args: dict[str, Any], name: str, default: Any, *, lo: int | None = None, hi: int | None = None) -> Any:
    value = args.get(name, None)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != int(value):
        raise _bad(name, "an integer", value)
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        rng = f"between {lo} and {hi}" if lo is not None and hi is not None else f">= {lo}" if lo is not None else f"<= {hi}"
        raise _bad(name, f"an integer {rng}", value)
    return value


def arg_bool(args: dict[str, Any], name: str, default: bool) -> bool:
    value = args.get(name, None)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise _bad(name, "true or false", value)
    return value


# ----- shared formatting ------------------------------------------------------------------

def unified_diff(old: str, new: str, rel: str) -> str:
    """A unified diff for the checkpoint, capped so a huge rewrite stays readable."""
    lines = list(difflib.unified_diff(
        old.splitlines(keepends=True), new.splitlines(keepends=True),
        fromfile="/dev/null" if old == "" else f"a/{rel}", tofile=f"b/{rel}", n=3,
    ))
    out = [ln if ln.endswith("\n") else ln + "\n\\ No newline at end of file\n" for ln in lines]
    if len(out) > MAX_DIFF_LINES:
        out = out[:MAX_DIFF_LINES] + [f"... {len(out) - MAX_DIFF_LINES} more diff lines not shown\n"]
    return "".join(out) or "(no change)\n"


def decode_text(data: bytes, rel: str) -> str:
    """UTF-8 text, or a VALIDATION error for binary content (NUL bytes)."""
    if b"\x00" in data[:8192]:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} looks binary ({len(data)} bytes); it is not shown as text",
                             "Inspect binary files with bash (for example `file` or `xxd | head`).")
    return data.decode("utf-8", errors="replace")


def clip_line(line: str, limit: int = 2000) -> str:
    if len(line) <= limit:
        return line
    return line[:limit] + f" … [{len(line) - limit} more characters on this line]"
