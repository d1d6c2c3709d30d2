"""OpenRouter: the OpenAI protocol at OpenRouter's URL; routing headers come from profile.headers."""

from __future__ import annotations

from agentcli.providers.openai import OpenAIProvider

# OpenRouter reads these optional headers to attribute traffic; a profile sets them under [headers].
ROUTING_HEADERS = ("HTTP-Referer", "X-Title")


class OpenRouterProvider(OpenAIProvider):
    """Chat Completions at https://openrouter.ai/api/v1 with OPENROUTER_API_KEY."""

    name = "openrouter"
