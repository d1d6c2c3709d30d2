"""Who answers checkpoints. The loop asks an Approver; the terminal UI, `--yes` and
non-interactive runs are three implementations of the same protocol."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agentcli.core.events import Checkpoint, CheckpointKind

Action = Literal["yes", "no", "always", "edit", "abort", "guidance", "retry", "skip"]
ApproveMode = Literal["ask", "edits", "all"]


@dataclass(slots=True)
class Decision:
    action: Action
    arguments: dict[str, Any] | None = None  # for "edit": the arguments that will run
    text: str = ""  # an answer (ask_user), guidance, or why it was refused


class Approver(Protocol):
    async def decide(self, checkpoint: Checkpoint) -> Decision: ...


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
        return Decision(
            "no",
            text="There is no terminal to ask for approval and --yes was not given, so this was not run.",
        )
