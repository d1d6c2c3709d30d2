"""Who answers checkpoints, and the one place approval policy is decided.

Each tool judges its own calls (`BuiltinTool.judge`: allow / ask / refuse with a preview);
`rule` then applies the session's standing grants on top (--approve edits, --yes, "always",
no OS sandbox). Tiers follow `TierGrant`: the run starts at `start_tier`, rises only through
the tier checkpoint, never passes the cap (`--tier`, else the profile's `max_tier`), and rises
unasked up to what `--approve edits` (walk) or `--yes` / `--approve all` (the cap) pre-approve.

The loop asks an Approver; the terminal UI, `--yes` and non-interactive runs are three
implementations of the same protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.events import Checkpoint, CheckpointKind
from agentcli.core.record import record
from agentcli.core.types import Tier

if TYPE_CHECKING:
    from agentcli.core.types import Tool
    from agentcli.tools.base import Judgement

# "refuse": no, and nobody can be asked again (no terminal, no --yes): the run ends with exit 3.
Action = Literal["yes", "no", "always", "edit", "abort", "guidance", "retry", "skip", "refuse"]
ApproveMode = Literal["ask", "edits", "all"]
Ruling = Literal["run", "ask", "refuse"]
CapSource = Literal["--tier", "profile"]

# The flag that approves a tier ahead of time (named in refusals; only a flag that would help).
PREAPPROVE_FLAG = {Tier.WALK: "--approve edits", Tier.RUN: "--yes"}


@record
class Decision:
    action: Action
    arguments: dict[str, Any] | None = None  # for "edit": the arguments that will run
    text: str = ""  # an answer (ask_user), guidance, or why it was refused


class Approver(Protocol):
    async def decide(self, checkpoint: Checkpoint) -> Decision: ...


@record(frozen=True)
class TierGrant:
    """How far a session's tier may rise and how much of that is approved ahead of time."""

    cap: Tier
    preapproved: Tier  # rises to here without asking (the start tier when nothing is pre-approved)
    cap_from: CapSource = "profile"
    profile_max: Tier = Tier.RUN

    @classmethod
    def of(cls, mode: str, start: Tier, cap: Tier, cap_from: CapSource, profile_max: Tier) -> TierGrant:
        pre = {"all": cap, "edits": min(Tier.WALK, cap)}.get(mode, start)
        return cls(cap, max(pre, start), cap_from, profile_max)

    def over_cap(self, needed: Tier, what: str) -> ToolError:
        """The refusal for a tier above the cap: names the flag that would allow it, or the profile
        setting when no flag can (a flag never passes the profile's max_tier)."""
        if self.cap_from == "--tier" and needed <= self.profile_max:
            fix = f"the user can run again with --tier {needed.label}"
            where = f"--tier {self.cap.label}"
        else:
            fix = f"the user can raise max_tier under [profiles.NAME.tools] to {needed.label!r}"
            where = f"the profile's max_tier ({self.profile_max.label})"
        return ToolError.of(
            ErrorCode.PERMISSION,
            f"{what} needs the {needed.label} tier, above this run's cap of {self.cap.label} (set by {where}); "
            f"it cannot be approved in this run ({fix})",
            "Reach the goal with the tools offered, or say in your answer what you would need.",
            tier=self.cap.label, needed=needed.label,
        )

    def unapproved_hint(self, needed: Tier) -> str:
        """Which flag approves `needed` ahead of time, for a run with nobody to ask."""
        if needed > self.cap:
            return ""
        flag = PREAPPROVE_FLAG.get(needed, "--yes")
        return f"{flag} approves it ahead of time" + (" (so does --yes)" if flag != "--yes" else "")


def rule(judgement: Judgement, spec: Tool, *, name: str, mode: str, always: set[str], contained: bool) -> Ruling:
    """The tool's judgement with the session's standing grants applied: run, ask a person, or refuse."""
    if judgement.decision == "refuse":
        return "refuse"
    if judgement.decision == "allow" and not spec.sandboxed:
        return "run"
    if spec.sandboxed and not contained:
        return "ask"  # no OS sandbox: a human sees every command, whatever rules or --yes say
    if judgement.decision == "allow" or name in always or mode == "all":
        return "run"
    if mode == "edits" and not spec.read_only and spec.tier <= Tier.WALK:
        return "run"
    return "ask"


class PolicyApprover:
    """Answers without a human: `approve_all` (--yes) or refuse at once (no terminal)."""

    def __init__(self, approve_all: bool, *, allow_uncontained: bool = False) -> None:
        self.approve_all = approve_all
        self.allow_uncontained = allow_uncontained  # --dangerously-run-unsandboxed

    async def decide(self, checkpoint: Checkpoint) -> Decision:
        kind = checkpoint.kind
        if kind is CheckpointKind.ASK_USER:
            return Decision("guidance", text="No user is available to answer. Proceed with your best judgement and say what you assumed.")
        if kind in (CheckpointKind.STUCK, CheckpointKind.FAILURE):
            return Decision("abort", text="non-interactive run")
        if checkpoint.uncontained and not self.allow_uncontained:
            return Decision("no", text="The OS sandbox is not available here, so shell commands run only when a "
                                       "person approves them (--yes does not); run `agent doctor` to see why.")
        if self.approve_all:
            return Decision("yes")
        what = checkpoint.call.name if checkpoint.call is not None else checkpoint.kind.value
        return Decision("refuse", text=f"{what} needs approval, but there is no terminal to ask")
