"""OpenAI Chat Completions over HTTP: any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, Groq...)."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import Chunk, Provider, sse_json
from agentcli.wire.types import RequestSettings

# What OpenAI-compatible servers say when a model or server cannot take `tools` (lower-cased).
TOOLS_UNSUPPORTED_MARKERS = (
    "does not support tools",  # Ollama's OpenAI endpoint
    "tools param requires --jinja",  # llama.cpp without --jinja (sent with HTTP 500)
    "unsupported param: tools",  # older llama.cpp
    "tool choice requires --enable-auto-tool-choice",  # vLLM without a tool parser
    "does not support function calling",
    "tool use is not supported",
    "tools are not supported",
    "tool calling is not supported",
    "function calling is not enabled",
    "no endpoints found that support tool use",  # OpenRouter
)
MODEL_MISSING_MARKERS = (
    "model_not_found", "does not exist", "model not found", "no such model", "is not a valid model",
    "invalid model name",  # LiteLLM proxy: "400: /chat/completions: Invalid model name passed in model=..."
)


class OpenAIProvider(Provider):
    """POST {url}/chat/completions; SSE `data:` lines ending with `[DONE]`; Bearer auth."""

    name = "openai"
    api = "openai"
    stream_format = "sse"

    def auth_headers(self) -> dict[str, str]:
        return {"authorization": f"Bearer {self._key}"} if self._key else {}

    def endpoint(self, settings: RequestSettings) -> str:
        return f"{self.url}/chat/completions"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        body["stream"] = bool(settings.stream)
        if settings.stream:
            body.setdefault("stream_options", {"include_usage": True})
        else:
            body.pop("stream_options", None)
        return body

    def forces_call(self, body: dict[str, Any]) -> bool:
        return body.get("tool_choice") == "required"

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        lower = detail.lower()
        if any(m in lower for m in TOOLS_UNSUPPORTED_MARKERS):
            return Code.TOOLS_UNSUPPORTED
        if status in (400, 404) and "model" in lower and any(m in lower for m in MODEL_MISSING_MARKERS):
            return Code.MODEL_MISSING
        return None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        if isinstance(data, str) and data.strip() == "[DONE]":
            return None, True
        chunk = sse_json(data)
        if chunk.get("error") is not None:  # OpenRouter and vLLM report mid-stream failures this way
            raise error_from_inband(chunk["error"], self.target(), self.refine_error)
        return chunk, False

    async def list_models(self) -> list[str]:
        data = await self._get_json("/models")
        return [str(m.get("id")) for m in data.get("data") or () if isinstance(m, dict) and m.get("id")]
