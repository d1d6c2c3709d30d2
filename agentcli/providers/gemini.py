"""Google Gemini API: POST {url}/v1beta/models/{model}:generateContent | :streamGenerateContent?alt=sse."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import HOSTED_CONTEXT_ADVICE, Chunk, Provider, ReplyCall, pieces, sse_json
from agentcli.wire.types import RequestSettings


class GeminiProvider(Provider):
    """The key travels in the x-goog-api-key header, never in the URL (URLs end up in logs and hints)."""

    api = "gemini"
    url_shape = " (the Gemini API's URL is the host alone, e.g. https://generativelanguage.googleapis.com: agentcli adds /v1beta)"
    stream_format = "sse"
    context_advice = HOSTED_CONTEXT_ADVICE

    @staticmethod
    def reply_body(text: str) -> dict[str, Any]:
        return gemini_body(text)

    @staticmethod
    def reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
        return gemini_reply(text, calls, usage)

    @staticmethod
    def reply_chunks(body: dict[str, Any], size: int) -> list[dict[str, Any]]:
        return gemini_chunks(body, size)

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

# -- what this API's server answers: a reply body, and the chunks it streams for it --------------
# The scripted provider plays these back; the loopback test server serves them.


def gemini_chunks(body: dict[str, Any], size: int = 8) -> list[dict[str, Any]]:
    """GenerateContentResponse -> SSE chunks; text (and thought) parts split, functionCall parts whole."""
    cand = (body.get("candidates") or [{}])[0]
    parts = (cand.get("content") or {}).get("parts") or []
    split: list[dict[str, Any]] = []
    for part in parts:
        if isinstance(part.get("text"), str) and "functionCall" not in part:
            extra = {k: v for k, v in part.items() if k != "text"}
            split += [{"text": p, **extra} for p in pieces(part["text"], size)]
        else:
            split.append(part)
    extra = {k: body[k] for k in ("modelVersion", "responseId") if k in body}
    out = [
        {"candidates": [{"content": {"parts": [p], "role": "model"}, "index": 0}], **extra}
        for p in split
    ] or [{"candidates": [{"content": {"parts": [], "role": "model"}, "index": 0}], **extra}]
    last = out[-1]["candidates"][0]
    last["finishReason"] = cand.get("finishReason", "STOP")
    if body.get("usageMetadata"):
        out[-1]["usageMetadata"] = body["usageMetadata"]
    return out


def gemini_body(text: str, model: str = "loopback", calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    parts: list[dict[str, Any]] = [{"text": text}] if text else []
    parts += [{"functionCall": c} for c in calls or ()]
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
    }


def gemini_reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
    """A GenerateContentResponse with functionCall parts and usage metadata."""
    body = gemini_body(text, calls=[{"name": c.name, "args": c.args} for c in calls] or None)
    body["usageMetadata"] = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
                             "totalTokenCount": sum(usage)}
    return body
