"""The values the loop's decisions return, so the driver (`agent/loop.py`) only carries them out.

A turn ends in a `Step` (another turn, an answer, a stop). Each tool call is decided in phases
(`agent/decide.py`) whose result is a `CallDecision`: a final one (`Run`, `Refuse`, `Answered`,
`End`) or one that needs the driver first (`Ask` a person, `Grant` a tier), each carrying what
follows it. Nothing here does I/O or raises to steer the run: an abort is an `End` value.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field

from agentcli.agent.approval import Decision
from agentcli.core.errors import ToolError
from agentcli.core.events import Checkpoint, Notice, StopReason
from agentcli.core.record import record
from agentcli.core.types import Tier, ToolCall, Usage

# -- how a turn ends ---------------------------------------------------------------------


@record
class RunAgain:
    """The turn is over and the model must be asked again (tool results, a nudge, a retry)."""


@record
class FinalAnswer:
    """The run is over with an answer (plain text, or a tool that ends the run)."""

    text: str
    stop: StopReason = StopReason.ANSWERED


@record
class Stopped:
    """The run is over without an answer."""

    stop: StopReason
    error: str


Step = RunAgain | FinalAnswer | Stopped


@record
class Nudge:
    """Another turn, after this message to the model (a reminder, a retry request)."""

    message: str


TurnEnd = Step | Nudge


# -- what becomes of one tool call ---------------------------------------------------------


@record
class Run:
    """Run the call (perhaps as a person edited it)."""

    call: ToolCall
    parallel: bool = False  # read-only and asked about nothing: may run beside its neighbours
    always: bool = False  # a person answered "always": the tool runs unasked from now on


@record
class Refuse:
    """The call does not run; `error` is its result for the model."""

    error: ToolError
    notice: Notice | None = None  # also said to the person (a repeat the guard refused)
    declined: Tier | None = None  # a person declined this tier: not asked again this run


@record
class Answered:
    """A question to the person (ask_user) was answered: the answer is the call's result."""

    text: str


@record
class End:
    """The run ends here (an abort, or a refusal with nobody to ask)."""

    step: Stopped


@record
class Passed:
    """The call passed this phase; the next phase decides."""


@record
class Ask:
    """A checkpoint for a person (or the approval policy); `then` decides from the answer."""

    checkpoint: Checkpoint
    then: Callable[[Decision], CallDecision]


@record
class Grant:
    """Raise the session's tier, say so, then decide again with `then`."""

    tier: Tier
    notice: Notice
    then: Callable[[], CallDecision]
    seen: ToolCall | None = None  # a person saw this call at the tier checkpoint: not asked twice


CallDecision = Run | Refuse | Answered | End | Passed | Ask | Grant
Final = Run | Refuse | Answered | End | Passed


@record
class RunState:
    """Counters of one run (the turn decisions read and advance them); the conversation itself
    lives in the Session."""

    turns: int = 0
    tools_run: int = 0
    invalid_turns: int = 0
    usage: Usage = field(default_factory=Usage)
    used_tools: bool = False
    incomplete_nudged: bool = False
    nudged: bool = False
    no_tools_next: bool = False
    outcome: Step = field(default_factory=RunAgain)  # what the latest turn ended in


@record
class RunMemory:
    """What the people answered in this run that later decisions must respect."""

    # The call approved together with its tier escalation (asked once). Held by identity, never by
    # id: a model may reuse ids, and a reused id must not skip the next approval.
    approved: ToolCall | None = None
    declined: set[Tier] = field(default_factory=set)  # tiers a person refused: not asked again


def final_stop(decision: Decision, hint: str = "") -> End | None:
    """An abort, or a refusal with nobody to ask (no terminal, no --yes), ends the run (exit 3);
    `hint` names the flag that would have approved it ahead of time."""
    if decision.action == "abort":
        return End(Stopped(StopReason.ABORTED, decision.text or "aborted at a checkpoint"))
    if decision.action == "refuse":
        text = decision.text or "a needed approval was refused"
        return End(Stopped(StopReason.REFUSED, text + (f"; {hint}" if hint else "")))
    return None
