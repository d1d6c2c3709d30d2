"""Exactly what goes on the wire: paths, headers, bodies, tool results in each API's shape."""

from __future__ import annotations

import json

import pytest
from wire_helpers import APIS, CALLS, KEY, ask, body_for, provider_for, server

from agentcli.core.types import Message, ParsedResponse, ToolCall, ToolResult

HISTORY = [
    Message.system("You are a coding agent."),
    Message.user("Where is main?"),
    Message.assistant(ParsedResponse(text="Looking.", tool_calls=[ToolCall(n, a, i) for i, n, a in CALLS])),
    Message.results([ToolResult("call_a1", "read_file", True, "def main(): pass"),
                     ToolResult("call_b2", "grep", True, "src/app.py:1:def main")]),
]


async def sent(api: str, *, stream: bool = False, **profile_kw):
    with server(api) as srv:
        srv.queue(body_for(api, "done", []))
        p = provider_for(srv, **profile_kw)
        await ask(p, api, stream=stream, messages=HISTORY, temperature=0.2, max_output_tokens=500)
        await p.aclose()
        return srv.last, srv.url


@pytest.mark.parametrize("stream", [False, True])
async def test_openai_request(stream):
    req, _url = await sent("openai", stream=stream)
    assert (req.method, req.path) == ("POST", "/v1/chat/completions")
    assert req.headers["authorization"] == f"Bearer {KEY}"
    assert req.headers["content-type"] == "application/json"
    body = req.body
    assert body["model"] == "loopback-model" and body["stream"] is stream
    assert (body.get("stream_options") == {"include_usage": True}) is stream
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool"]
    calls = body["messages"][2]["tool_calls"]
    assert [c["id"] for c in calls] == ["call_a1", "call_b2"]
    assert json.loads(calls[0]["function"]["arguments"]) == {"path": "src/app.py"}  # arguments as a JSON string
    assert [(m["tool_call_id"], m["content"]) for m in body["messages"][3:]] == [
        ("call_a1", "def main(): pass"), ("call_b2", "src/app.py:1:def main")]
    assert [t["function"]["name"] for t in body["tools"]] == ["read_file", "grep"]


@pytest.mark.parametrize("stream", [False, True])
async def test_anthropic_request(stream):
    req, _url = await sent("anthropic", stream=stream)
    assert (req.method, req.path) == ("POST", "/v1/messages")
    assert req.headers["x-api-key"] == KEY and req.headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in req.headers
    body = req.body
    assert body["max_tokens"] == 500 and body["system"] == "You are a coding agent."
    assert body.get("stream", False) is stream
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "user"]
    uses = [b for b in body["messages"][1]["content"] if b["type"] == "tool_use"]
    assert [(u["id"], u["input"]) for u in uses] == [("call_a1", {"path": "src/app.py"}), ("call_b2", {"pattern": "def main", "path": "src"})]
    results = body["messages"][2]["content"]
    assert [(r["type"], r["tool_use_id"]) for r in results] == [("tool_result", "call_a1"), ("tool_result", "call_b2")]
    assert [t["name"] for t in body["tools"]] == ["read_file", "grep"] and "input_schema" in body["tools"][0]


async def test_anthropic_max_tokens_is_always_set():
    with server("anthropic") as srv:
        srv.queue(body_for("anthropic", "hi", []))
        p = provider_for(srv)
        await ask(p, "anthropic", stream=False)
        await p.aclose()
    assert isinstance(srv.last.body["max_tokens"], int) and srv.last.body["max_tokens"] > 0


@pytest.mark.parametrize("stream", [False, True])
async def test_ollama_request(stream):
    req, _url = await sent("ollama", stream=stream)
    assert (req.method, req.path) == ("POST", "/api/chat")
    assert not {"authorization", "x-api-key", "x-goog-api-key"} & set(req.headers)
    body = req.body
    assert body["stream"] is stream  # always explicit: Ollama streams when it is missing
    calls = body["messages"][2]["tool_calls"]
    assert calls[0]["function"]["arguments"] == {"path": "src/app.py"}  # arguments as an object
    assert [m["role"] for m in body["messages"][3:]] == ["tool", "tool"]
    assert body["options"] == {"temperature": 0.2, "num_predict": 500}


@pytest.mark.parametrize("stream", [False, True])
async def test_gemini_request(stream):
    req, _url = await sent("gemini", stream=stream)
    method = "streamGenerateContent" if stream else "generateContent"
    assert (req.method, req.path) == ("POST", f"/v1beta/models/loopback-model:{method}")
    assert req.query == ({"alt": ["sse"]} if stream else {})
    assert req.headers["x-goog-api-key"] == KEY
    assert KEY not in req.path and "key" not in req.query  # the key never travels in the URL
    body = req.body
    assert "model" not in body and "stream" not in body
    assert body["systemInstruction"] == {"parts": [{"text": "You are a coding agent."}]}
    roles = [c["role"] for c in body["contents"]]
    assert roles == ["user", "model", "user"]
    calls = [p["functionCall"] for p in body["contents"][1]["parts"] if "functionCall" in p]
    responses = [p["functionResponse"] for p in body["contents"][2]["parts"]]
    assert [c["name"] for c in calls] == [r["name"] for r in responses] == ["read_file", "grep"]
    assert body["generationConfig"]["maxOutputTokens"] == 500


async def test_openrouter_uses_routing_headers_and_bearer():
    with server("openai") as srv:
        srv.queue(body_for("openai", "hi", []))
        p = provider_for(srv, provider="openrouter", headers={"HTTP-Referer": "https://example.org/agentcli", "X-Title": "agentcli"})
        await ask(p, "openai", stream=False)
        await p.aclose()
    h = srv.last.headers
    assert h["http-referer"] == "https://example.org/agentcli" and h["x-title"] == "agentcli"
    assert h["authorization"] == f"Bearer {KEY}"


async def test_request_overrides_and_transforms_reach_the_body():
    with server("openai") as srv:
        srv.queue(body_for("openai", "done", []))
        p = provider_for(srv, request={"top_p": 0.9, "provider": {"order": ["a", "b"]}},
                         transforms=["deepseek_reasoning_content", "null_content_when_blank"])
        hist = HISTORY[:2] + [Message.assistant(ParsedResponse(tool_calls=[ToolCall("read_file", {"path": "a"}, "c1")]))] + [
            Message.results([ToolResult("c1", "read_file", True, "x")])]
        await ask(p, "openai", stream=False, messages=hist)
        await p.aclose()
    body = srv.last.body
    assert body["top_p"] == 0.9 and body["provider"] == {"order": ["a", "b"]}
    assistant = body["messages"][2]
    assert assistant["reasoning_content"] == "" and assistant["content"] is None


async def test_response_transform_fixes_a_legacy_function_call():
    legacy = {"id": "x", "object": "chat.completion", "model": "m", "choices": [{"index": 0, "finish_reason": "function_call",
              "message": {"role": "assistant", "content": None, "function_call": {"name": "read_file", "arguments": '{"path":"a.py"}'}}}]}
    with server("openai") as srv:
        srv.queue(legacy)
        p = provider_for(srv, transforms=["function_call_to_tool_calls"])
        parsed = await ask(p, "openai", stream=False)
        await p.aclose()
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("read_file", {"path": "a.py"})]


@pytest.mark.parametrize("api", APIS)
async def test_thinking_is_carried(api):
    bodies = {
        "openai": lambda: _with(body_for("openai", "Answer.", []), lambda b: b["choices"][0]["message"].update(reasoning_content="Let me think.")),
        "anthropic": lambda: _with(body_for("anthropic", "Answer.", []), lambda b: b["content"].insert(0, {"type": "thinking", "thinking": "Let me think.", "signature": "sig=="})),
        "ollama": lambda: _with(body_for("ollama", "Answer.", []), lambda b: b["message"].update(thinking="Let me think.")),
        "gemini": lambda: _with(body_for("gemini", "Answer.", []), lambda b: b["candidates"][0]["content"]["parts"].insert(0, {"text": "Let me think.", "thought": True})),
    }
    for stream in (False, True):
        with server(api) as srv:
            srv.queue(bodies[api](), chunk_size=4)
            p = provider_for(srv)
            parsed = await ask(p, api, stream=stream)
            await p.aclose()
        assert parsed.thinking == "Let me think." and parsed.text == "Answer."


def _with(body, fn):
    fn(body)
    return body
