"""The provider table: one row per provider, and every other view of the providers derives from it.

A row holds what config itself must know about a provider before anything is imported: the API
shape (wire family) it speaks, the base URL a profile falls back to, and the variable holding its
key. Profile validation (which names exist), `url` / `api_key_env` defaults, the model-id routes
and `agent profiles new` read these facts here.

The row names no class. Config sits below the providers layer, so it cannot honestly say which
class sends the request; `agentcli.providers` extends each row with that (`providers.rows()`): the
class that speaks the row's API shape, or the scripted provider for the row that has none. So a
provider on an API shape agentcli already speaks is one row here and nothing else.

`url` is the base URL the provider's own SDK takes: `.../v1` for OpenAI-compatible servers, the
API root for Anthropic, Ollama and Gemini.
"""

from __future__ import annotations

from typing import TypedDict

from agentcli.core.record import record


@record(frozen=True)
class ProviderFacts:
    """What agentcli knows about one provider before it sends anything."""

    api: str | None  # the API shape it speaks (a key of agentcli.wire.native.APIS); None: the scripted
    # provider, which plays whichever shape its script or persona names
    url: str | None  # default base URL; None: the profile must give one (or needs none)
    api_key_env: str | None  # default variable holding the key; None: no key needed
    routes_vendor_ids: bool = False  # model ids are `vendor/model` (a router): see config.model_routes


PROVIDERS: dict[str, ProviderFacts] = {
    "openai": ProviderFacts("openai", "https://api.openai.com/v1", "OPENAI_API_KEY"),
    "anthropic": ProviderFacts("anthropic", "https://api.anthropic.com", "ANTHROPIC_API_KEY"),
    "ollama": ProviderFacts("ollama", "http://localhost:11434", None),
    "gemini": ProviderFacts("gemini", "https://generativelanguage.googleapis.com", "GEMINI_API_KEY"),
    "openrouter": ProviderFacts("openai", "https://openrouter.ai/api/v1", "OPENROUTER_API_KEY",
                                routes_vendor_ids=True),
    "scripted": ProviderFacts(None, None, None),
}


class ProviderDefault(TypedDict):
    url: str | None
    api_key_env: str | None


# The url / key-variable view of the table (re-exported by agentcli.config).
provider_defaults: dict[str, ProviderDefault] = {
    n: {"url": e.url, "api_key_env": e.api_key_env} for n, e in PROVIDERS.items()
}


def api_kinds() -> tuple[str, ...]:
    """The API shapes some provider speaks (the scripted provider can play each)."""
    return tuple(dict.fromkeys(e.api for e in PROVIDERS.values() if e.api))


def default_url(provider: str) -> str | None:
    entry = PROVIDERS.get(provider)
    return entry.url if entry else None


def default_api_key_env(provider: str) -> str | None:
    entry = PROVIDERS.get(provider)
    return entry.api_key_env if entry else None
