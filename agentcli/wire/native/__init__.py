"""Native API shapes: one module per API, each holding a `NativeApi` instance.

The table is the only registry; a provider names its API by key.
"""

from __future__ import annotations

from agentcli.core.lazy import LazyTable
from agentcli.wire.native._base import NativeApi

APIS: dict[str, str] = {
    "openai": "openai:API",  # Chat Completions (OpenAI, OpenRouter, vLLM, LM Studio, llama.cpp, Groq...)
    "openai_responses": "openai_responses:API",  # Responses API output items (parse only)
    "anthropic": "anthropic:API",  # Messages API
    "ollama": "ollama:API",  # /api/chat
    "gemini": "gemini:API",  # generateContent
}

_table: LazyTable[NativeApi] = LazyTable(__name__, APIS)


def get(name: str) -> NativeApi:
    return _table.get(name)


def names() -> list[str]:
    return list(APIS)


def detect(body: object) -> str | None:
    """The API whose response shape `body` has, in table order; None when none matches."""
    return next((name for name in APIS if get(name).looks_like(body)), None)
