"""Wire formats (layer 3): tools out, calls in, results back, for every API and text dialect.

Public surface (everything else is private to this package):
    negotiate(...)            -> WirePlan
    build_request(...)        -> request body for the plan's API
    parse_response(...)       -> ParsedResponse from a non-streamed body
    new_stream(...)           -> StreamAssembler (feed provider chunks, get StreamEvents)
    parse_text(...)           -> ParsedResponse from raw assistant text (agent parse, eval)

Imports happen inside the functions so `import agentcli.wire` stays cheap on start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.types import Message, ParsedResponse, Tool
    from agentcli.wire.stream import StreamAssembler
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

# Body keys that carry history, tools or the model: a profile's [request] table may not replace them.
RESERVED_KEYS = frozenset({"model", "messages", "tools", "contents", "system", "input"})

__all__ = ["RESERVED_KEYS", "build_request", "negotiate", "new_stream", "parse_response", "parse_text"]


def negotiate(*, api: str, capability: Any, tools_cfg: Any, learned: dict[str, Any] | None = None) -> WirePlan:
    """The WirePlan for this API, model capability, profile tools settings and learned facts."""
    from agentcli.wire.negotiator import negotiate as _negotiate

    return _negotiate(api=api, capability=capability, tools_cfg=tools_cfg, learned=learned)


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def apply_overrides(body: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """Profile [request] values merged into the body (nested tables merge key by key)."""
    for key in overrides:
        if key in RESERVED_KEYS:
            raise ValueError(f"request override {key!r} is reserved (it carries the model, history or tools); "
                             f"remove it from the profile's [request] table")
    return _merge(body, overrides)


def build_request(plan: WirePlan, messages: list[Message], tools: list[Tool], settings: RequestSettings) -> dict[str, Any]:
    """The complete request body. Emulated plans get plain history (calls and results as text,
    tool prompt in the system message) and send no tools field."""
    from agentcli.wire import native

    api = native.get(plan.api)
    if plan.native_tools:
        body = api.build_body(messages, tools, plan, settings)
    else:
        from agentcli.wire.emulate import render_plain_history

        offered = [] if plan.tool_choice == "none" else tools
        plain = render_plain_history(messages, plan.dialect or "json_block", offered, compact=plan.compact)
        body = api.build_body(plain, [], plan, settings)
    return apply_overrides(body, settings.overrides) if settings.overrides else body


def parse_response(plan: WirePlan, body: dict[str, Any], ctx: ParseContext) -> ParsedResponse:
    """A non-streamed response body -> ParsedResponse (native fields, then text dialects)."""
    from agentcli.wire import native
    from agentcli.wire.stream import complete_parse

    return complete_parse(plan, native.get(plan.api).parse_body(body), ctx)


def new_stream(plan: WirePlan, ctx: ParseContext) -> StreamAssembler:
    """A fresh assembler for one streamed response."""
    from agentcli.wire.stream import StreamAssembler

    return StreamAssembler(plan, ctx)


def parse_text(text: str, ctx: ParseContext, parsers: tuple[str, ...] | None = None) -> ParsedResponse:
    """Raw assistant text -> ParsedResponse (used by `agent parse` and eval)."""
    from agentcli.wire.pipeline import parse_text as _parse_text

    return _parse_text(text, ctx, parsers)
