"""What a built-in tool is: a spec the model sees, `run` for the work, `judge` for the checkpoint.

Each tool judges its own calls (`BuiltinTool.judge` -> `Judgement`: allow / ask / refuse, with
the preview a person sees), so approval policy for a tool lives on the tool and the loop names
no tool. The session's standing grants (`--approve`, `--yes`, "always") are applied on top of
the judgement in one place, `agentcli.agent.approval.rule`.

Adding a tool: a module under `tools/builtin/` with a `TOOL` instance of a `BuiltinTool`
subclass, one row in `tools/registry.py` `BUILTINS`; declare on `spec` its tier, whether it
is read-only and whether it needs approval; override `judge` only when the answer depends
on the arguments (a command, a path, a host), `changed_paths` when it changes files (they
are checkpointed for `agent undo`), `touched_paths` when it reads files by path.

Argument readers here re-check types even though the loop validates against the
schema first: the executor can be called directly, and a wrong type must come back
as a structured VALIDATION error, not a traceback.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import field
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeVar, runtime_checkable

from agentcli.core.errors import ErrorCode, ToolError, ToolFailure
from agentcli.core.record import record
from agentcli.core.types import Tier, Tool

if TYPE_CHECKING:
    from agentcli.config.schema import BashConfig, FetchConfig
    from agentcli.tools.sandbox import Workspace

ResultMode = Literal["concise", "detailed"]
MAX_DIFF_LINES = 400
JudgeDecision = Literal["allow", "ask", "refuse"]
_T = TypeVar("_T")


@record(frozen=True)
class Judgement:
    """A tool's own verdict on one call, before it runs.

    "allow": runs without asking; "ask": a person approves it (unless a standing grant such as
    --yes covers it); "refuse": never runs, `reason` and `hint` go back to the model. `preview`
    is what the approval prompt shows (a diff, a command, a URL). `raise_tier` marks a call whose
    approval is the tier checkpoint itself (the tier request): approved, the session's tier rises.
    """

    decision: JudgeDecision
    preview: str = ""
    reason: str = ""
    hint: str = ""
    raise_tier: Tier | None = None
    error: ToolError | None = None  # a refusal's structured error, when the tool has a precise one

    @classmethod
    def allow(cls, preview: str = "") -> Judgement:
        return cls("allow", preview)

    @classmethod
    def ask(cls, preview: str = "", reason: str = "") -> Judgement:
        return cls("ask", preview, reason)

    @classmethod
    def refuse(cls, reason: str, hint: str = "") -> Judgement:
        return cls("refuse", reason=reason, hint=hint)


@runtime_checkable
class SessionResource(Protocol):
    """Per-session tool state that holds something running (background processes): listed in the
    run summary and closed with the session."""

    def summary(self) -> list[str]: ...

    async def aclose(self) -> None: ...


@record
class ToolContext:
    """Everything a tool may use: the sandbox, the shell rules, the output budget."""

    workspace: Workspace
    bash: BashConfig
    max_output_bytes: int
    result_mode: ResultMode = "concise"
    key_env: tuple[str, ...] = ()  # the variables holding the session's API key: never passed to a command
    fetch: FetchConfig | None = None  # fetch_url's profile settings (None: the defaults)
    # Events a tool reports as it runs (a plan update); the loop passes them on after the call.
    events: list[Any] = field(default_factory=list)
    _kept: dict[str, Any] = field(default_factory=dict)

    def kept(self, key: str, factory: Callable[[], _T]) -> _T:
        """Per-session state a tool keeps between calls (its plan, its processes), made on first use."""
        if key not in self._kept:
            self._kept[key] = factory()
        return self._kept[key]

    def all_kept(self) -> list[Any]:
        return list(self._kept.values())

    @property
    def budget(self) -> int:
        """Bytes of payload a tool should aim for; the rest of the cap is room for its notes and hints."""
        return max(64, self.max_output_bytes - min(600, self.max_output_bytes // 2))

    @property
    def line_limit(self) -> int:
        """Characters of one line shown before it is clipped."""
        return max(40, min(2000, self.budget // 4))


@record(frozen=True)
class TierView:
    """What a tool may know when it is offered: the tier now, the cap, and which (allowed) tools
    each tier between them would add."""

    tier: Tier
    cap: Tier
    locked: dict[Tier, list[str]] = field(default_factory=dict)


class BuiltinTool:
    """One built-in tool. Subclasses set `spec` and implement `run`."""

    spec: Tool
    # False: a call changes no workspace file (only the tool's or the session's own state), so
    # the session takes no before/after snapshot of the workspace around it.
    changes_files: bool = True

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        raise NotImplementedError

    def changes_files_in(self, args: dict[str, Any]) -> bool:
        """Whether this call may change workspace files (a tool with a read-only command, such as
        the text editor's `view`, says no for that call only)."""
        return self.changes_files

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        """What the approval checkpoint shows; read-only tools show nothing."""
        return ""

    def offered(self, view: TierView) -> Tool | None:
        """The spec to send the model now, or None to leave it out (a tool about the tiers
        themselves is shaped by them); most tools are always the same."""
        return self.spec

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """This call's verdict. The default reads the spec: a tool that `needs_approval` asks with
        its preview, any other is allowed. A `ToolFailure` raised here refuses the call with its
        error (a path outside the workspace, a denied command)."""
        if not self.spec.needs_approval:
            return Judgement.allow()
        return Judgement.ask(self.preview(args, ctx))

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        """Workspace paths this call would change (checkpointed for undo, listed in the run summary).
        Empty for a tool that changes nothing, or one that may change anything (a shell): the
        session then compares a bounded snapshot of the workspace before and after."""
        return []

    def checkpoint_paths(self, args: dict[str, Any], ctx: ToolContext) -> list[str] | None:
        """The files to snapshot before and after the call (for `agent undo`), taken once before it
        runs; None (or empty) snapshots the whole workspace (bounded). A tool that changes folders
        lists the files inside them here."""
        return self.changed_paths(args) or None

    def touched_paths(self, args: dict[str, Any]) -> list[str]:
        """Workspace paths this call reads or writes (so AGENTS.md files on the way are loaded)."""
        return self.changed_paths(args)


# ----- argument readers -------------------------------------------------------------------

_MISSING = object()


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
