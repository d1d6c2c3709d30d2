"""The loopback server's machinery: real HTTP on 127.0.0.1, one API's routes per subclass.

    with OpenAIServer() as srv:
        srv.queue(openai_body("hi"))          # served whole, or streamed if the request asks
        srv.queue_error(429, retry_after="1")
        srv.queue_cut(body)                    # stream cut inside the first tool call's arguments
        ... point a provider at srv.url ...
        srv.requests[0].body["messages"]

Each server records every request (method, path, query, headers, JSON body) and answers
chat requests from a FIFO of scripted replies. Faults: error statuses with Retry-After,
non-JSON bodies, connection reset, a stream cut mid-arguments, a slow first byte, a
stalled stream. A threaded stdlib server, so sync and async tests can both use it.

What differs per API (routes, error and model-list shapes, how a chunk is framed, the end
marker) is declared by the subclass in that API's double, `agentcli.testing.doubles.<api>`;
the reply bodies and their chunks come from the provider that speaks the API
(`Provider.reply_body` / `reply_chunks`), so the server and the scripted provider agree.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
import zlib
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal
from urllib.parse import parse_qs, urlsplit

from agentcli.testing.streams import endless_chunks, frame_sse, to_chunks

STALL_LIMIT_S = 30.0  # a stalled stream is closed after this even if the test forgets the server
ENDLESS_LIMIT_S = 30.0  # an endless or trickling reply stops after this even if the client never hangs up


@dataclass(slots=True)
class Recorded:
    """One request as the server saw it. Header names are lower-cased."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: Any
    raw: bytes = b""


@dataclass(slots=True)
class Reply:
    """One scripted answer. `body` may be a callable taking the Recorded request."""

    body: Any = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str | None = None
    stream: bool | None = None  # None: stream when the request asked to
    chunks: Iterable[Any] | None = None  # raw stream chunks instead of converting `body` (may never end)
    chunk_size: int = 8
    delay: float = 0.0  # seconds before the first byte
    chunk_delay: float = 0.0
    cut_after: int | str | None = None  # close abruptly after N chunks; "arguments" = inside the first call's arguments
    stall_after: int | None = None  # stop sending after N chunks, keep the connection open
    reset: bool = False  # TCP reset before any byte
    trailer: bool = True  # write the protocol's end marker ([DONE]) after the chunks
    byte_delay: float = 0.0  # trickle: the body (whole or streamed) written one byte at a time, this far apart


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
        pass

    def do_GET(self) -> None:
        self.server.owner._handle(self, "GET")

    def do_POST(self) -> None:
        self.server.owner._handle(self, "POST")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: LoopbackServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients that hang up (timeouts, retries) are normal here; anything else is kept for the test."""
        import sys

        exc = sys.exc_info()[1]
        if not isinstance(exc, OSError) and exc is not None:
            self.owner.errors.append(exc)


CallPiece = Literal["fragment", "whole"] | None


def cut_index(chunks: list[Any], call_piece: Callable[[Any], CallPiece]) -> int:
    """How many chunks to send before cutting a stream inside the first tool call: just after
    the first piece of streamed arguments, or just before a call the API sends whole."""
    for i, chunk in enumerate(chunks):
        piece = call_piece(chunk) if isinstance(chunk, dict) else None
        if piece == "fragment":
            return i + 1
        if piece == "whole":
            return max(i, 1)
    return max(1, len(chunks) // 2)


_WBITS = {"gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS, "raw-deflate": -zlib.MAX_WBITS}


class _Compressor:
    """One reply's compressor; each piece is flushed so a stream stays a stream (as nginx's gzip does)."""

    def __init__(self, coding: str) -> None:
        self.header = "deflate" if coding == "raw-deflate" else coding  # raw deflate is sent as "deflate"
        self._z = zlib.compressobj(6, zlib.DEFLATED, _WBITS[coding])

    def piece(self, data: bytes) -> bytes:
        return self._z.compress(data) + self._z.flush(zlib.Z_SYNC_FLUSH)

    def end(self) -> bytes:
        return self._z.flush()


class LoopbackServer:
    """Base: threading, queue, recording and fault injection. Subclasses add one API's routes."""

    api = "openai"
    prefix = ""  # path part of `url`
    content_coding: str | None = None  # gzip | deflate | raw-deflate: compress every reply the client accepts

    def __init__(self, *, models: tuple[str, ...] = ("loopback-model",), chunk_size: int = 8) -> None:
        self.models = list(models)
        self.chunk_size = chunk_size
        self.requests: list[Recorded] = []
        self.errors: list[BaseException] = []  # unexpected exceptions inside request handlers
        self._replies: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._port: int | None = None
        self.compressed = 0  # replies sent compressed

    # -- life cycle ----------------------------------------------------------------------

    def start(self) -> LoopbackServer:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> LoopbackServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._port is not None, "server not started"
        return self._port  # kept after stop() so tests can still name the URL

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The base URL a profile would use for this API."""
        return self.root + self.prefix

    # -- scripting -----------------------------------------------------------------------

    def queue_reply(self, reply: Reply) -> LoopbackServer:
        with self._lock:
            self._replies.append(reply)
        return self

    def queue(self, body: Any = None, **options: Any) -> LoopbackServer:
        """A 200 reply: `body` is the API's non-streamed response; streamed on demand."""
        return self.queue_reply(Reply(body, **options))

    def queue_stream(self, chunks: list[Any], **options: Any) -> LoopbackServer:
        """A streamed reply from raw chunks: dicts and strings are framed as data, bytes are written as they are."""
        return self.queue_reply(Reply(None, chunks=list(chunks), stream=True, **options))

    def queue_error(
        self,
        status: int,
        body: Any = None,
        *,
        headers: dict[str, str] | None = None,
        retry_after: str | None = None,
        retry_after_ms: str | None = None,
        content_type: str | None = None,
    ) -> LoopbackServer:
        """An error reply; without `body` the API's own error shape for that status."""
        hdrs = dict(headers or {})
        if retry_after is not None:
            hdrs["retry-after"] = str(retry_after)
        if retry_after_ms is not None:
            hdrs["retry-after-ms"] = str(retry_after_ms)
        if body is None:
            body = self.error_body(status, f"loopback error {status}")
        return self.queue_reply(Reply(body, status=status, headers=hdrs, content_type=content_type, stream=False))

    def queue_reset(self) -> LoopbackServer:
        return self.queue_reply(Reply(reset=True))

    def queue_cut(self, body: Any, after: int | str = "arguments", **options: Any) -> LoopbackServer:
        return self.queue_reply(Reply(body, stream=True, cut_after=after, **options))

    def queue_stall(self, body: Any, after: int = 1, **options: Any) -> LoopbackServer:
        return self.queue_reply(Reply(body, stream=True, stall_after=after, **options))

    def queue_slow(self, body: Any, delay: float, **options: Any) -> LoopbackServer:
        return self.queue_reply(Reply(body, delay=delay, **options))

    def queue_endless(self, text: str = "and again ", chunk_delay: float = 0.002) -> LoopbackServer:
        """A valid stream of text deltas that never ends (a model repeating itself with no token limit)."""
        return self.queue_reply(Reply(None, chunks=endless_chunks(self.api, text), stream=True, trailer=False,
                                      chunk_delay=chunk_delay))

    def queue_trickle(self, body: Any, byte_delay: float = 0.02, **options: Any) -> LoopbackServer:
        """`body` (whole, or streamed on demand) written one byte at a time: never idle, never done in time."""
        return self.queue_reply(Reply(body, byte_delay=byte_delay, **options))

    @property
    def pending(self) -> int:
        with self._lock:
            return len(self._replies)

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def chat_requests(self) -> list[Recorded]:
        return [r for r in self.requests if self.route(r.method, r.path) == "chat"]

    # -- per-API hooks -------------------------------------------------------------------

    def route(self, method: str, path: str) -> str | None:
        """chat | models | show | None (404)."""
        raise NotImplementedError

    def wants_stream(self, req: Recorded) -> bool:
        return isinstance(req.body, dict) and req.body.get("stream") is True

    def error_body(self, status: int, message: str) -> Any:
        return {"error": {"message": message, "type": "server_error" if status >= 500 else "invalid_request_error", "code": status}}

    def models_body(self) -> Any:
        raise NotImplementedError

    def show_body(self, req: Recorded) -> tuple[int, Any]:
        return 404, self.error_body(404, "not found")

    def stream_content_type(self) -> str:
        return "text/event-stream"

    trailer: bytes = b""  # what ends the stream after the last chunk ([DONE] for OpenAI)

    @staticmethod
    def frame(chunk: Any) -> bytes:
        """One chunk as this API frames it on the wire (default: an SSE `data:` line)."""
        return frame_sse(chunk)

    @staticmethod
    def call_piece(chunk: dict[str, Any]) -> CallPiece:
        """Does this chunk carry a piece of a call's arguments ("fragment") or a whole call ("whole")?"""
        return None

    # -- serving -------------------------------------------------------------------------

    def _record(self, h: _Handler, method: str) -> Recorded:
        parts = urlsplit(h.path)
        length = int(h.headers.get("content-length") or 0)
        raw = h.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        req = Recorded(method, parts.path, parse_qs(parts.query), {k.lower(): v for k, v in h.headers.items()}, body, raw)
        with self._lock:
            self.requests.append(req)
        return req

    def _handle(self, h: _Handler, method: str) -> None:
        req = self._record(h, method)
        kind = self.route(method, req.path)
        if kind is None:
            return self._send_json(h, 404, self.error_body(404, f"no route {method} {req.path}"))
        if kind == "models":
            return self._send_json(h, 200, self.models_body())
        if kind == "show":
            return self._send_json(h, *self.show_body(req))
        with self._lock:
            reply = self._replies.popleft() if self._replies else None
        if reply is None:
            return self._send_json(h, 500, self.error_body(500, "loopback server: no scripted reply left"))
        self._serve(h, req, reply)

    def _serve(self, h: _Handler, req: Recorded, reply: Reply) -> None:
        if reply.reset:
            return self._reset(h)
        if reply.delay and self._stop.wait(reply.delay):
            return
        body = reply.body(req) if callable(reply.body) else reply.body
        stream = reply.stream if reply.stream is not None else self.wants_stream(req)
        if reply.status >= 400 or not stream:
            return self._send_body(h, reply.status, body, reply.headers, reply.content_type, reply.byte_delay)
        chunks = reply.chunks if reply.chunks is not None else to_chunks(self.api, body or {}, reply.chunk_size or self.chunk_size)
        self._send_stream(h, reply, chunks)

    def _send_json(self, h: _Handler, status: int, body: Any) -> None:
        self._send_body(h, status, body, {}, None)

    def _compressor(self, h: _Handler, headers: dict[str, str]) -> _Compressor | None:
        """A compressor when this server compresses, the client accepts the coding and the reply is not pre-encoded."""
        coding = self.content_coding
        if coding is None or any(k.lower() == "content-encoding" for k in headers):
            return None
        accepted = {c.split(";")[0].strip().lower() for c in (h.headers.get("accept-encoding") or "").split(",")}
        comp = _Compressor(coding)
        if comp.header not in accepted:
            return None
        with self._lock:
            self.compressed += 1
        return comp

    def _send_body(
        self, h: _Handler, status: int, body: Any, headers: dict[str, str], content_type: str | None,
        byte_delay: float = 0.0,
    ) -> None:
        if isinstance(body, bytes):
            data, ctype = body, content_type or "application/octet-stream"
        elif isinstance(body, str):
            data, ctype = body.encode(), content_type or "text/plain; charset=utf-8"
        else:
            data, ctype = json.dumps(body).encode(), content_type or "application/json"
        if comp := self._compressor(h, headers):
            data = comp.piece(data) + comp.end()
            headers = {**headers, "content-encoding": comp.header}
        h.send_response(status)
        h.send_header("content-type", ctype)
        h.send_header("content-length", str(len(data)))
        for k, v in headers.items():
            h.send_header(k, v)
        h.end_headers()
        if not byte_delay:
            h.wfile.write(data)
            h.wfile.flush()
            return
        ends = time.monotonic() + ENDLESS_LIMIT_S
        try:
            for i in range(len(data)):
                if self._stop.wait(byte_delay) or time.monotonic() > ends:
                    return self._cut(h)
                h.wfile.write(data[i : i + 1])
                h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True

    def _send_stream(self, h: _Handler, reply: Reply, chunks: Iterable[Any]) -> None:
        if reply.cut_after == "arguments":
            chunks = list(chunks)
            cut: int | str | None = cut_index(chunks, self.call_piece)
        else:
            cut = reply.cut_after
        comp = self._compressor(h, reply.headers)
        h.send_response(200)
        h.send_header("content-type", self.stream_content_type())
        h.send_header("transfer-encoding", "chunked")
        h.send_header("cache-control", "no-cache")
        if comp is not None:
            h.send_header("content-encoding", comp.header)
        for k, v in reply.headers.items():
            h.send_header(k, v)
        h.end_headers()
        ends = time.monotonic() + ENDLESS_LIMIT_S

        def write(data: bytes) -> None:
            data = comp.piece(data) if comp else data
            if not reply.byte_delay:
                return self._write_chunk(h, data)
            for i in range(len(data)):  # a trickle: each byte its own HTTP chunk
                if self._stop.wait(reply.byte_delay) or time.monotonic() > ends:
                    raise BrokenPipeError("trickle stopped")
                self._write_chunk(h, data[i : i + 1])

        try:
            for i, chunk in enumerate(chunks):
                if self._stop.is_set() or time.monotonic() > ends:  # an endless stream outliving its test
                    return self._cut(h)
                if isinstance(cut, int) and i >= cut:
                    return self._cut(h)
                if reply.stall_after is not None and i >= reply.stall_after:
                    self._stop.wait(STALL_LIMIT_S)
                    return self._cut(h)
                if reply.chunk_delay and self._stop.wait(reply.chunk_delay):
                    return self._cut(h)
                write(chunk if isinstance(chunk, bytes) else self.frame(chunk))
            if isinstance(cut, int):  # cut at or past the end: drop the end marker too
                return self._cut(h)
            if reply.trailer and (end := self.trailer):
                write(end)
            if comp is not None and (tail := comp.end()):
                self._write_chunk(h, tail)
            h.wfile.write(b"0\r\n\r\n")
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            h.close_connection = True

    @staticmethod
    def _write_chunk(h: _Handler, data: bytes) -> None:
        h.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        h.wfile.flush()

    @staticmethod
    def _cut(h: _Handler) -> None:
        """Close mid-body without the terminating chunk: the client sees an incomplete message."""
        h.close_connection = True
        try:
            h.wfile.flush()
            h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    @staticmethod
    def _reset(h: _Handler) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), before any byte of a reply."""
        h.close_connection = True
        try:
            h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            h.connection.close()
        except OSError:
            pass


CODINGS = tuple(_WBITS)  # what Python compresses without extra packages
