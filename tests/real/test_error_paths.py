"""Errors as a local user meets them, from real servers with no proxy in between: a prompt over the
llama.cpp server's default context (2048), an HTML error page, and a port nobody listens on.

Each says what happened once, in words that point the right way, and never a traceback.
"""

from __future__ import annotations

import sys

import pytest
from conftest import free_port
from realkit import write_profile

GOAL = "List the files, then read notes.txt and tell me what it says."
OVERFLOW_GOAL = "word " * 3000  # about 3,000 tokens of the tiny tokenizer: over the default n_ctx of 2048


def _said(result) -> str:
    done = result.of("done")
    return (done[-1].get("error") or "") if done else result.stderr


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_overflow_at_the_default_context_is_named(llama_default_ctx, agent, workspace, tmp_path, stream):
    # Streamed, llama-cpp-python drops the connection before the first byte: asked once without
    # streaming, which gets the real HTTP 400 (never retried as "is the server running?").
    profile = write_profile(tmp_path, llama_default_ctx.url + "/v1", stream=stream)
    result = agent("run", OVERFLOW_GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    said = _said(result).lower()
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert "context" in said, said
    assert "is the server running" not in said and not result.of("retry"), result.stdout[-2000:]


@pytest.fixture(scope="module")
def html_server(spawn_server):
    """Python's own http.server: it answers a POST with its HTML 501 error page."""
    return spawn_server(lambda port: [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)], "/",
                        name="http-server")


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_an_html_error_page_is_said_briefly(html_server, agent, workspace, tmp_path, stream):
    profile = write_profile(tmp_path, html_server.url + "/v1", stream=stream)
    result = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    said = _said(result)
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert "501" in said and "<html" not in said.lower() and "<!doctype" not in said.lower(), said
    assert "overloaded" not in said, said


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_port_nobody_listens_on_asks_whether_the_server_runs(agent, workspace, tmp_path, stream):
    url = f"http://127.0.0.1:{free_port()}/v1"
    profile = write_profile(tmp_path, url, stream=stream, max_retries=1)
    result = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    said = _said(result).lower()
    assert result.code == 1 and "Traceback" not in result.stderr, result.stderr
    assert "127.0.0.1" in said and ("running" in said or "connect" in said or "refused" in said), said
