"""Wire formats (layer 3): tools out, calls in, results back, for every API and text dialect.

Public surface (everything else is private to this package):
    negotiate(...)            -> WirePlan
    build_request(...)        -> request body for the plan's API
    parse_response(...)       -> ParsedResponse from a non-streamed body
    new_stream(...)           -> StreamAssembler (feed provider chunks, get StreamEvents)
    parse_text(...)           -> ParsedResponse from raw assistant text (agent parse, eval)
and, read lazily from the modules that own them (the names in `_LAZY`): the emulation ladder's
steps, the failed-call test, tool-definition fitting and token estimates, the model-aware parse
context, the schema root, the provider-safe tool-name helpers. The tables `wire.native` and
`wire.dialects` and the data types in `wire.types` are public too. Anything else is private: an
import-linter contract keeps other packages from importing it.

Imports happen inside the functions so `import agentcli.wire` stays cheap on start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.types import Message, ParsedResponse, Tool
    from agentcli.wire.emulate import estimate_tokens, optimize_tool_definitions
    from agentcli.wire.failures import counts as failure_counts
    from agentcli.wire.failures import recent as recent_failures
    from agentcli.wire.model_parse import context_for, parse_for
    from agentcli.wire.names import MAX_NAME, namespaced, sanitize
    from agentcli.wire.names import _digest as name_digest
    from agentcli.wire.negotiator import next_emulation_style, style_is_pinned
    from agentcli.wire.pipeline import failed_call_attempt, finalize
    from agentcli.wire.schema import object_root
    from agentcli.wire.stream import StreamAssembler
    from agentcli.wire.types import ParseContext, RequestSettings, WirePlan

# Public names whose home is a private module: name -> (module, attribute), imported on first use.
_LAZY: dict[str, tuple[str, str]] = {
    "next_emulation_style": ("agentcli.wire.negotiator", "next_emulation_style"),
    "style_is_pinned": ("agentcli.wire.negotiator", "style_is_pinned"),
    "failed_call_attempt": ("agentcli.wire.pipeline", "failed_call_attempt"),
    "finalize": ("agentcli.wire.pipeline", "finalize"),
    "failure_counts": ("agentcli.wire.failures", "counts"),
    "recent_failures": ("agentcli.wire.failures", "recent"),
    "optimize_tool_definitions": ("agentcli.wire.emulate", "optimize_tool_definitions"),
    "estimate_tokens": ("agentcli.wire.emulate", "estimate_tokens"),
    "context_for": ("agentcli.wire.model_parse", "context_for"),
    "parse_for": ("agentcli.wire.model_parse", "parse_for"),
    "object_root": ("agentcli.wire.schema", "object_root"),
    "MAX_NAME": ("agentcli.wire.names", "MAX_NAME"),
    "name_digest": ("agentcli.wire.names", "_digest"),
    "namespaced": ("agentcli.wire.names", "namespaced"),
    "sanitize": ("agentcli.wire.names", "sanitize"),
}


def __getattr__(name: str) -> Any:
    """The lazily re-exported names (read at each lookup, so a test's patch of the home module counts)."""
    home = _LAZY.get(name)
    if home is None:
        raise AttributeError(f"module 'agentcli.wire' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(home[0]), home[1])

# Body keys that carry history, tools or the model: a profile's [request] table may not replace them.
RESERVED_KEYS = frozenset({"model", "messages", "tools", "contents", "system", "input"})

__all__ = ["RESERVED_KEYS", "build_request", "negotiate", "new_stream", "parse_response", "parse_text", *_LAZY]


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
