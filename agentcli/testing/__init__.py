"""Test doubles shipped with the package: one per API shape (`doubles/<api>.py`: its loopback
server and wire framing), the server machinery (`loopback`) and stream helpers (`streams`).

Used by the test suite and `agent eval`. The scripted provider and its models are not here: they
are a real offline provider (`agentcli.providers.scripted`), re-exported below for tests' convenience.
Names are imported on first use so importing this package stays cheap.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "LoopbackServer": "agentcli.testing.loopback",
    "OpenAIServer": "agentcli.testing.servers",
    "AnthropicServer": "agentcli.testing.servers",
    "OllamaServer": "agentcli.testing.servers",
    "GeminiServer": "agentcli.testing.servers",
    "Reply": "agentcli.testing.loopback",
    "Recorded": "agentcli.testing.loopback",
    "SERVERS": "agentcli.testing.servers",
    "server_for": "agentcli.testing.servers",
    "to_chunks": "agentcli.testing.streams",
    "text_body": "agentcli.testing.streams",
    "openai_body": "agentcli.testing.streams",
    "anthropic_body": "agentcli.testing.streams",
    "ollama_body": "agentcli.testing.streams",
    "gemini_body": "agentcli.testing.streams",
    "ScriptedProvider": "agentcli.providers.scripted",
    "ScriptedRequest": "agentcli.providers.scripted",
}

__all__ = list(_EXPORTS)


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
