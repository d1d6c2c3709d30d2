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


def parse_for(text: str, model: str | None, tools: list[Tool]) -> ParsedResponse:
    """Raw assistant text -> ParsedResponse through the chain a run with `model` would use."""
    from agentcli.wire.pipeline import parse_text

    ctx, parsers = context_for(model, tools)
    return parse_text(text, ctx, parsers)
