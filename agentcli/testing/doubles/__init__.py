"""One test double per API shape: `agentcli/testing/doubles/<api>.py`, named after the shape.

A double is everything a test needs to stand in for a server of that API: the loopback server
class (routes, error and model-list bodies, whether a request asks for a stream), how one chunk
is framed on the wire and what ends the stream, and where a tool call sits in its chunks (so a
stream can be cut inside one). The reply bodies and chunks themselves come from the provider
class that speaks the API, which the scripted provider also plays back, so the server and the
offline provider cannot drift apart. Each module names its server class `Server`.

The API shapes are the ones the provider table's rows speak (`agentcli.config.providers`); the
provider-set test checks that every one has a double here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from agentcli.config.providers import api_kinds

if TYPE_CHECKING:
    from agentcli.testing.loopback import LoopbackServer


def server_class(api: str) -> type[LoopbackServer]:
    """The loopback server class that speaks API shape `api` (KeyError for a shape no provider speaks)."""
    if api not in api_kinds():
        raise KeyError(f"no provider speaks API shape {api!r}; known: {', '.join(api_kinds())}")
    module = f"{__name__}.{api}"
    try:
        cls: type[LoopbackServer] = importlib.import_module(module).Server
    except ModuleNotFoundError as exc:
        if exc.name != module:
            raise
        raise KeyError(f"API shape {api!r} has no test double: add agentcli/testing/doubles/{api}.py") from None
    return cls


def servers() -> dict[str, type[LoopbackServer]]:
    """API shape -> loopback server class, for every shape some provider speaks."""
    return {api: server_class(api) for api in api_kinds()}
