"""The one provider table: a row per provider, and everything else derives from it.

Config validation (which names exist), the defaults a profile falls back to (`url`,
`api_key_env`), the provider factory (`agentcli.providers`), the scripted double and the
loopback test servers (which API shapes exist) all read this table, so adding a provider
is one module under `agentcli/providers/` and one row here.

`url` is the base URL the provider's own SDK takes: `.../v1` for OpenAI-compatible
servers, the API root for Anthropic, Ollama and Gemini.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict


@dataclass(frozen=True, slots=True)
class ProviderEntry:
    """What agentcli knows about one provider before it sends anything."""

    impl: str  # "module:Class" under agentcli.providers, imported on first use
    api: str | None  # the native API shape it speaks (a key of agentcli.wire.native.APIS); None: chosen per script
    url: str | None  # default base URL
    api_key_env: str | None  # default variable holding the key; None: no key needed


PROVIDERS: dict[str, ProviderEntry] = {
    "openai": ProviderEntry("openai:OpenAIProvider", "openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    "anthropic": ProviderEntry("anthropic:AnthropicProvider", "anthropic", "https://api.anthropic.com",
                               "ANTHROPIC_API_KEY"),
    "ollama": ProviderEntry("ollama:OllamaProvider", "ollama", "http://localhost:11434", None),
    "gemini": ProviderEntry("gemini:GeminiProvider", "gemini", "https://generativelanguage.googleapis.com",
                            "GEMINI_API_KEY"),
    "openrouter": ProviderEntry("openrouter:OpenRouterProvider", "openai", "https://openrouter.ai/api/v1",
                                "OPENROUTER_API_KEY"),
    "scripted": ProviderEntry("scripted:ScriptedProvider", None, None, None),
}


class ProviderDefault(TypedDict):
    url: str | None
    api_key_env: str | None


# The url / key-variable view of the table.
provider_defaults: dict[str, ProviderDefault] = {
    n: {"url": e.url, "api_key_env": e.api_key_env} for n, e in PROVIDERS.items()
}


def api_kinds() -> tuple[str, ...]:
    """The native API shapes some provider speaks (the scripted double can play each)."""
    return tuple(dict.fromkeys(e.api for e in PROVIDERS.values() if e.api))


def default_url(provider: str) -> str | None:
    entry = PROVIDERS.get(provider)
    return entry.url if entry else None


def default_api_key_env(provider: str) -> str | None:
    entry = PROVIDERS.get(provider)
    return entry.api_key_env if entry else None
