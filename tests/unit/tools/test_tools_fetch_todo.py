"""fetch_url against a real local HTTP server (internal addresses refused unless allowed, each
redirect re-checked, first request per host asked), and the todo plan as an event."""

from __future__ import annotations

import asyncio
import gzip
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import agentcli.tools.builtin.fetch_url as fetch_module
from agentcli.config.schema import BashConfig, FetchConfig
from agentcli.core.events import PlanUpdated
from agentcli.core.types import ToolCall
from agentcli.tools.base import ToolContext
from agentcli.tools.executor import execute
from agentcli.tools.registry import default_registry
from agentcli.tools.sandbox import Workspace

PAGE = (b"<html><head><title>Docs</title><style>x{}</style><script>alert(1)</script></head><body>"
        b"<h1>Greeting API</h1><p>Call <a href='/greet'>greet</a> to say hello.</p><ul><li>one</li><li>two</li></ul>"
        b"</body></html>")


class _Handler(BaseHTTPRequestHandler):
    seen: list[dict[str, str]] = []

    def log_message(self, *a):  # quiet
        pass

    def do_GET(self):  # noqa: N802
        _Handler.seen.append(dict(self.headers))
        if self.path == "/page":
            self._send(200, "text/html; charset=utf-8", PAGE)
        elif self.path == "/gz":
            self._send(200, "text/plain", gzip.compress(b"zipped text " * 10), {"Content-Encoding": "gzip"})
        elif self.path == "/big":
            self._send(200, "text/plain", b"x" * 200_000)
        elif self.path == "/bin":
            self._send(200, "application/octet-stream", b"\x00\x01")
        elif self.path == "/same":
            self._send(302, "text/plain", b"", {"Location": "/page"})
        elif self.path == "/away":
            self._send(302, "text/plain", b"", {"Location": f"http://internal.test:{self.server.server_port}/page"})
        else:
            self._send(404, "text/plain", b"no")

    def _send(self, code, ctype, body, extra=None):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def server():
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()


def _ctx(tmp_path: Path, **fetch) -> ToolContext:
    return ToolContext(Workspace(tmp_path), BashConfig(), 20_000, fetch=FetchConfig(**fetch))


def _run(ctx: ToolContext, name: str, **args):
    return asyncio.run(execute(ToolCall(name, args), default_registry(), ctx))


def test_a_page_comes_back_as_readable_text_without_scripts_or_credentials(tmp_path, server, monkeypatch):
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")  # the environment is not trusted: no proxy, no netrc
    r = _run(_ctx(tmp_path, allow_private=True), "fetch_url", url=server + "/page")
    assert r.ok, r.content
    assert "Title: Docs" in r.content and "# Greeting API" in r.content and "- one" in r.content
    assert f"[greet]({server}/greet)" in r.content
    assert "alert" not in r.content and "x{}" not in r.content
    headers = {k.lower() for k in _Handler.seen[-1]}
    assert not headers & {"authorization", "cookie", "proxy-authorization"}


def test_internal_addresses_are_refused_unless_the_profile_allows_them(tmp_path, server):
    r = _run(_ctx(tmp_path), "fetch_url", url=server + "/page")
    assert not r.ok and "loopback" in r.content and "allow_private" in r.content
    for url in ("file:///etc/passwd", "ftp://example.org/", "http://user:pw@example.org/"):
        r = _run(_ctx(tmp_path), "fetch_url", url=url)
        assert not r.ok, url


def test_every_address_of_a_name_is_checked(tmp_path, monkeypatch):
    monkeypatch.setattr(fetch_module, "resolve", lambda host, port: ["93.184.216.34", "10.0.0.7"])
    r = _run(_ctx(tmp_path), "fetch_url", url="http://mixed.test/")
    assert not r.ok and "private" in r.content and "10.0.0.7" in r.content


def test_a_redirect_is_checked_again_and_never_followed_to_a_new_host(tmp_path, server, monkeypatch):
    real = fetch_module.resolve
    monkeypatch.setattr(fetch_module, "resolve", lambda host, port: ["127.0.0.1"] if host.endswith(".test")
                        else real(host, port))
    ctx = _ctx(tmp_path, allow_private=True)
    r = _run(ctx, "fetch_url", url=server + "/same")
    assert r.ok and "Greeting API" in r.content
    r = _run(ctx, "fetch_url", url=server + "/away")
    assert not r.ok and "redirects to another host" in r.content and "internal.test" in r.content


def test_size_type_and_encoding_are_bounded(tmp_path, server):
    ctx = _ctx(tmp_path, allow_private=True, max_bytes=5000)
    r = _run(ctx, "fetch_url", url=server + "/big")
    assert r.ok and "page cut" in r.content and len(r.content) < 6000
    r = _run(ctx, "fetch_url", url=server + "/bin")
    assert not r.ok and "not text" in r.content
    r = _run(ctx, "fetch_url", url=server + "/gz")
    assert r.ok and "zipped text" in r.content
    r = _run(ctx, "fetch_url", url=server + "/missing")
    assert not r.ok and "404" in r.content


def test_the_first_request_per_host_asks_and_listed_hosts_do_not(tmp_path, server):
    tool = default_registry().get("fetch_url")
    ctx = _ctx(tmp_path, allow_private=True)
    assert tool.judge({"url": server + "/page"}, ctx).decision == "ask"
    assert _run(ctx, "fetch_url", url=server + "/page").ok
    assert tool.judge({"url": server + "/other"}, ctx).decision == "allow"  # this host was approved once
    listed = _ctx(tmp_path, allow_hosts=["*.python.org"])
    assert tool.judge({"url": "https://docs.python.org/3/"}, listed).decision == "allow"
    assert tool.judge({"url": "https://pypi.org/"}, listed).decision == "ask"


def test_the_plan_is_kept_and_reported_as_an_event(tmp_path):
    ctx = _ctx(tmp_path)
    items = [{"content": "read", "status": "done"}, {"content": "fix", "status": "in_progress"},
             {"content": "test", "status": "pending"}]
    r = _run(ctx, "todo", items=items)
    assert r.ok and "1 of 3 done" in r.content and "[~] fix" in r.content
    assert ctx.events == [PlanUpdated(items)]
    r = _run(ctx, "todo", items=[{"content": "a", "status": "in_progress"}, {"content": "b", "status": "in_progress"}])
    assert not r.ok and "more than one" in r.content
