"""Stream framing: Server-Sent Events and NDJSON, read line by line with an idle timeout.

Only framing lives here; what a chunk means is the wire layer's business.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.errors import ProviderError, ProviderErrorCode
from agentcli.core.record import record


class StreamStalled(TimeoutError):
    """No line arrived within the idle timeout."""


class BadChunk(ValueError):
    """A stream line that is not the JSON the protocol promises."""


@record
class SSEEvent:
    event: str  # "message" when the server sent no `event:` field
    data: str


class ResponseTooLarge(BadChunk):
    """The response passed the profile's max_response_bytes (an endless or runaway stream)."""


class ResponseTooSlow(TimeoutError):
    """The response was still arriving at the profile's max_response_seconds."""


_EOL = re.compile(r"\r\n|\r|\n")


async def split_lines(chunks: AsyncIterator[str]) -> AsyncIterator[str]:
    """Lines (without their ends) from decoded text chunks.

    httpx would buffer a line that never ends without limit; splitting here lets the body's
    budget (`_body.Budget`) see every chunk. Ends are \r\n, \r or \n as SSE allows, never
    Unicode separators, which are legal inside JSON strings.
    """
    buf = ""
    async for chunk in chunks:
        buf += chunk
        held = buf.endswith("\r")  # may be the first half of \r\n: decide with the next chunk
        parts = _EOL.split(buf[:-1] if held else buf)
        buf = parts.pop() + ("\r" if held else "")
        for line in parts:
            yield line
    buf = buf.removesuffix("\r")
    if buf:
        yield buf


def too_much(exc: ResponseTooLarge | ResponseTooSlow, target: Any) -> ProviderError:
    """A response over budget: not retried (the same request would run over again)."""
    what = "max_response_bytes" if isinstance(exc, ResponseTooLarge) else "max_response_seconds"
    return ProviderError(
        ProviderErrorCode.SERVER, f"{exc} from {target.url}; stopped reading",
        url=target.url, model=target.model, retryable=False,
        hint=f"If this model really answers at such length, raise limits.{what} in the profile.",
    )


async def idle_lines(lines: AsyncIterator[str], idle_timeout: float) -> AsyncIterator[str]:
    """Yield lines, raising StreamStalled when the next one takes longer than `idle_timeout`."""
    import asyncio  # here, not at import: creating a provider must not load the event loop machinery

    it = lines.__aiter__()
    while True:
        try:
            async with asyncio.timeout(idle_timeout):
                line = await it.__anext__()
        except StopAsyncIteration:
            return
        except TimeoutError:
            raise StreamStalled(f"no data for {idle_timeout:g} s") from None
        yield line


async def sse_events(lines: AsyncIterator[str]) -> AsyncIterator[SSEEvent]:
    """Parse SSE per the HTML spec: comments (`:`) skipped, `data:` lines joined, blank line dispatches.

    An event left open when the stream ends is dropped, as the spec says: it may be cut short.
    """
    event = ""
    data: list[str] = []
    async for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if data:
                yield SSEEvent(event or "message", "\n".join(data))
            event, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event = value
        # id: and retry: are not used by any model API


async def ndjson_objects(lines: AsyncIterator[str]) -> AsyncIterator[dict[str, Any]]:
    """One JSON object per non-blank line (Ollama's stream)."""
    async for raw in lines:
        line = raw.strip()
        if not line:
            continue
        yield decode_json(line)


def decode_json(text: str) -> dict[str, Any]:
    try:
        value = jsonsafe.loads(text)
    except ValueError as exc:
        raise BadChunk(f"stream chunk is not JSON: {text[:80]!r}") from exc
    if not isinstance(value, dict):
        raise BadChunk(f"stream chunk is not a JSON object: {text[:80]!r}")
    return value
