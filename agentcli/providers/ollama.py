"""Ollama's native API: POST {url}/api/chat (NDJSON stream), GET /api/tags, POST /api/show."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import Chunk, Provider
from agentcli.wire.types import RequestSettings


class OllamaProvider(Provider):
    """No key; streams NDJSON by default so `stream` is always written explicitly."""

    name = "ollama"
    api = "ollama"
    start_hint = "try `ollama serve`"
    stream_format = "ndjson"
    context_advice = ("raise the model's context: [request] options = { num_ctx = 8192 } in the profile (or "
                      "OLLAMA_CONTEXT_LENGTH for the server), or send less: a shorter system_prompt, fewer tools "
                      "(tools.max_tier, tools.deny)")

    def endpoint(self, settings: RequestSettings) -> str:
        return f"{self.url}/api/chat"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        body["stream"] = bool(settings.stream)
        return body

    @staticmethod
    def refine_error(status: int, detail: str) -> Code | None:
        lower = detail.lower()
        # 400 {"error":"registry.ollama.ai/library/gemma2:2b does not support tools"}
        if "does not support tools" in lower:
            return Code.TOOLS_UNSUPPORTED
        # 404 {"error":"model \"llama9\" not found, try pulling it first"}
        if "not found" in lower and "model" in lower:
            return Code.MODEL_MISSING
        return None

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        assert isinstance(data, dict)
        if data.get("error") is not None:
            raise error_from_inband(data["error"], self.target(), self.refine_error)
        return data, bool(data.get("done"))

    async def list_models(self) -> list[str]:
        data = await self._get_json("/api/tags")
        return [str(m.get("name") or m.get("model")) for m in data.get("models") or () if isinstance(m, dict)]

    async def model_info(self, model: str) -> dict[str, Any] | None:
        """/api/show: `capabilities` (e.g. ["completion", "tools"]), template, details, model_info."""
        return await self._get_json("/api/show", method="POST", json_body={"model": model})
