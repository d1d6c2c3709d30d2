"""The Gemini double: POST /v1beta/models/{model}:generateContent, and :streamGenerateContent?alt=sse
(SSE with CRLF line ends), GET /v1beta/models; errors with Google's status names; calls arrive whole."""

from __future__ import annotations

from typing import Any

from agentcli.testing.loopback import CallPiece, LoopbackServer, Recorded
from agentcli.testing.streams import frame_sse

_STATUS = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
           500: "INTERNAL", 503: "UNAVAILABLE"}


class GeminiServer(LoopbackServer):
    """POST /v1beta/models/{model}:generateContent and :streamGenerateContent?alt=sse; GET /v1beta/models."""

    api = "gemini"

    def route(self, method: str, path: str) -> str | None:
        if method == "POST" and path.startswith("/v1beta/models/") and (
            path.endswith(":generateContent") or path.endswith(":streamGenerateContent")
        ):
            return "chat"
        if method == "GET" and path == "/v1beta/models":
            return "models"
        return None

    def wants_stream(self, req: Recorded) -> bool:
        return req.path.endswith(":streamGenerateContent") and req.query.get("alt") == ["sse"]

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}}

    def models_body(self) -> Any:
        return {"models": [{"name": f"models/{m}", "displayName": m, "supportedGenerationMethods": ["generateContent"]} for m in self.models]}

    @staticmethod
    def frame(chunk: Any) -> bytes:
        return frame_sse(chunk, newline="\r\n")  # alt=sse, CRLF line ends

    @staticmethod
    def call_piece(chunk: dict[str, Any]) -> CallPiece:
        parts = (p for c in chunk.get("candidates") or () for p in (c.get("content") or {}).get("parts") or ())
        return "whole" if any("functionCall" in p for p in parts) else None


Server = GeminiServer
