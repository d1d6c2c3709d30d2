"""What a turn ends in: the step values the loop returns (another turn, an answer, a stop), the
run's counters, and how a checkpoint's final answer ends the run."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentcli.agent.approval import Decision
from agentcli.core.events import StopReason
from agentcli.core.types import Usage


@dataclass(slots=True)
class RunAgain:
    """The turn is over and the model must be asked again (tool results, a nudge, a retry)."""


@dataclass(slots=True)
class FinalAnswer:
    """The run is over with an answer (plain text, or a tool that ends the run)."""

    text: str
    stop: StopReason = StopReason.ANSWERED


@dataclass(slots=True)
class Stopped:
    """The run is over without an answer."""

    stop: StopReason
    error: str


Step = RunAgain | FinalAnswer | Stopped


class Stop(Exception):
    """Raised from deep inside a turn (a checkpoint answered "abort") to end the run."""

    def __init__(self, stop: StopReason, error: str) -> None:
        super().__init__(stop)
        self.step = Stopped(stop, error)


@dataclass(slots=True)
class RunState:
    """Counters of one run; the conversation itself lives in the Session."""

    turns: int = 0
    tools_run: int = 0
    invalid_turns: int = 0
    usage: Usage = field(default_factory=Usage)
    used_tools: bool = False
    incomplete_nudged: bool = False
    nudged: bool = False
    no_tools_next: bool = False


def stop_if_final(decision: Decision, hint: str = "") -> None:
    """An abort, or a refusal with nobody to ask (no terminal, no --yes), ends the run (exit 3);
    `hint` names the flag that would have approved it ahead of time."""
    if decision.action == "abort":
        raise Stop(StopReason.ABORTED, decision.text or "aborted at a checkpoint")
    if decision.action == "refuse":
        text = decision.text or "a needed approval was refused"
        raise Stop(StopReason.REFUSED, text + (f"; {hint}" if hint else ""))
