"""Per-provider defaults a profile falls back to when it leaves `url` or `api_key_env` out.

`url` is the base URL the provider's own SDK takes: `.../v1` for OpenAI-compatible
servers, the API root for Anthropic, Ollama and Gemini.
"""

from __future__ import annotations

from typing import TypedDict


class ProviderDefault(TypedDict, total=False):
    url: str | None
    api_key_env: str | None
    routes_vendor_ids: bool  # model ids are `vendor/model` (a router): see config.model_routes


provider_defaults: dict[str, ProviderDefault] = {
    "openai": {"url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY"},
    "anthropic": {"url": "https://api.anthropic.com", "api_key_env": "ANTHROPIC_API_KEY"},
    "ollama": {"url": "http://localhost:11434", "api_key_env": None},
    "gemini": {"url": "https://generativelanguage.googleapis.com", "api_key_env": "GEMINI_API_KEY"},
    "openrouter": {"url": "https://openrouter.ai/api/v1", "api_key_env": "OPENROUTER_API_KEY", "routes_vendor_ids": True},
    "scripted": {"url": None, "api_key_env": None},
}


def default_url(provider: str) -> str | None:
    entry = provider_defaults.get(provider)
    return entry.get("url") if entry else None


def default_api_key_env(provider: str) -> str | None:
    entry = provider_defaults.get(provider)
    return entry.get("api_key_env") if entry else None
