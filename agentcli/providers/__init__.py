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

from agentcli.config.providers import PROVIDERS as _ENTRIES
from agentcli.core.lazy import LazyTable

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.providers.base import Provider

# name -> "module:Class", from the one provider table in agentcli.config.providers.
PROVIDERS: dict[str, str] = {name: entry.impl for name, entry in _ENTRIES.items()}
# name -> (default base URL, default key variable)
DEFAULTS: dict[str, tuple[str, str | None]] = {
    name: (entry.url or f"{name}://", entry.api_key_env) for name, entry in _ENTRIES.items()
}
_table: LazyTable[type[Provider]] = LazyTable(__name__, PROVIDERS)


def provider_class(name: str) -> type[Provider]:
    """The class of provider `name`, read from the table at call time (a row added later counts)."""
    entry = _ENTRIES.get(name)
    if entry is None:
        raise KeyError(f"unknown provider {name!r}; known: {', '.join(_ENTRIES)}")
    return _table.load(entry.impl)


def create(profile: Profile, **kw: Any) -> Provider:
    """The provider a profile names, ready to send (raises ProviderError(AUTH) when a needed key is missing)."""
    return provider_class(profile.provider)(profile, **kw)


def names() -> list[str]:
    return list(_ENTRIES)
