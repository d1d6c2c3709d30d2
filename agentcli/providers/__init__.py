"""Providers (layer 4): one module per API shape, plus the scripted provider.

    rows()       name -> ProviderRow: config's provider table extended with the class that sends
    SPEAKERS     API shape -> "module:Class" that speaks it, imported on first use
    PLAYER       "module:Class" of the scripted provider (the row whose API shape is None)
    create(profile, **kw) -> Provider

The provider table itself is `agentcli.config.providers.PROVIDERS` (config needs its URL and key
defaults and cannot import this layer); this layer adds the one thing config must not name, the
class. That class follows from the row's API shape, so a provider on a shape agentcli already
speaks is one row in config and nothing here.

Shared machinery: `_http` (the one retry policy, status -> ProviderError),
`_sse` (SSE / NDJSON framing), `transforms` (opt-in quirk fixes), `base` (the
request/stream loop every HTTP provider shares).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.config.providers import PROVIDERS as _FACTS
from agentcli.core.lazy import LazyTable
from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.providers.base import Provider

# API shape -> the class that speaks it (and, for the scripted provider, plays it back).
SPEAKERS: dict[str, str] = {
    "openai": "openai:OpenAIProvider",  # Chat Completions
    "anthropic": "anthropic:AnthropicProvider",  # Messages API
    "ollama": "ollama:OllamaProvider",  # /api/chat
    "gemini": "gemini:GeminiProvider",  # generateContent
}
PLAYER = "scripted:ScriptedProvider"  # replays scripted turns in any shape; no network
_table: LazyTable[type[Provider]] = LazyTable(__name__, {**SPEAKERS, "scripted": PLAYER})


@record(frozen=True)
class ProviderRow:
    """One provider: config's facts and the class that sends its requests."""

    name: str
    api: str | None
    url: str | None
    api_key_env: str | None
    impl: str  # "module:Class" under agentcli.providers
    routes_vendor_ids: bool = False

    def load(self) -> type[Provider]:
        return _table.load(self.impl)


def _impl(api: str | None) -> str:
    if api is None:
        return PLAYER
    try:
        return SPEAKERS[api]
    except KeyError:
        raise KeyError(f"no provider class speaks API shape {api!r}; known: {', '.join(SPEAKERS)}") from None


def rows() -> dict[str, ProviderRow]:
    """The provider table with classes, read at call time (a row added later counts)."""
    return {n: ProviderRow(n, f.api, f.url, f.api_key_env, _impl(f.api), f.routes_vendor_ids) for n, f in _FACTS.items()}


def speaker(api: str) -> type[Provider]:
    """The class that speaks API shape `api`."""
    return _table.load(_impl(api))


def provider_class(name: str) -> type[Provider]:
    """The class that sends provider `name`'s requests."""
    facts = _FACTS.get(name)
    if facts is None:
        raise KeyError(f"unknown provider {name!r}; known: {', '.join(_FACTS)}")
    return _table.load(_impl(facts.api))


def create(profile: Profile, **kw: Any) -> Provider:
    """The provider a profile names, ready to send (raises ProviderError(AUTH) when a needed key is missing)."""
    return provider_class(profile.provider)(profile, **kw)


def names() -> list[str]:
    return list(_FACTS)
