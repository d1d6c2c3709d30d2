"""Stream helpers: turn one complete response body into the chunks its API would stream.

The loopback servers and the scripted provider both use these, so a queued body can be
served whole or streamed, and text and tool-call arguments are split across chunks the
way real servers split them. Pure functions, stdlib only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

Body = dict[str, Any]


def pieces(text: str, size: int) -> list[str]:
    """`text` in slices of `size` characters (at least one slice for a non-empty text)."""
    size = max(1, size)
    return [text[i : i + size] for i in range(0, len(text), size)]


# -- OpenAI Chat Completions -------------------------------------------------------------


def openai_chunks(body: Body, size: int = 8) -> list[Body]:
    """`chat.completion` -> `chat.completion.chunk`s (no `[DONE]`; framing adds it)."""
    choice = (body.get("choices") or [{}])[0]
    msg = choice.get("message") or {}
    base = {
        "id": body.get("id", "chatcmpl-loopback"),
        "object": "chat.completion.chunk",
        "created": body.get("created", int(time.time())),
        "model": body.get("model", ""),
    }

    def chunk(delta: Body, finish: str | None = None) -> Body:
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


def openai_body(text: str, model: str = "loopback", tool_calls: list[Body] | None = None) -> Body:
    msg: Body = {"role": "assistant", "content": text}
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


# -- Anthropic Messages ---------------------------------------------------------------------


def anthropic_events(body: Body, size: int = 8) -> list[Body]:
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
    out: list[Body] = [{"type": "message_start", "message": start_msg}, {"type": "ping"}]
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


def anthropic_body(text: str, model: str = "loopback", tool_uses: list[Body] | None = None) -> Body:
    content: list[Body] = [{"type": "text", "text": text}] if text else []
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


# -- Ollama /api/chat -----------------------------------------------------------------------


def ollama_chunks(body: Body, size: int = 8) -> list[Body]:
    """Non-streamed /api/chat reply -> NDJSON objects; tool calls arrive whole, as Ollama sends them."""
    msg = body.get("message") or {}
    base = {"model": body.get("model", ""), "created_at": body.get("created_at", "2025-01-01T00:00:00Z")}

    def chunk(message: Body) -> Body:
        return {**base, "message": {"role": "assistant", "content": "", **message}, "done": False}

    out = [chunk({"thinking": p}) for p in pieces(msg.get("thinking") or "", size)]
    out += [chunk({"content": p}) for p in pieces(msg.get("content") or "", size)]
    if msg.get("tool_calls"):
        out.append(chunk({"tool_calls": msg["tool_calls"]}))
    final = {k: v for k, v in body.items() if k not in ("message", "model", "created_at")}
    final.update(done=True, done_reason=body.get("done_reason", "stop"))
    out.append({**base, "message": {"role": "assistant", "content": ""}, **final})
    return out


def ollama_body(text: str, model: str = "loopback", tool_calls: list[Body] | None = None) -> Body:
    msg: Body = {"role": "assistant", "content": text}
    if tool_calls:
        msg["tool_calls"] = tool_calls
    return {
        "model": model,
        "created_at": "2025-01-01T00:00:00Z",
        "message": msg,
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 10,
        "eval_count": 5,
    }


# -- Gemini generateContent -----------------------------------------------------------------


def gemini_chunks(body: Body, size: int = 8) -> list[Body]:
    """GenerateContentResponse -> SSE chunks; text (and thought) parts split, functionCall parts whole."""
    cand = (body.get("candidates") or [{}])[0]
    parts = (cand.get("content") or {}).get("parts") or []
    split: list[Body] = []
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


def gemini_body(text: str, model: str = "loopback", calls: list[Body] | None = None) -> Body:
    parts: list[Body] = [{"text": text}] if text else []
    parts += [{"functionCall": c} for c in calls or ()]
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": model,
    }


TO_CHUNKS: dict[str, Callable[[Body, int], list[Body]]] = {
    "openai": openai_chunks,
    "anthropic": anthropic_events,
    "ollama": ollama_chunks,
    "gemini": gemini_chunks,
}

TEXT_BODY: dict[str, Callable[[str], Body]] = {
    "openai": openai_body,
    "anthropic": anthropic_body,
    "ollama": ollama_body,
    "gemini": gemini_body,
}


def to_chunks(api: str, body: Body, size: int = 8) -> list[Body]:
    """The stream `api` would send for `body`."""
    return TO_CHUNKS[api](body, size)


def text_body(api: str, text: str) -> Body:
    """A plain assistant-text response body in `api`'s shape."""
    return TEXT_BODY[api](text)


def endless_chunks(api: str, text: str = "and again ") -> Iterator[Body]:
    """A valid stream that never ends: `api`'s opening chunks, then the same text delta forever
    (a local model stuck repeating itself with no token limit)."""
    marker = "\u2603"  # text split into two one-character deltas: the first is never the closing chunk
    chunks = to_chunks(api, text_body(api, marker * 2), 1)
    at = next(i for i, c in enumerate(chunks) if marker in json.dumps(c, ensure_ascii=False))
    delta = json.loads(json.dumps(chunks[at], ensure_ascii=False).replace(marker, json.dumps(text)[1:-1]))
    yield from chunks[:at]
    while True:
        yield delta


# -- framing (bytes on the wire) ---------------------------------------------------------------


def frame_sse(chunk: Body | str, event: str | None = None, newline: str = "\n") -> bytes:
    data = chunk if isinstance(chunk, str) else json.dumps(chunk, separators=(",", ":"))
    head = f"event: {event}{newline}" if event else ""
    return f"{head}data: {data}{newline}{newline}".encode()


def _ndjson(chunk: Body | str) -> bytes:
    return ((chunk if isinstance(chunk, str) else json.dumps(chunk)) + "\n").encode()


def _anthropic_sse(chunk: Body | str) -> bytes:
    return frame_sse(chunk, chunk.get("type") if isinstance(chunk, dict) else None)


# How each API frames one chunk on the wire; unlisted APIs use plain SSE `data:` lines.
FRAMERS: dict[str, Callable[[Body | str], bytes]] = {
    "ollama": _ndjson,  # NDJSON
    "anthropic": _anthropic_sse,  # `event:` + `data:`
    "gemini": lambda chunk: frame_sse(chunk, newline="\r\n"),  # alt=sse, CRLF line ends
}
TRAILERS: dict[str, bytes] = {"openai": b"data: [DONE]\n\n"}  # only OpenAI ends its stream with a marker


def frame(api: str, chunk: Body | str | bytes) -> bytes:
    """One chunk as `api` frames it. bytes pass through untouched (SSE comments, garbage, half lines)."""
    if isinstance(chunk, bytes):
        return chunk
    return FRAMERS.get(api, frame_sse)(chunk)


def trailer(api: str) -> bytes:
    """What ends the stream after the last chunk."""
    return TRAILERS.get(api, b"")
