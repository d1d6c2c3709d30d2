"""Anthropic Messages API: POST {url}/v1/messages, SSE with named events."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import HOSTED_CONTEXT_ADVICE, Chunk, Provider, sse_json
from agentcli.wire.types import RequestSettings

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192  # the API refuses a request without max_tokens


class AnthropicProvider(Provider):
    """x-api-key + anthropic-version headers; `max_tokens` always set; `error` events mapped by type."""

    name = "anthropic"
    api = "anthropic"
    stream_format = "sse"
    context_advice = HOSTED_CONTEXT_ADVICE

    def auth_headers(self) -> dict[str, str]:
        headers = {"anthropic-version": API_VERSION}
        if self._key:
            headers["x-api-key"] = self._key
        return headers

    def endpoint(self, settings: RequestSettings) -> str:
        return f"{self.url}/v1/messages"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        if not body.get("max_tokens"):
            body["max_tokens"] = settings.max_output_tokens or self.profile.limits.max_output_tokens or DEFAULT_MAX_TOKENS
        if settings.stream:
            body["stream"] = True
        else:
            body.pop("stream", None)
        return body

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        lower = detail.lower()
        if status == 404 and lower.startswith("model:"):  # {"type":"not_found_error","message":"model: claude-x"}
            return Code.MODEL_MISSING
        if status == 400 and "invalid model name" in lower:  # the LiteLLM proxy's /v1/messages route
            return Code.MODEL_MISSING
        if "prompt is too long" in lower:
            return Code.CONTEXT_LENGTH
        return None

    def body_error(self, body: dict[str, Any]) -> Any:
        return body.get("error") if body.get("type") == "error" else None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        chunk = sse_json(data)
        kind = chunk.get("type") or event
        if kind == "ping":
            return None, False
        if kind == "error":  # e.g. {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}
            raise error_from_inband(chunk.get("error") or {}, self.target(), self.refine_error)
        return chunk, kind == "message_stop"

    async def list_models(self) -> list[str]:
        data = await self._get_json("/v1/models")
        return [str(m.get("id")) for m in data.get("data") or () if isinstance(m, dict) and m.get("id")]
