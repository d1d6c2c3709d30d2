"""What a scenario is and what its check reads: the types every scenario table builds on.

Below the tables (`scenarios`, `edit_scenarios`), so a table of scenarios imports these and the
main table imports the others' entries, with no module importing back up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentcli.core.events import Done, Notice, ToolFinished
from agentcli.providers.scripted.model import Policy


@dataclass(slots=True)
class Outcome:
    """What a trial left behind, for the check."""

    workspace: Path
    root: Path  # the workspace's parent: files outside the workspace live here
    events: list[Any]
    done: Done
    outside_before: dict[str, bytes]

    @property
    def answer(self) -> str:
        return self.done.answer

    def finished(self) -> list[ToolFinished]:
        return [e for e in self.events if isinstance(e, ToolFinished)]

    def notices(self, code: str) -> list[Notice]:
        return [e for e in self.events if isinstance(e, Notice) and e.code == code]

    def read(self, rel: str) -> str | None:
        p = self.workspace / rel
        return p.read_text(encoding="utf-8") if p.is_file() else None


Check = Callable[[Outcome], "str | None"]  # None = passed, else why it failed


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    description: str
    goal: str
    policy: Policy
    check: Check
    tools: frozenset[str]  # the tools a correct run calls (tool-selection accuracy)
    files: dict[str, str] = field(default_factory=dict)
    outside: dict[str, str] = field(default_factory=dict)  # files next to the workspace, never to change
    tier: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)
    preludes: tuple[dict[str, Any], ...] = ()  # raw provider turns served first (faults)
    # The layers this scenario exercises: turning any other one off should make no difference
    # to a clean model (the eval reports it when it does). Empty: a control scenario.
    layers: frozenset[str] = frozenset()
    rejects_native_tools: bool = False  # the endpoint refuses requests carrying native tools
    edit_tool: str | None = None  # the edit tool form the trial offers (None: the model's own)
    prepare: Callable[[Path], None] | None = None  # sets up the workspace beyond `files` (a git repository)
    bash: dict[str, Any] = field(default_factory=dict)  # [bash] settings for the trial (network for a server)


def answered(o: Outcome) -> str | None:
    """Why the run did not end with an answer, or None: the first thing every check asks."""
    if o.done.stop not in ("answered", "submitted"):
        return f"run ended {o.done.stop}: {o.done.error or ''}".strip()
    return None
