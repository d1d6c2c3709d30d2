"""What the scripted model sees when asked for its next turn: the goal, its past calls and their
results, read from the conversation. Apart from the policies (`model`) so the built-in demo,
which needs only this, does not build the scenario machinery it never uses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.record import record
from agentcli.core.types import Role

if TYPE_CHECKING:
    from agentcli.core.types import Message, ToolCall, ToolResult


@record
class Exchange:
    """One past assistant turn and what came back for it."""

    text: str
    calls: list[ToolCall]
    results: list[ToolResult]

    @property
    def model_fault(self) -> bool:
        """A result says the call itself was wrong (bad arguments, unknown tool, too large)."""
        return any(is_validation(r) for r in self.results)


@record
class View:
    """What the model can see when asked for its next turn."""

    goal: str
    exchanges: list[Exchange]
    last_user: str
    step: int = 0
    attempt: int = 0

    def results(self, name: str | None = None) -> list[ToolResult]:
        return [r for e in self.exchanges for r in e.results if name is None or r.tool_name == name]

    def ok_text(self, name: str | None = None) -> str:
        """Every successful result's content (of one tool, or all), joined: what the model has learned."""
        return "\n".join(r.content for r in self.results(name) if r.ok)


def is_validation(r: ToolResult) -> bool:
    """The result says the call itself was the model's mistake (it is resent cleanly, not repeated)."""
    return not r.ok and isinstance(r.error, ToolError) and r.error.code is ErrorCode.VALIDATION


def read_view(messages: list[Message]) -> View:
    """Goal, exchanges and the latest user line from internal history (step/attempt not set)."""
    goal = ""
    exchanges: list[Exchange] = []
    last_user = ""
    for m in messages:
        if m.role is Role.USER:
            goal = goal or m.text
            last_user = m.text
        elif m.role is Role.ASSISTANT:
            exchanges.append(Exchange(m.text, list(m.tool_calls), []))
            last_user = ""
        elif m.role is Role.TOOL and exchanges:
            exchanges[-1].results.extend(m.tool_results)
    return View(goal, exchanges, last_user)
