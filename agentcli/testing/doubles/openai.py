"""The OpenAI Chat Completions double: POST /v1/chat/completions (JSON, or SSE ending with
`data: [DONE]`), GET /v1/models; argument text streams in pieces."""

from __future__ import annotations

from typing import Any

from agentcli.testing.loopback import CallPiece, LoopbackServer


class OpenAIServer(LoopbackServer):
    """POST /v1/chat/completions (JSON or SSE + [DONE]); GET /v1/models."""

    api = "openai"
    prefix = "/v1"
    trailer = b"data: [DONE]\n\n"  # only OpenAI ends its stream with a marker

    def route(self, method: str, path: str) -> str | None:
        if method == "POST" and path == "/v1/chat/completions":
            return "chat"
        if method == "GET" and path == "/v1/models":
            return "models"
        return None

    def models_body(self) -> Any:
        return {"object": "list", "data": [{"id": m, "object": "model", "owned_by": "loopback"} for m in self.models]}

    @staticmethod
    def call_piece(chunk: dict[str, Any]) -> CallPiece:
        for choice in chunk.get("choices") or ():
            for call in (choice.get("delta") or {}).get("tool_calls") or ():
                if (call.get("function") or {}).get("arguments"):
                    return "fragment"
        return None


Server = OpenAIServer
