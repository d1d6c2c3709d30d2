"""A scripted per-turn proxy in front of a real llama-cpp-python server.

A random model writes noise; the server's own grammar-constrained decoding makes it write what
a turn needs, in the server's real wire format. For each chat request the proxy picks the step
for that turn (the number of assistant messages already in the conversation) and rewrites the
request before forwarding it:

- `Call(name, args)` with native tools: the named tool's schema is pinned to these arguments
  (`const`) and `tool_choice` names it, so the server emits a genuine `tool_calls` reply;
- `Call` without native tools (emulation): a `grammar` forces the call text in a dialect;
- `Answer(text)`: tools dropped, a `grammar` forces the final text;
- `Noise()`: nothing forced; the random model's output goes through the whole loop.

Every exchange (the request as forwarded, status, content type, raw response bytes) is kept,
for assertions and for capturing replay fixtures.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

NOISE_TOKENS = 48


@dataclass
class Call:
    name: str
    args: dict[str, Any]
    style: str = "native"  # native | hermes | json


@dataclass
class Parallel:
    """Several calls in one reply. Emulated: one forced text holding them all. Native: the server's
    jinja handler answers one call per request, so each call is asked for separately and the real
    replies are joined into one (the calls after the first move to the next `tool_calls` index);
    what this tests is how the next request's history, holding both calls, goes through the template."""

    calls: list[Call]


@dataclass
class Answer:
    text: str


@dataclass
class Noise:
    max_tokens: int = NOISE_TOKENS


Step = Call | Parallel | Answer | Noise


@dataclass
class Exchange:
    path: str
    request: dict[str, Any] | None
    status: int
    content_type: str
    body: bytes
    original: dict[str, Any] | None = None  # the request as agentcli sent it, before the script's rewrite


def gbnf_literal(text: str) -> str:
    """`root ::= "<text>"` with GBNF string escapes."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'root ::= "{escaped}"'


def call_text(call: Call | Parallel) -> str:
    """The text a model writes for one call (or several) in an emulation dialect."""
    if isinstance(call, Parallel):
        return "\n".join(call_text(c) for c in call.calls)
    obj = json.dumps({"name": call.name, "arguments": call.args})
    if call.style == "hermes":
        return f"<tool_call>\n{obj}\n</tool_call>"
    if call.style == "json":
        return obj
    raise ValueError(call.style)


def pinned_schema(args: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"const": v} for k, v in args.items()},
        "required": list(args),
        "additionalProperties": False,
    }


def rewrite(body: dict[str, Any], step: Step) -> dict[str, Any]:
    """The request to forward for this step."""
    body = dict(body)
    if isinstance(step, Call) and step.style == "native":
        tools = []
        for tool in body.get("tools") or []:
            fn = dict(tool["function"])
            if fn["name"] == step.name:
                fn["parameters"] = pinned_schema(step.args)
            tools.append({**tool, "function": fn})
        body["tools"] = tools
        body["tool_choice"] = {"type": "function", "function": {"name": step.name}}
    elif isinstance(step, Call) and step.style == "json":
        body.pop("tools", None), body.pop("tool_choice", None)
        schema = {"type": "object", "properties": {"name": {"const": step.name}, "arguments": pinned_schema(step.args)},
                  "required": ["name", "arguments"], "additionalProperties": False}
        body["response_format"] = {"type": "json_object", "schema": schema}
    elif isinstance(step, (Call, Parallel)):
        body.pop("tools", None), body.pop("tool_choice", None)
        body["grammar"] = gbnf_literal(call_text(step))
    elif isinstance(step, Answer):
        body.pop("tools", None), body.pop("tool_choice", None)
        body["grammar"] = gbnf_literal(step.text)
    else:
        body["max_tokens"] = step.max_tokens
    body.setdefault("seed", 1107)
    return body


def turn_of(body: dict[str, Any]) -> int:
    return sum(1 for m in body.get("messages") or [] if isinstance(m, dict) and m.get("role") == "assistant")


@dataclass
class ScriptedProxy:
    """Forwards to `upstream` (a base URL like http://127.0.0.1:PORT), rewriting chat requests per the script."""

    upstream: str
    script: list[Step] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    edit: Callable[[dict[str, Any]], dict[str, Any]] | None = None  # a last free-form change
    # "assistant": the step is the number of assistant messages in the request (one per turn);
    # "replies": the number of replies so far with a body and status 200, for histories where one
    # turn becomes several assistant messages (one call per message) and for follow-up runs.
    advance: str = "assistant"
    _server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def step_for(self, body: dict[str, Any]) -> Step:
        turn = turn_of(body) if self.advance == "assistant" else sum(
            1 for e in self.exchanges if e.status == 200 and e.body.strip() and e.path.endswith("/chat/completions"))
        return self.script[min(turn, len(self.script) - 1)] if self.script else Noise()

    def chat_requests(self, *, original: bool = False) -> list[dict[str, Any]]:
        chats = [e for e in self.exchanges if e.request is not None and e.path.endswith("/chat/completions")]
        return [(e.original if original else e.request) or {} for e in chats]

    def start(self) -> ScriptedProxy:
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # the body ends when the connection closes: streams pass through

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                proxy._forward(self, "GET", None)

            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                proxy._forward(self, "POST", json.loads(raw or b"{}"))

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _forward(self, h: BaseHTTPRequestHandler, method: str, body: dict[str, Any] | None) -> None:
        original = body
        step = self.step_for(body) if body is not None and h.path.endswith("/chat/completions") else None
        if body is not None and isinstance(step, Parallel) and body.get("tools"):
            self._joined(h, body, step)
            return
        if body is not None and step is not None:
            body = rewrite(body, step)
            if self.edit is not None:
                body = self.edit(body)
        got = bytearray()
        with httpx.Client(timeout=120) as client, client.stream(method, self.upstream + h.path, json=body) as resp:
            ctype = resp.headers.get("content-type", "")
            # Recorded before the client can read the last byte: its next request (another thread)
            # must already count this reply when it picks its step.
            exchange = Exchange(h.path, body, resp.status_code, ctype, got, original)  # type: ignore[arg-type]
            self.exchanges.append(exchange)
            h.send_response(resp.status_code)
            h.send_header("content-type", ctype)
            h.end_headers()
            for chunk in resp.iter_raw():
                got += chunk
                h.wfile.write(chunk)
                h.wfile.flush()
        exchange.body = bytes(got)

    def _joined(self, h: BaseHTTPRequestHandler, body: dict[str, Any], step: Parallel) -> None:
        """One real reply per call, joined into one reply with every call (see Parallel)."""
        replies = []
        with httpx.Client(timeout=120) as client:
            for call in step.calls:
                resp = client.post(self.upstream + h.path, json=rewrite(body, call))
                replies.append(resp)
        status = next((r.status_code for r in replies if r.status_code != 200), 200)
        ctype = replies[0].headers.get("content-type", "")
        if status != 200:
            joined = next(r.content for r in replies if r.status_code != 200)
        elif body.get("stream"):
            joined = join_streams([r.content for r in replies])
        else:
            joined = join_bodies([r.json() for r in replies])
        self.exchanges.append(Exchange(h.path, rewrite(body, step.calls[0]), status, ctype, joined, body))
        h.send_response(status)
        h.send_header("content-type", ctype)
        h.end_headers()
        h.wfile.write(joined)
        h.wfile.flush()


def join_bodies(bodies: list[dict[str, Any]]) -> bytes:
    """Non-streamed replies with one call each -> one reply with all the calls."""
    first = bodies[0]
    message = first["choices"][0]["message"]
    message["tool_calls"] = [tc for b in bodies for tc in b["choices"][0]["message"].get("tool_calls") or []]
    message.pop("function_call", None)
    return json.dumps(first).encode()


def join_streams(streams: list[bytes]) -> bytes:
    """SSE replies with one call each -> one stream: the later calls' fragments take the next index,
    their opening role chunk and every finish but the last are dropped."""
    out: list[str] = []
    for k, raw in enumerate(streams):
        last = k == len(streams) - 1
        for line in raw.decode().splitlines():
            if not line.startswith("data: "):
                continue
            if line.strip() == "data: [DONE]":
                if last:
                    out.append(line)
                continue
            chunk = json.loads(line[6:])
            choice = (chunk.get("choices") or [{}])[0]
            delta = choice.get("delta") or {}
            if k and delta.get("role") and not delta.get("tool_calls"):
                continue
            if choice.get("finish_reason") and not last:
                continue
            for tc in delta.get("tool_calls") or []:
                tc["index"] = k
            if k:
                delta.pop("function_call", None)
            out.append("data: " + json.dumps(chunk))
    return ("\n\n".join(out) + "\n\n").encode()
