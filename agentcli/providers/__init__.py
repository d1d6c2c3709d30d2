"""Providers (layer 4): one module per HTTP protocol, plus the scripted double.

    PROVIDERS    name -> "module:Class", imported on first use
    DEFAULTS     name -> (default base URL, default key variable)
    create(profile, **kw) -> Provider

Shared machinery: `_http` (the one retry policy, status -> ProviderError),
`_sse` (SSE / NDJSON framing), `transforms` (opt-in quirk fixes), `base` (the
request/stream loop every HTTP provider shares).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.core.lazy import LazyTable

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.providers.base import Provider

PROVIDERS: dict[str, str] = {
    "openai": "openai:OpenAIProvider",
    "openrouter": "openrouter:OpenRouterProvider",
    "anthropic": "anthropic:AnthropicProvider",
    "ollama": "ollama:OllamaProvider",
    "gemini": "gemini:GeminiProvider",
    "scripted": "scripted:ScriptedProvider",
}


def _defaults() -> dict[str, tuple[str, str | None]]:
    """(base URL, key variable) per provider, from the config layer's one table."""
    from agentcli.config.providers import provider_defaults

    return {name: (d["url"] or f"{name}://", d["api_key_env"]) for name, d in provider_defaults.items()}


DEFAULTS: dict[str, tuple[str, str | None]] = _defaults()


_table: LazyTable[type[Provider]] = LazyTable(__name__, PROVIDERS)


def provider_class(name: str) -> type[Provider]:
    if name not in _table:
        raise KeyError(f"unknown provider {name!r}; known: {', '.join(PROVIDERS)}")
    return _table.get(name)


def create(profile: Profile, **kw: Any) -> Provider:
    """The provider a profile names, ready to send (raises ProviderError(AUTH) when a needed key is missing)."""
    return provider_class(profile.provider)(profile, **kw)


def names() -> list[str]:
    return list(PROVIDERS)
