"""Loopback protocol servers: real HTTP on 127.0.0.1 speaking each model API exactly.

    with OpenAIServer() as srv:
        srv.queue(openai_body("hi"))          # served whole, or streamed if the request asks
        srv.queue_error(429, retry_after="1")
        srv.queue_cut(body)                    # stream cut inside the first tool call's arguments
        ... point a provider at srv.url ...
        srv.requests[0].body["messages"]

The machinery (queue, recording, faults, compression) is `agentcli.testing.loopback`; each API's
server is in its double, `agentcli.testing.doubles.<api>`. This module is the front door tests
import: those names, and a server by API shape.
"""

from __future__ import annotations

from typing import Any

from agentcli.testing.doubles import servers
from agentcli.testing.doubles.anthropic import AnthropicServer
from agentcli.testing.doubles.gemini import GeminiServer
from agentcli.testing.doubles.ollama import OllamaServer
from agentcli.testing.doubles.openai import OpenAIServer
from agentcli.testing.loopback import CODINGS, LoopbackServer, Recorded, Reply, cut_index

__all__ = [
    "CODINGS", "SERVERS", "AnthropicServer", "GeminiServer", "LoopbackServer", "OllamaServer", "OpenAIServer",
    "Recorded", "Reply", "compressing_server", "cut_index", "server_for",
]

SERVERS: dict[str, type[LoopbackServer]] = servers()  # API shape -> server class, one per double


def server_for(api: str, **kw: Any) -> LoopbackServer:
    """A (not yet started) server speaking `api`."""
    return SERVERS[api](**kw)


def compressing_server(api: str, coding: str, **kw: Any) -> LoopbackServer:
    """A server speaking `api` that compresses every reply (whole, streamed, errors) with `coding`,
    as API gateways, nginx and hosted vendors do when the client accepts it."""
    if coding not in CODINGS:
        raise ValueError(f"unknown coding {coding!r}; one of {', '.join(CODINGS)}")
    srv = server_for(api, **kw)
    srv.content_coding = coding
    return srv
