"""The NativeApi interface: one HTTP API's tool definitions, messages, calls and results."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.events import StreamEvent
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import NativeParse, RequestSettings, WirePlan


class NativeStream:
    """Per-stream state: feed decoded provider chunks, then finish().

    feed() returns TEXT / THINKING / TOOL_START / TOOL_ARGS events for native fields.
    finish() must return exactly what parse_body() returns for the equivalent
    non-streamed body (the split-invariance property the tests check).
    """

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        raise NotImplementedError

    def finish(self) -> NativeParse:
        raise NotImplementedError

    _done: bool = False  # set by feed() when the API signals the end of the message

    @property
    def complete(self) -> bool:
        """True once the API signalled the end of the message (stop event / [DONE] / done:true)."""
        return self._done


class NativeApi:
    """Stateless adapter for one API shape. History arrives in internal form and is
    rendered fresh per request, so a conversation can move between APIs."""

    name: str = ""
    forces_tool_choice: bool = False  # the API can say "call a tool" / "call this tool" (tool_choice)
    strict_schemas: bool = False  # the API takes `strict: true` tool schemas (constrained decoding)

    def looks_like(self, body: Any) -> bool:
        """True when a response body has this API's shape (for `agent parse` without --provider)."""
        return False

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> Any:
        raise NotImplementedError

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        """The complete JSON body. With plan.native_tools False, `messages` are already
        plain (calls and results rendered as text) and no tools field is sent."""
        raise NotImplementedError

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        """Native fields of a non-streamed response body. Never raises on odd bodies."""
        raise NotImplementedError

    def new_stream(self) -> NativeStream:
        raise NotImplementedError
