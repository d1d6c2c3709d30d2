"""Headers that carry credentials: masked in the debug log, and sent only to the profile's own origin.

httpx drops `Authorization` on a cross-origin redirect but re-sends every other header, so an
`x-api-key`, `x-goog-api-key` or a gateway's `X-Auth-Token` would follow a redirect to any host.
Here the rule is by origin, not by name: a request whose origin is not the configured URL's
goes out without any header that could carry a credential.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

if TYPE_CHECKING:
    import httpx

MASK = "[REDACTED]"
# Names that carry a credential whoever sends them; a profile's own headers and a provider's auth
# headers are added per provider (a gateway's X-Auth-Token is as secret as a key).
KNOWN = frozenset({"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"})
_PORTS = {"http": 80, "https": 443}


def origin(url: str) -> tuple[str, str, int | None]:
    """(scheme, host, port) with the scheme's default port filled in."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    return scheme, (parts.hostname or "").lower(), parts.port or _PORTS.get(scheme)


def secret_names(*groups: Iterable[str]) -> frozenset[str]:
    """The lower-cased header names to treat as credentials: the known ones plus each group."""
    return KNOWN.union(name.lower() for group in groups for name in group)


def masked(headers: Mapping[str, str], names: frozenset[str]) -> dict[str, str]:
    """Headers for the debug log: every credential-carrying one masked."""
    return {k: (MASK if k.lower() in names else v) for k, v in headers.items()}


def origin_guard(base_url: str, names: frozenset[str]) -> Callable[[httpx.Request], Awaitable[None]]:
    """An httpx request hook that strips credential headers from any request leaving `base_url`'s origin.

    Redirects are followed by httpx and each hop passes through the hooks, so a 30x to another
    host (or scheme, or port) is fetched without the key.
    """
    home = origin(base_url)

    async def guard(request: Any) -> None:
        if origin(str(request.url)) != home:
            for name in [k for k in request.headers if k.lower() in names]:
                del request.headers[name]

    return guard
