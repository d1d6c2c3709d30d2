"""Errors: one ProviderError with a code and a hint, never the key; in-band stream errors; discovery calls."""

from __future__ import annotations

import socket

import pytest
from wire_helpers import KEY, ask, body_for, make_profile, provider_for, server

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import RetryScheduled
from agentcli.providers import create, names, provider_class, rows
from agentcli.testing.streams import anthropic_events, openai_chunks


def echo_credentials(req):
    """An error body that repeats the credentials back, as some proxies do."""
    sent = req.headers.get("authorization") or req.headers.get("x-api-key") or req.headers.get("x-goog-api-key")
    return {"error": {"message": f"Incorrect API key provided: {sent}", "type": "invalid_request_error", "code": "invalid_api_key"}}


@pytest.mark.parametrize("api", ["openai", "anthropic", "gemini"])
@pytest.mark.parametrize("stream", [False, True])
async def test_401_is_not_retried_and_never_shows_the_key(api, stream, sleeps, key_env):
    with server(api) as srv:
        srv.queue_error(401, echo_credentials)
        p = provider_for(srv, sleep=sleeps, api_key_env=key_env)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=stream)
        await p.aclose()
        assert len(srv.chat_requests()) == 1 and sleeps.delays == []
        assert KEY in str(srv.last.headers)  # the server did get it (and echoed it back)
    err = info.value
    assert err.code is Code.AUTH and err.status == 401
    for text in (str(err), err.message, err.hint or "", repr(err.args)):
        assert KEY not in text and KEY[8:] not in text
    assert "Incorrect API key provided" in err.message and "[REDACTED]" in err.message
    assert f"${key_env}" in (err.hint or "") and srv.url in (err.hint or "")
    assert KEY not in repr(p)


async def test_missing_key_names_the_variable(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ProviderError) as info:
        create(make_profile("openai", rows()["openai"].url))
    assert info.value.code is Code.AUTH and "OPENAI_API_KEY" in info.value.message
    monkeypatch.delenv("MY_GATEWAY_KEY", raising=False)
    with pytest.raises(ProviderError) as info:
        create(make_profile("anthropic", "http://127.0.0.1:1", api_key_env="MY_GATEWAY_KEY"))
    assert "MY_GATEWAY_KEY" in info.value.message and "export MY_GATEWAY_KEY" in (info.value.hint or "")


async def test_key_is_read_from_the_named_variable(monkeypatch):
    monkeypatch.setenv("MY_GATEWAY_KEY", "sk-from-env-abcdefghijklmnop")
    with server("openai") as srv:
        srv.queue(body_for("openai", "hi", []))
        p = create(make_profile("openai", srv.url, api_key_env="MY_GATEWAY_KEY"))
        await ask(p, "openai", stream=False)
        await p.aclose()
    assert srv.last.headers["authorization"] == "Bearer sk-from-env-abcdefghijklmnop"


async def test_local_openai_compatible_server_needs_no_key(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with server("openai") as srv:
        srv.queue(body_for("openai", "hi", []))
        p = create(make_profile("openai", srv.url))
        await ask(p, "openai", stream=False)
        await p.aclose()
    assert "authorization" not in srv.last.headers


async def test_empty_api_key_env_sends_no_key(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-be-sent-abcdefghij")
    with server("openai") as srv:
        srv.queue(body_for("openai", "hi", []))
        p = create(make_profile("openai", srv.url, api_key_env=""))
        await ask(p, "openai", stream=False)
        await p.aclose()
    assert "authorization" not in srv.last.headers


def test_registry_and_defaults(monkeypatch):
    assert set(names()) == {"openai", "openrouter", "anthropic", "ollama", "gemini", "scripted"}
    for name, row in rows().items():
        # The row's api is what callers read before the class is imported: the class must agree.
        assert row.api is None or provider_class(name).api == row.api, name
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-or-v1-abcdefghijklmnopqrstuvwxyz")
    p = create(make_profile("openrouter", None))
    # OpenRouter is a row on the OpenAI shape: the OpenAI class, under the row's name, URL and key.
    assert p.name == "openrouter" and p.url == "https://openrouter.ai/api/v1" and p.api == "openai"
    assert p.key_env == "OPENROUTER_API_KEY"
    assert create(make_profile("ollama", None)).url == "http://localhost:11434"
    with pytest.raises(KeyError):
        provider_class("nope")


async def test_ollama_model_without_tools_is_tools_unsupported(ollama_server, sleeps):
    ollama_server.queue_error(400, {"error": "registry.ollama.ai/library/gemma2:2b does not support tools"})
    p = provider_for(ollama_server, sleep=sleeps)
    with pytest.raises(ProviderError) as info:
        await ask(p, "ollama", stream=True)
    await p.aclose()
    assert info.value.code is Code.TOOLS_UNSUPPORTED and sleeps.delays == []
    assert "tool_format" in (info.value.hint or "")


@pytest.mark.parametrize("status,message", [
    (500, "tools param requires --jinja flag"),  # llama.cpp
    (400, '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'),  # vLLM
    (500, "Unsupported param: tools"),
])
async def test_openai_compatible_servers_rejecting_tools(status, message, openai_server, sleeps):
    openai_server.queue_error(status, {"error": {"code": status, "message": message, "type": "server_error"}})
    p = provider_for(openai_server, sleep=sleeps)
    with pytest.raises(ProviderError) as info:
        await ask(p, "openai", stream=False)
    await p.aclose()
    assert info.value.code is Code.TOOLS_UNSUPPORTED and len(openai_server.chat_requests()) == 1


@pytest.mark.parametrize("api,status,body", [
    ("ollama", 404, {"error": 'model "llama9" not found, try pulling it first'}),
    ("openai", 404, {"error": {"message": "The model `gpt-9` does not exist or you do not have access to it.", "type": "invalid_request_error", "code": "model_not_found"}}),
    ("anthropic", 404, {"type": "error", "error": {"type": "not_found_error", "message": "model: claude-9"}}),
    ("gemini", 404, {"error": {"code": 404, "message": "models/gemini-9 is not found for API version v1beta", "status": "NOT_FOUND"}}),
])
async def test_unknown_model_is_model_missing(api, status, body, sleeps):
    with server(api) as srv:
        srv.queue_error(status, body)
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=False)
        await p.aclose()
    assert info.value.code is Code.MODEL_MISSING and sleeps.delays == []
    assert "loopback-model" in (info.value.hint or "")


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


async def test_connection_refused_hint_names_url_and_how_to_start(sleeps):
    url = f"http://127.0.0.1:{closed_port()}"
    p = create(make_profile("ollama", url), sleep=sleeps)
    events: list = []
    with pytest.raises(ProviderError) as info:
        await ask(p, "ollama", stream=True, events=events)
    await p.aclose()
    err = info.value
    assert err.code is Code.NETWORK and "connection refused" in err.message
    assert err.hint == f"is the server running at {url}? try `ollama serve`"
    assert len([e for e in events if isinstance(e, RetryScheduled)]) == 2  # connection errors are retried


async def test_anthropic_in_band_overloaded_error_is_retried(anthropic_server, sleeps):
    events = anthropic_events(body_for("anthropic"), 4)
    anthropic_server.queue_stream(events[:5] + [{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}])
    anthropic_server.queue(body_for("anthropic"))
    p = provider_for(anthropic_server, sleep=sleeps)
    seen: list = []
    parsed = await ask(p, "anthropic", stream=True, events=seen)
    await p.aclose()
    assert len(parsed.tool_calls) == 2
    assert [e.reason for e in seen if isinstance(e, RetryScheduled)] == ["server overloaded (HTTP 529)"]


async def test_anthropic_in_band_invalid_request_is_not_retried(anthropic_server, sleeps):
    anthropic_server.queue_stream([{"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}])
    p = provider_for(anthropic_server, sleep=sleeps)
    with pytest.raises(ProviderError) as info:
        await ask(p, "anthropic", stream=True)
    await p.aclose()
    assert info.value.code is Code.BAD_REQUEST and sleeps.delays == []


async def test_openai_mid_stream_error_chunk_is_retried(openai_server, sleeps):
    chunks = openai_chunks(body_for("openai"), 4)
    openai_server.queue_stream(chunks[:3] + [{"error": {"code": 502, "message": "Provider returned error"}}], trailer=False)
    openai_server.queue(body_for("openai"))
    p = provider_for(openai_server, sleep=sleeps)
    parsed = await ask(p, "openai", stream=True)
    await p.aclose()
    assert len(parsed.tool_calls) == 2 and sleeps.delays == [0.5]


async def test_ollama_in_band_error_line(ollama_server, sleeps):
    ollama_server.queue_stream([{"error": "an error was encountered while running the model"}])
    p = provider_for(ollama_server, sleep=sleeps, limits={"max_retries": 0})
    with pytest.raises(ProviderError) as info:
        await ask(p, "ollama", stream=True)
    await p.aclose()
    assert info.value.code is Code.SERVER and "while running the model" in info.value.message


async def test_sse_comments_and_pings_are_ignored(openai_server):
    chunks = openai_chunks(body_for("openai"), 4)
    openai_server.queue_stream([b": OPENROUTER PROCESSING\n\n", *chunks[:2], b": keep-alive\n\n", *chunks[2:]])
    p = provider_for(openai_server)
    parsed = await ask(p, "openai", stream=True)
    await p.aclose()
    assert len(parsed.tool_calls) == 2


@pytest.mark.parametrize("api,expected", [("openai", ["m1", "m2"]), ("anthropic", ["m1", "m2"]), ("ollama", ["m1", "m2"]), ("gemini", ["m1", "m2"])])
async def test_list_models(api, expected):
    srv = server(api)
    srv.models = ["m1", "m2"]
    with srv:
        p = provider_for(srv)
        assert await p.list_models() == expected
        await p.aclose()
    paths = {"openai": "/v1/models", "anthropic": "/v1/models", "ollama": "/api/tags", "gemini": "/v1beta/models"}
    assert srv.last.path == paths[api] and srv.last.method == "GET"


async def test_model_info():
    with server("ollama") as srv:
        srv.capabilities = {"loopback-model": ["completion", "tools", "thinking"]}
        p = provider_for(srv)
        info = await p.model_info("loopback-model")
        assert info is not None and "tools" in info["capabilities"]
        assert srv.last.path == "/api/show" and srv.last.body == {"model": "loopback-model"}
        with pytest.raises(ProviderError) as err:
            await p.model_info("absent")
        assert err.value.code is Code.MODEL_MISSING
        await p.aclose()
    for api in ("openai", "anthropic", "gemini"):
        with server(api) as srv:
            p = provider_for(srv)
            assert await p.model_info("loopback-model") is None
            await p.aclose()


def test_every_registered_provider_is_tested():
    from pathlib import Path

    here = Path(__file__).parent
    text = "".join(p.read_text() for p in here.glob("test_*.py")) + (here / "wire_helpers.py").read_text()
    for name in names():
        assert f'"{name}"' in text, f"provider {name!r} has no tests under tests/wire"
