"""Google Gemini API: POST {url}/v1beta/models/{model}:generateContent | :streamGenerateContent?alt=sse."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import HOSTED_CONTEXT_ADVICE, Chunk, Provider, sse_json
from agentcli.wire.types import RequestSettings


class GeminiProvider(Provider):
    """The key travels in the x-goog-api-key header, never in the URL (URLs end up in logs and hints)."""

    name = "gemini"
    api = "gemini"
    stream_format = "sse"
    context_advice = HOSTED_CONTEXT_ADVICE

    def auth_headers(self) -> dict[str, str]:
        return {"x-goog-api-key": self._key} if self._key else {}

    def endpoint(self, settings: RequestSettings) -> str:
        model = quote(settings.model.removeprefix("models/"), safe="-._~")
        if settings.stream:
            return f"{self.url}/v1beta/models/{model}:streamGenerateContent?alt=sse"
        return f"{self.url}/v1beta/models/{model}:generateContent"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        for key in ("model", "stream"):  # the model is in the path; streaming is the endpoint
            body.pop(key, None)
        return body

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        lower = detail.lower()
        if status == 404 and "models/" in lower:  # "models/gemini-9 is not found for API version v1beta"
            return Code.MODEL_MISSING
        if status in (400, 404) and "invalid model name" in lower:  # the LiteLLM proxy's Gemini route
            return Code.MODEL_MISSING
        if status == 400 and "api key not valid" in lower:  # Gemini answers a bad key with 400
            return Code.AUTH
        return None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        chunk = sse_json(data)
        if chunk.get("error") is not None:
            raise error_from_inband(chunk["error"], self.target(), self.refine_error)
        # No terminator event: the chunk carrying finishReason is the last one.
        ended = any(isinstance(c, dict) and c.get("finishReason") for c in chunk.get("candidates") or ())
        return chunk, ended

    async def list_models(self) -> list[str]:
        data = await self._get_json("/v1beta/models")
        return [str(m.get("name", "")).removeprefix("models/") for m in data.get("models") or () if isinstance(m, dict)]
