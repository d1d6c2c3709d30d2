"""Native API shapes: one module per API, each holding a `NativeApi` instance.

The table is the only registry; a provider names its API by key.
"""

from __future__ import annotations

import importlib

from agentcli.wire.native._base import NativeApi

APIS: dict[str, str] = {
    "openai": "openai:API",  # Chat Completions (OpenAI, OpenRouter, vLLM, LM Studio, llama.cpp, Groq...)
    "openai_responses": "openai_responses:API",  # Responses API output items (parse only)
    "anthropic": "anthropic:API",  # Messages API
    "ollama": "ollama:API",  # /api/chat
    "gemini": "gemini:API",  # generateContent
}

_loaded: dict[str, NativeApi] = {}


def get(name: str) -> NativeApi:
    api = _loaded.get(name)
    if api is None:
        module, attr = APIS[name].split(":")
        api = getattr(importlib.import_module(f"{__name__}.{module}"), attr)
        _loaded[name] = api
    return api


def names() -> list[str]:
    return list(APIS)


def detect(body: object) -> str | None:
    """The API whose response shape `body` has, in table order; None when none matches."""
    return next((name for name in APIS if get(name).looks_like(body)), None)
