"""Test doubles shipped with the package: loopback protocol servers, stream helpers, the scripted provider.

Used by the test suite, `agent eval` and the offline profile. Names are imported on
first use so importing this package stays cheap.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "LoopbackServer": "agentcli.testing.servers",
    "OpenAIServer": "agentcli.testing.servers",
    "AnthropicServer": "agentcli.testing.servers",
    "OllamaServer": "agentcli.testing.servers",
    "GeminiServer": "agentcli.testing.servers",
    "Reply": "agentcli.testing.servers",
    "Recorded": "agentcli.testing.servers",
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
