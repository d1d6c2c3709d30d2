"""Stream helpers keyed by API shape: a complete reply body as the chunks, and the bytes, its API sends.

Nothing here is specific to one API. The reply bodies and their chunks belong to the provider
class that speaks the API (`Provider.reply_body` / `reply_chunks`, which the scripted provider
plays back offline); how a chunk is framed on the wire belongs to that API's double
(`agentcli.testing.doubles.<api>`). The per-API names tests import are re-exported below.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from agentcli.providers.anthropic import anthropic_body, anthropic_events
from agentcli.providers.base import pieces
from agentcli.providers.gemini import gemini_body, gemini_chunks
from agentcli.providers.ollama import ollama_body, ollama_chunks
from agentcli.providers.openai import openai_body, openai_chunks

Body = dict[str, Any]

__all__ = [
    "Body", "anthropic_body", "anthropic_events", "endless_chunks", "frame_sse", "gemini_body",
    "gemini_chunks", "ollama_body", "ollama_chunks", "openai_body", "openai_chunks", "pieces", "text_body",
    "to_chunks",
]


def to_chunks(api: str, body: Body, size: int = 8) -> list[Body]:
    """The stream `api` would send for `body`."""
    from agentcli.providers import speaker

    return speaker(api).reply_chunks(body, size)


def text_body(api: str, text: str) -> Body:
    """A plain assistant-text response body in `api`'s shape."""
    from agentcli.providers import speaker

    return speaker(api).reply_body(text)


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
    """One SSE event: an optional `event:` line, then the chunk as a `data:` line."""
    data = chunk if isinstance(chunk, str) else json.dumps(chunk, separators=(",", ":"))
    head = f"event: {event}{newline}" if event else ""
    return f"{head}data: {data}{newline}{newline}".encode()


