"""The loopback servers speak each protocol's framing exactly (checked with plain httpx)."""

from __future__ import annotations

import json

import httpx
import pytest

from agentcli.testing.servers import compressing_server, cut_index, server_for
from agentcli.testing.streams import (
    anthropic_body,
    endless_chunks,
    gemini_body,
    ollama_body,
    openai_body,
    openai_chunks,
    to_chunks,
)

CALL = {"id": "call_1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "src/app.py"}'}}


def test_openai_whole_and_sse(openai_server):
    body = openai_body("Hello there", tool_calls=[CALL])
    openai_server.queue(body).queue(body)
    with httpx.Client() as c:
        whole = c.post(f"{openai_server.url}/chat/completions", json={"model": "m", "messages": []}, headers={"authorization": "Bearer k"})
        assert whole.status_code == 200 and whole.json() == body
        streamed = c.post(f"{openai_server.url}/chat/completions", json={"model": "m", "messages": [], "stream": True})
    assert streamed.headers["content-type"] == "text/event-stream"
    text = streamed.text
    assert text.endswith("data: [DONE]\n\n")
    datas = [line[6:] for line in text.splitlines() if line.startswith("data: ")]
    chunks = [json.loads(d) for d in datas[:-1]]
    content = "".join(ch["choices"][0]["delta"].get("content") or "" for ch in chunks if ch["choices"])
    args = "".join(tc["function"].get("arguments", "") for ch in chunks if ch["choices"]
                   for tc in ch["choices"][0]["delta"].get("tool_calls") or ())
    assert content == "Hello there" and json.loads(args) == {"path": "src/app.py"}
    assert sum(1 for ch in chunks if ch["choices"] and ch["choices"][0]["delta"].get("tool_calls")) > 2  # split across chunks
    assert chunks[-1]["usage"]["total_tokens"] == 15
    rec = openai_server.requests[0]
    assert (rec.method, rec.path, rec.headers["authorization"], rec.body["model"]) == ("POST", "/v1/chat/completions", "Bearer k", "m")


def test_anthropic_sse_has_event_names(anthropic_server):
    anthropic_server.queue(anthropic_body("Hi", tool_uses=[{"type": "tool_use", "id": "toolu_1", "name": "ls", "input": {"path": "."}}]))
    with httpx.Client() as c:
        text = c.post(f"{anthropic_server.url}/v1/messages", json={"stream": True}).text
    blocks = [b for b in text.split("\n\n") if b]
    names = [b.splitlines()[0].removeprefix("event: ") for b in blocks]
    assert names[0] == "message_start" and names[1] == "ping" and names[-1] == "message_stop"
    assert "input_json_delta" in text and names[-2] == "message_delta"
    for b in blocks:
        event, data = b.splitlines()
        assert json.loads(data.removeprefix("data: "))["type"] == event.removeprefix("event: ")


def test_ollama_streams_ndjson_by_default(ollama_server):
    body = ollama_body("Hello", tool_calls=[{"function": {"name": "ls", "arguments": {"path": "."}}}])
    ollama_server.queue(body).queue(body)
    with httpx.Client() as c:
        lines = c.post(f"{ollama_server.url}/api/chat", json={"model": "m", "messages": []}).text.splitlines()
        whole = c.post(f"{ollama_server.url}/api/chat", json={"model": "m", "messages": [], "stream": False}).json()
        tags = c.get(f"{ollama_server.url}/api/tags").json()
        show = c.post(f"{ollama_server.url}/api/show", json={"model": "loopback-model"}).json()
        missing = c.post(f"{ollama_server.url}/api/show", json={"model": "nope"})
    objs = [json.loads(line) for line in lines]
    assert objs[-1]["done"] is True and all(not o["done"] for o in objs[:-1])
    assert any(o["message"].get("tool_calls") for o in objs)
    assert whole == body
    assert tags["models"][0]["name"] == "loopback-model"
    assert "tools" in show["capabilities"] and missing.status_code == 404


def test_gemini_alt_sse_and_routes(gemini_server):
    gemini_server.queue(gemini_body("Hello world", calls=[{"name": "ls", "args": {"path": "."}}]))
    with httpx.Client() as c:
        r = c.post(f"{gemini_server.url}/v1beta/models/gemini-x:streamGenerateContent?alt=sse", json={})
        wrong = c.post(f"{gemini_server.url}/v1/models/gemini-x:generateContent", json={})
    assert r.text.count("\r\n\r\n") >= 3
    chunks = [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]
    assert chunks[-1]["candidates"][0]["finishReason"] == "STOP" and "usageMetadata" in chunks[-1]
    assert gemini_server.requests[0].query == {"alt": ["sse"]}
    assert wrong.status_code == 404


def test_error_replies_and_empty_queue(openai_server):
    openai_server.queue_error(429, retry_after="2", retry_after_ms="2000")
    openai_server.queue_error(502, "<html>Bad Gateway</html>", content_type="text/html")
    with httpx.Client() as c:
        r1 = c.post(f"{openai_server.url}/chat/completions", json={})
        r2 = c.post(f"{openai_server.url}/chat/completions", json={})
        r3 = c.post(f"{openai_server.url}/chat/completions", json={})
    assert r1.status_code == 429 and r1.headers["retry-after"] == "2" and r1.headers["retry-after-ms"] == "2000"
    assert r1.json()["error"]["code"] == 429
    assert r2.status_code == 502 and r2.text.startswith("<html>")
    assert r3.status_code == 500 and "no scripted reply left" in r3.text
    assert openai_server.pending == 0


def test_reset_and_cut(openai_server):
    body = openai_body("", tool_calls=[CALL])
    openai_server.queue_reset().queue_cut(body)
    with httpx.Client() as c:
        with pytest.raises(httpx.TransportError):
            c.post(f"{openai_server.url}/chat/completions", json={})
        with pytest.raises(httpx.RemoteProtocolError):
            c.post(f"{openai_server.url}/chat/completions", json={"stream": True})


def test_slow_first_byte(openai_server):
    openai_server.queue_slow(openai_body("late"), delay=1.0)
    with httpx.Client(timeout=0.2) as c:
        with pytest.raises(httpx.ReadTimeout):
            c.post(f"{openai_server.url}/chat/completions", json={})


@pytest.mark.parametrize("api", ["openai", "anthropic", "ollama", "gemini"])
def test_cut_index_falls_inside_the_first_call(api):
    bodies = {
        "openai": openai_body("ab", tool_calls=[CALL]),
        "anthropic": anthropic_body("ab", tool_uses=[{"type": "tool_use", "id": "t", "name": "ls", "input": {"path": "."}}]),
        "ollama": ollama_body("ab", tool_calls=[{"function": {"name": "ls", "arguments": {"path": "."}}}]),
        "gemini": gemini_body("ab", calls=[{"name": "ls", "args": {"path": "."}}]),
    }
    chunks = to_chunks(api, bodies[api], 4)
    n = cut_index(chunks, server_for(api).call_piece)
    sent = json.dumps(chunks[:n])
    assert 0 < n < len(chunks)
    assert '"path": "."' not in sent and '{\\"path\\": \\".\\"}' not in sent  # the arguments never complete


def test_openai_chunks_carry_reasoning():
    body = openai_body("answer")
    body["choices"][0]["message"]["reasoning_content"] = "thinking hard"
    chunks = openai_chunks(body, 5)
    assert "".join(c["choices"][0]["delta"].get("reasoning_content", "") for c in chunks if c["choices"]) == "thinking hard"


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressing_server_compresses_only_what_the_client_accepts(coding):
    body = openai_body("Hello there", tool_calls=[CALL])
    with compressing_server("openai", coding) as srv, httpx.Client() as c:
        srv.queue(body).queue(body).queue(body)
        url = f"{srv.url}/chat/completions"
        plain = c.post(url, json={"model": "m"}, headers={"accept-encoding": "identity"})
        assert "content-encoding" not in plain.headers and plain.json() == body and srv.compressed == 0
        packed = c.post(url, json={"model": "m"}, headers={"accept-encoding": "gzip, deflate"})
        assert packed.headers["content-encoding"] == ("gzip" if coding == "gzip" else "deflate")
        assert packed.json() == body and srv.compressed == 1  # httpx decodes it: the bytes are the coding's
        streamed = c.post(url, json={"model": "m", "stream": True}, headers={"accept-encoding": "gzip, deflate"})
        assert streamed.text.endswith("data: [DONE]\n\n") and srv.compressed == 2


def test_endless_and_trickling_replies_are_valid_as_far_as_they_go():
    for api in ("openai", "anthropic", "ollama", "gemini"):
        head = [c for _, c in zip(range(12), endless_chunks(api, "again "))]
        text = json.dumps(head)
        assert text.count("again ") >= 6 and "finishReason" not in text and '"done": true' not in text, api
    with server_for("openai") as srv, httpx.Client() as c:
        srv.queue_trickle(openai_body("slow"), byte_delay=0.001)
        assert c.post(f"{srv.url}/chat/completions", json={"model": "m"}).json()["choices"][0]["message"]["content"] == "slow"
