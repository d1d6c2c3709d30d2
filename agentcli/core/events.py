"""Typed events: what the loop and the stream assembler report as they work.

The terminal renderer, `--json` output, transcripts and tests all consume these;
no core code prints.
"""

from __future__ import annotations

from dataclasses import field
from enum import Enum
from typing import Any

from agentcli.core.record import record
from agentcli.core.types import ParsedResponse, ToolCall, ToolResult, Usage


class StreamKind(str, Enum):
    TEXT = "text"
    THINKING = "thinking"
    TOOL_START = "tool_start"  # as soon as the tool name is known
    TOOL_ARGS = "tool_args"  # partial arguments so far (closed with partial-JSON parsing)
    TOOL_END = "tool_end"  # complete arguments
    DONE = "done"


@record
class StreamEvent:
    kind: StreamKind
    text: str = ""  # TEXT / THINKING delta
    index: int = 0  # which tool call in this turn (TOOL_*)
    call_id: str | None = None
    name: str | None = None
    arguments: dict[str, Any] | None = None  # TOOL_ARGS: best-effort partial; TOOL_END: complete
    call: ToolCall | None = None  # TOOL_END
    response: ParsedResponse | None = None  # DONE


@record
class TurnStarted:
    turn: int
    model: str


@record
class ToolStarted:
    call: ToolCall


@record
class ToolFinished:
    call: ToolCall
    result: ToolResult
    elapsed_ms: float = 0.0


@record
class RetryScheduled:
    """A provider request will be retried (rate limit, 5xx, reset...)."""

    reason: str
    attempt: int
    delay_s: float


@record
class Notice:
    """A warning or information line for the user (repair applied, tier raised...)."""

    level: str  # info | warning | error
    message: str
    code: str = ""


@record
class PlanUpdated:
    """The model's plan changed (the todo tool): each item's text and status, shown live."""

    items: list[dict[str, str]] = field(default_factory=list)  # {"content": ..., "status": pending|in_progress|done}


class CheckpointKind(str, Enum):
    APPROVE_TOOL = "approve_tool"
    TIER_ESCALATION = "tier_escalation"
    ASK_USER = "ask_user"
    STUCK = "stuck"
    FAILURE = "failure"


@record
class Checkpoint:
    """A decision the loop needs from a human (or from the approval policy)."""

    kind: CheckpointKind
    message: str
    call: ToolCall | None = None
    preview: str = ""  # diff for edits, command + directory for bash
    options: tuple[str, ...] = ()
    uncontained: bool = False  # would run outside the OS sandbox: a policy may not say yes for a human


class StopReason(str, Enum):
    """Why a run ended. A str enum, so `done.stop == "answered"` and JSON output read as before."""

    ANSWERED = "answered"
    SUBMITTED = "submitted"
    ERROR = "error"
    MAX_TURNS = "max_turns"
    STUCK = "stuck"
    ABORTED = "aborted"
    REFUSED = "refused"  # a needed approval was refused and nobody could be asked (no terminal, no --yes)
    INCOMPLETE = "incomplete"  # the reply was empty or cut at the length limit, twice
    INTERRUPTED = "interrupted"

    def __str__(self) -> str:
        return self.value


@record
class Done:
    """The run ended. `stop` is a step value, never a magic sentence."""

    stop: StopReason
    answer: str = ""
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    tools_run: int = 0
    files_changed: list[str] = field(default_factory=list)
    elapsed_s: float = 0.0
    error: str | None = None
    hook_files: list[str] = field(default_factory=list)  # changed files git runs later (hooks): read them first
    background: list[str] = field(default_factory=list)  # processes the tools keep running (stopped with the session)


@record
class SessionStarted:
    """Before the first turn: which session, profile, model, wire plan, tier and folder this run uses.
    Emitted by the command, not the loop (the run header; `session_start` in --json)."""

    facts: dict[str, Any] = field(default_factory=dict)


AgentEvent = (StreamEvent | TurnStarted | ToolStarted | ToolFinished | RetryScheduled | Notice | PlanUpdated
              | Checkpoint | Done)
