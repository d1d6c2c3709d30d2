"""Anthropic Messages API: POST {url}/v1/messages, SSE with named events."""

from __future__ import annotations

import json
from typing import Any

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import HOSTED_CONTEXT_ADVICE, Chunk, Provider, ReplyCall, pieces, sse_json
from agentcli.wire.types import RequestSettings

API_VERSION = "2023-06-01"
DEFAULT_MAX_TOKENS = 8192  # the API refuses a request without max_tokens


class AnthropicProvider(Provider):
    """x-api-key + anthropic-version headers; `max_tokens` always set; `error` events mapped by type."""

    api = "anthropic"
    url_shape = " (the Anthropic API's URL is the host alone, e.g. https://api.anthropic.com: agentcli adds /v1/messages)"
    stream_format = "sse"
    context_advice = HOSTED_CONTEXT_ADVICE

    @staticmethod
    def reply_body(text: str) -> dict[str, Any]:
        return anthropic_body(text)

    @staticmethod
    def reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
        return anthropic_reply(text, calls, usage)

    @staticmethod
    def reply_chunks(body: dict[str, Any], size: int) -> list[dict[str, Any]]:
        return anthropic_events(body, size)

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

# -- what this API's server answers: a reply body, and the chunks it streams for it --------------
# The scripted provider plays these back; the loopback test server serves them.


def anthropic_events(body: dict[str, Any], size: int = 8) -> list[dict[str, Any]]:
    """`message` -> message_start, ping, content_block_start/delta/stop..., message_delta, message_stop."""
    usage = body.get("usage") or {}
    start_msg = {
        "id": body.get("id", "msg_loopback"),
        "type": "message",
        "role": "assistant",
        "model": body.get("model", ""),
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1},
    }
    out: list[dict[str, Any]] = [{"type": "message_start", "message": start_msg}, {"type": "ping"}]
    for i, block in enumerate(body.get("content") or ()):
        kind = block.get("type")
        if kind == "text":
            out.append({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
            out += [{"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": p}} for p in pieces(block.get("text", ""), size)]
        elif kind == "thinking":
            out.append({"type": "content_block_start", "index": i, "content_block": {"type": "thinking", "thinking": "", "signature": ""}})
            out += [{"type": "content_block_delta", "index": i, "delta": {"type": "thinking_delta", "thinking": p}} for p in pieces(block.get("thinking", ""), size)]
            if block.get("signature"):
                out.append({"type": "content_block_delta", "index": i, "delta": {"type": "signature_delta", "signature": block["signature"]}})
        elif kind == "tool_use":
            head = {"type": "tool_use", "id": block.get("id"), "name": block.get("name"), "input": {}}
            out.append({"type": "content_block_start", "index": i, "content_block": head})
            args = json.dumps(block.get("input") or {})
            out += [{"type": "content_block_delta", "index": i, "delta": {"type": "input_json_delta", "partial_json": p}} for p in pieces(args, size)]
        else:  # redacted_thinking and future blocks arrive whole in content_block_start
            out.append({"type": "content_block_start", "index": i, "content_block": block})
        out.append({"type": "content_block_stop", "index": i})
    out.append({
        "type": "message_delta",
        "delta": {"stop_reason": body.get("stop_reason", "end_turn"), "stop_sequence": body.get("stop_sequence")},
        "usage": {"output_tokens": usage.get("output_tokens", 0)},
    })
    out.append({"type": "message_stop"})
    return out


def anthropic_body(text: str, model: str = "loopback", tool_uses: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text else []
    content += tool_uses or []
    return {
        "id": "msg_loopback",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "tool_use" if tool_uses else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def anthropic_reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
    """A message with tool_use blocks and usage."""
    body = anthropic_body(text, tool_uses=[{"type": "tool_use", "id": f"toolu_{i:02d}", "name": c.name,
                                            "input": c.args} for i, c in enumerate(calls)] or None)
    body["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
    return body
