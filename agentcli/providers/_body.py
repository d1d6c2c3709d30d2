"""The one place a response body is read: raw bytes, one decoder, bounded before and after decoding.

httpx decodes `content-encoding` on its own, and a body read through it and then wrapped in a
new Response with the same headers is decoded a second time (gzip over plain JSON: "incorrect
header check"). So every body is read here with `aiter_raw`, decoded once by a decoder whose
output is capped, and handed on as bytes or text that nothing decodes again. The byte budget
counts what the server sent and what it decodes to: a 1 MB body that inflates to 1 GB stops at
the budget, never in memory.
"""

from __future__ import annotations

import codecs
import time
import zlib
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Protocol

from agentcli.core.record import record
from agentcli.providers._sse import BadChunk, ResponseTooLarge, ResponseTooSlow

if TYPE_CHECKING:
    import httpx


class UnsupportedEncoding(BadChunk):
    """The server compressed the body with a coding we did not offer and cannot decode."""


class _Decoder(Protocol):
    def feed(self, data: bytes, room: int) -> bytes: ...
    def flush(self, room: int) -> bytes: ...


class _Identity:
    def feed(self, data: bytes, room: int) -> bytes:
        return data

    def flush(self, room: int) -> bytes:
        return b""


class _Zlib:
    """gzip or deflate. `room` caps the output of each call: past it the body is over budget anyway.

    "deflate" is zlib-wrapped by the RFC but sent raw by some servers; the first bytes decide,
    as browsers and httpx do.
    """

    def __init__(self, coding: str) -> None:
        self.coding = coding
        self._z = zlib.decompressobj(zlib.MAX_WBITS | 16) if coding == "gzip" else None
        self._first = b""

    def feed(self, data: bytes, room: int) -> bytes:
        if self._z is None:  # deflate: wait for two bytes to tell zlib-wrapped from raw
            self._first += data
            if len(self._first) < 2:
                return b""
            data, self._first = self._first, b""
            wrapped = data[0] & 0x0F == 8 and (data[0] << 8 | data[1]) % 31 == 0
            self._z = zlib.decompressobj(zlib.MAX_WBITS if wrapped else -zlib.MAX_WBITS)
        try:
            out = self._z.decompress(data, room + 1)
        except zlib.error as exc:
            raise BadChunk(f"the {self.coding} body does not decode: {exc}") from None
        if self._z.unconsumed_tail:  # output stopped at the cap with input left: over budget
            raise ResponseTooLarge("the decoded response passed the byte budget")
        return out

    def flush(self, room: int) -> bytes:
        if self._z is None:
            if self._first:
                raise BadChunk("the deflate body is cut short")
            return b""
        try:
            return self._z.flush()[: room + 1]
        except zlib.error as exc:
            raise BadChunk(f"the {self.coding} body does not decode: {exc}") from None


class _Chain:
    """Several codings ("gzip, deflate"): undone in reverse order of application. Each stage between
    the wire and the result is bounded by the whole budget on its own (what it has made so far), not
    by the room left for the result: a small result may come out of a larger middle stream, and a
    bomb in an outer coding is stopped at the stage that expands it."""

    def __init__(self, decoders: list[_Decoder], max_bytes: int) -> None:
        self.decoders = decoders
        self.max_bytes = max_bytes
        self.made = [0] * len(decoders)  # bytes each stage has put out so far

    def _room(self, i: int, room: int) -> int:
        return room if i == len(self.decoders) - 1 else max(self.max_bytes - self.made[i], 0)

    def _through(self, start: int, data: bytes, room: int) -> bytes:
        for i in range(start, len(self.decoders)):
            data = self.decoders[i].feed(data, self._room(i, room))
            self.made[i] += len(data)
        return data

    def feed(self, data: bytes, room: int) -> bytes:
        return self._through(0, data, room)

    def flush(self, room: int) -> bytes:
        out = b""
        for i, d in enumerate(self.decoders):
            tail = d.flush(self._room(i, room))
            self.made[i] += len(tail)
            out += self._through(i + 1, tail, room) if i + 1 < len(self.decoders) else tail
        return out


SUPPORTED = ("gzip", "deflate")  # what Python decodes without extra packages
ACCEPT_ENCODING = ", ".join(SUPPORTED)  # offered on every request, so a server never picks one we cannot read


def decoder_for(content_encoding: str, max_bytes: int) -> _Decoder:
    """The decoder for a Content-Encoding header value; unknown codings are refused, not guessed.
    `max_bytes` bounds every stage of a chain of codings."""
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    codings = [c for c in codings if c != "identity"]
    if not codings:
        return _Identity()
    for c in codings:
        if c not in SUPPORTED:
            raise UnsupportedEncoding(f"the server compressed the body as {c!r}, which agentcli cannot decode")
    decoders: list[_Decoder] = [_Zlib(c) for c in reversed(codings)]
    return decoders[0] if len(decoders) == 1 else _Chain(decoders, max_bytes)


class Budget:
    """Bytes and seconds one response may use; `take` raises as soon as either runs out."""

    def __init__(self, max_bytes: int, max_seconds: float) -> None:
        self.max_bytes = max_bytes
        self.max_seconds = max_seconds
        self.deadline = time.monotonic() + max_seconds
        self.sent = 0  # bytes on the wire
        self.decoded = 0  # bytes after content decoding

    @property
    def room(self) -> int:
        return max(self.max_bytes - self.decoded, 0)

    def take(self, *, sent: int = 0, decoded: int = 0) -> None:
        self.sent += sent
        self.decoded += decoded
        if self.sent > self.max_bytes or self.decoded > self.max_bytes:
            raise ResponseTooLarge(f"the response passed {self.max_bytes} bytes")
        if time.monotonic() > self.deadline:
            raise ResponseTooSlow(f"the response took longer than {self.max_seconds:g} s")


async def decoded_chunks(resp: httpx.Response, budget: Budget) -> AsyncIterator[bytes]:
    """The body's bytes, decoded exactly once, each chunk counted against `budget` before and after decoding."""
    decoder = decoder_for(resp.headers.get("content-encoding", ""), budget.max_bytes)
    async for raw in resp.aiter_raw():
        budget.take(sent=len(raw))
        out = decoder.feed(raw, budget.room)
        budget.take(decoded=len(out))
        if out:
            yield out
    out = decoder.flush(budget.room)
    budget.take(decoded=len(out))
    if out:
        yield out


async def decoded_text(resp: httpx.Response, budget: Budget) -> AsyncIterator[str]:
    """The body as UTF-8 text (SSE and NDJSON are UTF-8 by their specs), characters kept whole across chunks."""
    utf8 = codecs.getincrementaldecoder("utf-8")("replace")
    async for chunk in decoded_chunks(resp, budget):
        if text := utf8.decode(chunk):
            yield text
    if text := utf8.decode(b"", final=True):
        yield text


@record(frozen=True)
class Body:
    """A whole reply as read here: status, headers and the content, already decoded (never decode it again)."""

    status: int
    headers: Mapping[str, str]
    content: bytes
    charset: str | None = None

    @property
    def media_type(self) -> str:
        return self.headers.get("content-type", "").split(";")[0].strip().lower()

    @property
    def text(self) -> str:
        """The content as text, in the charset the server named (UTF-8 when it named none or a bad one)."""
        try:
            return self.content.decode(self.charset or "utf-8", "replace")
        except LookupError:
            return self.content.decode("utf-8", "replace")


async def read_whole(resp: httpx.Response, budget: Budget) -> Body:
    """A whole reply within the budget, decoded once."""
    content = b"".join([chunk async for chunk in decoded_chunks(resp, budget)])
    return Body(resp.status_code, resp.headers, content, resp.charset_encoding)
