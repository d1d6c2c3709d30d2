"""The Anthropic Messages double: POST /v1/messages (JSON, or SSE whose events carry `event:`
names), GET /v1/models; errors in Anthropic's typed shape; tool input streams as JSON pieces."""

from __future__ import annotations

from typing import Any

from agentcli.testing.loopback import CallPiece, LoopbackServer
from agentcli.testing.streams import frame_sse

_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error",
          404: "not_found_error", 413: "request_too_large", 429: "rate_limit_error",
          500: "api_error", 529: "overloaded_error"}


class AnthropicServer(LoopbackServer):
    """POST /v1/messages (JSON or SSE with event names); GET /v1/models."""

    api = "anthropic"

    def route(self, method: str, path: str) -> str | None:
        if method == "POST" and path == "/v1/messages":
            return "chat"
        if method == "GET" and path == "/v1/models":
            return "models"
        return None

    def error_body(self, status: int, message: str) -> Any:
        return {"type": "error", "error": {"type": _TYPES.get(status, "api_error"), "message": message}}

    def models_body(self) -> Any:
        return {"data": [{"id": m, "type": "model", "display_name": m} for m in self.models], "has_more": False}

    @staticmethod
    def frame(chunk: Any) -> bytes:
        return frame_sse(chunk, chunk.get("type") if isinstance(chunk, dict) else None)  # `event:` + `data:`

    @staticmethod
    def call_piece(chunk: dict[str, Any]) -> CallPiece:
        delta = chunk.get("delta") or {}
        if isinstance(delta, dict) and delta.get("type") == "input_json_delta" and delta.get("partial_json"):
            return "fragment"
        return None


Server = AnthropicServer
