"""The Ollama double: POST /api/chat (NDJSON unless `"stream": false`), GET /api/tags, POST
/api/show with per-model capabilities; tool calls arrive whole, as Ollama sends them."""

from __future__ import annotations

import json
from typing import Any

from agentcli.testing.loopback import CallPiece, LoopbackServer, Recorded


class OllamaServer(LoopbackServer):
    """POST /api/chat (NDJSON unless "stream": false); GET /api/tags; POST /api/show."""

    api = "ollama"

    def __init__(self, *, capabilities: dict[str, list[str]] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.capabilities = capabilities or {}  # model -> ["completion", "tools", ...]

    def route(self, method: str, path: str) -> str | None:
        if method == "POST" and path == "/api/chat":
            return "chat"
        if method == "GET" and path == "/api/tags":
            return "models"
        if method == "POST" and path == "/api/show":
            return "show"
        return None

    def wants_stream(self, req: Recorded) -> bool:
        return not (isinstance(req.body, dict) and req.body.get("stream") is False)  # Ollama streams by default

    def stream_content_type(self) -> str:
        return "application/x-ndjson"

    def error_body(self, status: int, message: str) -> Any:
        return {"error": message}

    def models_body(self) -> Any:
        return {"models": [{"name": m, "model": m, "size": 1, "details": {"family": "loopback"}} for m in self.models]}

    def show_body(self, req: Recorded) -> tuple[int, Any]:
        model = (req.body or {}).get("model") or (req.body or {}).get("name")
        if model not in self.models:
            return 404, {"error": f"model '{model}' not found"}
        caps = self.capabilities.get(model, ["completion", "tools"])
        return 200, {"capabilities": caps, "details": {"family": "loopback", "format": "gguf"}, "template": "", "model_info": {}}

    @staticmethod
    def frame(chunk: Any) -> bytes:
        return ((chunk if isinstance(chunk, str) else json.dumps(chunk)) + "\n").encode()  # NDJSON

    @staticmethod
    def call_piece(chunk: dict[str, Any]) -> CallPiece:
        return "whole" if (chunk.get("message") or {}).get("tool_calls") else None


Server = OllamaServer
