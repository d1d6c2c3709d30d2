"""What a session learns about its model while it runs (seed 004 layers 1 and 4).

Three rungs of the fallback ladder, each remembered per model and endpoint:
a server that rejects native tools -> prompt emulation; a native-tools model that
writes its calls as text -> parse that dialect first; an emulation style that keeps
failing -> prompt the next style.

The adaptation reads and changes the session it belongs to only through `Adaptable`, the few
things it needs (the model, the endpoint, the plan, the learned store, the layers, renegotiate),
so this module imports nothing of the session: the Session holds an Adaptation, never the reverse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.agent.layers import Layers
    from agentcli.config.schema import Profile
    from agentcli.core.types import ParsedResponse, ToolCall
    from agentcli.models.learned import LearnedStore
    from agentcli.providers.base import Provider
    from agentcli.wire.types import WirePlan


class Adaptable(Protocol):
    """What an adaptation reads of its session, and the one way it changes it (renegotiate)."""

    @property
    def profile(self) -> Profile: ...
    @property
    def provider(self) -> Provider: ...
    @property
    def plan(self) -> WirePlan: ...
    @property
    def learned(self) -> LearnedStore | None: ...
    @property
    def layers(self) -> Layers: ...

    def renegotiate(self, extra_learned: dict[str, Any] | None = None) -> None: ...


@record(slots=False)
class Adaptation:
    """The session's counters for the fallback ladder: how often each rung's trigger was seen."""

    text_call_turns: int = 0  # native-tools turns whose calls came back as text
    emulation_failures: int = 0  # emulated turns in a row whose call attempt could not be used
    unread_call: bool = False  # the last emulated reply held call markup but no call was read

    def fall_back_to_emulation(self, s: Adaptable, reason: str) -> str:
        """The server rejected native tools: emulate them from now on, and remember."""
        if s.learned is not None:
            s.learned.record(s.profile.model, s.provider.url, "native_tools", False, reason[:200])
        s.renegotiate(extra_learned={"native_tools": False})
        return (
            f"{s.profile.model} at {s.provider.url} rejected native tools; "
            f"switched to prompt emulation ({s.plan.dialect}) and remembered it"
        )

    def tool_choice_rejected(self, s: Adaptable, reason: str) -> str:
        """The server fails requests that force a call: ask with "auto" from now on, and remember."""
        if s.learned is not None:
            s.learned.record(s.profile.model, s.provider.url, "supports_tool_choice_required", False, reason[:200])
        s.renegotiate(extra_learned={"supports_tool_choice_required": False})
        return f"{s.profile.model} at {s.provider.url} fails forced tool calls; using tool_choice auto and remembered it"

    def note_dialects(self, s: Adaptable, calls: list[ToolCall]) -> str | None:
        """A native-tools model that writes its calls as text: after it happens twice,
        learn its dialect for this endpoint so that parser is tried first."""
        text = [c.dialect for c in calls if c.dialect and not c.dialect.startswith("native")]
        if not s.plan.native_tools or not text or not s.layers.fallback:
            return None
        self.text_call_turns += 1
        if self.text_call_turns != 2 or s.learned is None:
            return None
        s.learned.record(s.profile.model, s.provider.url, "text_dialect", text[0],
                         "the model wrote native-tool calls as text")
        s.renegotiate()
        return f"{s.profile.model} writes its tool calls as {text[0]} text; parsing that first from now on"

    def note_emulation(self, s: Adaptable, response: ParsedResponse) -> str | None:
        """Emulation ladder: when the prompted style fails two turns in a row (call markup nobody
        could read, or only broken calls), prompt the next style, remember it, and say so."""
        from agentcli.wire import failed_call_attempt, next_emulation_style, style_is_pinned

        self.unread_call = False
        if s.plan.native_tools or not s.plan.dialect:
            return None
        if not failed_call_attempt(response):
            self.emulation_failures = 0
            return None
        self.unread_call = not response.tool_calls
        self.emulation_failures += 1
        if self.emulation_failures < 2 or style_is_pinned(s.profile.tools) or not s.layers.fallback:
            return None
        old, new = s.plan.dialect, next_emulation_style(s.plan.dialect)
        if new is None:
            return None
        self.emulation_failures = 0
        why = f"{old} tool calls failed twice in a row"
        if s.learned is not None:
            s.learned.record(s.profile.model, s.provider.url, "emulation_style", new, why)
        s.renegotiate(extra_learned={"emulation_style": new, "native_tools": False})
        kept = " and remembered it" if s.learned is not None else ""
        return f"{s.profile.model}: {why}; prompting {s.plan.dialect} tool calls from now on{kept}"
