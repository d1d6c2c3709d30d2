"""Parse raw text the way a run with a given model would: the model's capability is resolved and
negotiated into a plan, exactly as a profile naming that model gets, and the plan's parser chain
reads the text. Shared by `agent parse --model` and the parser conformance suite."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.core.types import ParsedResponse, Tool
    from agentcli.wire.types import ParseContext

# The API a plan is negotiated for when only a model is named: the common OpenAI-compatible server.
DEFAULT_API = "openai"


def context_for(model: str | None, tools: list[Tool], api: str = DEFAULT_API) -> tuple[ParseContext, tuple[str, ...]]:
    """(parse context, dialect chain) of a default profile naming `model`; every dialect when None.
    Raises ValueError for a model id that cannot be parsed."""
    from agentcli.wire import dialects
    from agentcli.wire.types import ParseContext

    if not model:
        return ParseContext.of(tools), tuple(dialects.names())
    from agentcli.config.schema import ToolsConfig
    from agentcli.models import resolve_capability
    from agentcli.wire.negotiator import negotiate

    capability = resolve_capability(model)
    plan = negotiate(api=api, capability=capability.capability, tools_cfg=ToolsConfig())
    prompted = None if plan.native_tools else plan.dialect
    return ParseContext.of(tools, prefer=plan.parsers[:1], prompted=prompted), plan.parsers


def parse_for(output: str, model: str | None, tools: list[Tool]) -> ParsedResponse:
    """A model's output -> ParsedResponse through the chain a run with `model` would use. An output
    that is a provider response body (JSON of a known API shape) is read through that API's native
    fields first, like `agent parse` does; anything else is assistant text."""
    import json

    from agentcli.wire import native, pipeline
    from agentcli.wire.types import NativeParse

    ctx, parsers = context_for(model, tools)
    body = None
    if output.lstrip()[:1] == "{":
        try:
            body = json.loads(output)
        except ValueError:
            body = None
    kind = native.detect(body) if isinstance(body, dict) else None
    parsed = native.get(kind).parse_body(body) if kind and isinstance(body, dict) else NativeParse(text=output)
    return pipeline.finalize(parsed, ctx, parsers)
