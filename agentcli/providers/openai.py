"""OpenAI Chat Completions over HTTP: any OpenAI-compatible server (OpenAI, vLLM, llama.cpp, LM Studio, Groq...)."""

from __future__ import annotations

import json
import time
from typing import Any

from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._http import error_from_inband
from agentcli.providers.base import Chunk, Provider, ReplyCall, pieces, sse_json
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

    api = "openai"
    url_shape = " (OpenAI-compatible URLs usually end in /v1)"
    stream_format = "sse"
    raw_arguments = True

    @staticmethod
    def reply_body(text: str) -> dict[str, Any]:
        return openai_body(text)

    @staticmethod
    def reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
        return openai_reply(text, calls, usage)

    @staticmethod
    def reply_chunks(body: dict[str, Any], size: int) -> list[dict[str, Any]]:
        return openai_chunks(body, size)

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

# -- what this API's server answers: a reply body, and the chunks it streams for it --------------
# The scripted provider plays these back; the loopback test server serves them.


def openai_chunks(body: dict[str, Any], size: int = 8) -> list[dict[str, Any]]:
    """`chat.completion` -> `chat.completion.chunk`s (no `[DONE]`; framing adds it)."""
    choice = (body.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    base = {
        "id": body.get("id", "chatcmpl-loopback"),
        "object": "chat.completion.chunk",
        "created": body.get("created", int(time.time())),
        "model": body.get("model", ""),
    }

    def chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}

    out = [chunk({"role": "assistant", "content": ""})]
    for key in ("reasoning_content", "reasoning"):
        if isinstance(msg.get(key), str):
            out += [chunk({key: p}) for p in pieces(msg[key], size)]
    if isinstance(msg.get("content"), str):
        out += [chunk({"content": p}) for p in pieces(msg["content"], size)]
    for i, call in enumerate(msg.get("tool_calls") or ()):
        fn = call.get("function") or {}
        args = fn.get("arguments", "")
        args = args if isinstance(args, str) else json.dumps(args)
        head = {"index": i, "id": call.get("id"), "type": "function", "function": {"name": fn.get("name"), "arguments": ""}}
        out.append(chunk({"tool_calls": [head]}))
        out += [chunk({"tool_calls": [{"index": i, "function": {"arguments": p}}]}) for p in pieces(args, size)]
    out.append(chunk({}, choice.get("finish_reason") or "stop"))
    if body.get("usage"):
        out.append({**base, "choices": [], "usage": body["usage"]})
    return out


def openai_body(text: str, model: str = "loopback", tool_calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": text}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return {
        "id": "chatcmpl-loopback",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if tool_calls else "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def openai_reply(text: str, calls: list[ReplyCall], usage: tuple[int, int]) -> dict[str, Any]:
    """A chat.completion with native tool calls (arguments as the raw text) and usage."""
    tool_calls = [{"id": f"call_{i}", "type": "function", "function": {"name": c.name, "arguments": c.raw}}
                  for i, c in enumerate(calls)]
    body = openai_body(text, tool_calls=tool_calls or None)
    if calls and not text:
        body["choices"][0]["message"]["content"] = None
    body["usage"] = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    return body
