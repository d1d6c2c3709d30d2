"""Errors that say what helps: chosen by provider and by what the server sent, never by habit.

Template errors are quoted once and not retried; an HTML page is summarised, not pasted; URL hints
fit the API shape; a context overflow on the first turn says how to make room; a stream that fails
before its first byte (or sends nothing) is asked whole once, and the endpoint is remembered.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from wire_helpers import APIS, ask, body_for, provider_for, server

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import Notice, RetryScheduled
from agentcli.core.types import Message
from agentcli.core.types import ParsedResponse as Parsed
from agentcli.testing.servers import Reply

REAL = Path(__file__).parents[1] / "fixtures" / "real"

# What real chat templates say when they refuse a conversation (llama.cpp / llama-cpp-python: HTTP 500).
TEMPLATE_ERRORS = [
    "Conversation roles must alternate user/assistant/user/assistant/...",
    "This model only supports single tool-calls at once!",
    "jinja2.exceptions.TemplateError: Conversation roles must alternate user/assistant",
    "Error: raise_exception('After the optional system message, conversation roles must alternate')",
    "Tool call IDs should be alphanumeric strings with length 9!",
    "Failed to apply chat template: TemplateError",
]


# Every message, every API and both modes, without the full product (each case starts a server).
TEMPLATE_CASES = [(APIS[i % 4], i % 3 != 0, m) for i, m in enumerate(TEMPLATE_ERRORS + TEMPLATE_ERRORS[:2])]


@pytest.mark.parametrize(("api", "stream", "message"), TEMPLATE_CASES)
async def test_a_template_error_is_quoted_once_and_not_retried(api, stream, message, sleeps):
    with server(api) as srv:
        srv.queue_error(500, srv.error_body(500, message))
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=stream, events=events)
        await p.aclose()
        assert len(srv.chat_requests()) == 1
    err = info.value
    assert not err.retryable and sleeps.delays == [] and not [e for e in events if isinstance(e, RetryScheduled)]
    assert err.message.count(message[:30]) == 1 and "attempts" not in err.message
    assert "chat template" in (err.hint or "") and "overloaded" not in (err.hint or "")


HTML_PAGES = [
    ("<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1>"
     "</center><hr><center>nginx/1.25.3</center>" + "<p>padding</p>" * 400 + "</body></html>", "502 Bad Gateway"),
    ("<html><body><h1>Service Unavailable</h1><script>var x = '" + "y" * 5000 + "';</script></body></html>",
     "Service Unavailable"),
    ("<html><body>upstream connect error</body></html>", "upstream connect error"),
]


HTML_CASES = [(APIS[i % 4], status, *HTML_PAGES[i % 3]) for i, status in enumerate([404, 502, 503, 503, 502, 404])]


@pytest.mark.parametrize(("api", "status", "page", "title"), HTML_CASES)
async def test_an_html_error_page_is_summarised(api, status, page, title, sleeps):
    with server(api) as srv:
        srv.queue_error(status, page, content_type="text/html")
        p = provider_for(srv, sleep=sleeps, limits={"max_retries": 0})
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=False)
        await p.aclose()
    err = info.value
    assert f"an HTML page: {title}" in err.message and len(err.message) < 250
    assert "<" not in err.message and "padding" not in err.message and "yyyy" not in err.message
    assert "HTML page" in (err.hint or "") and "overloaded" not in (err.hint or "")
    assert err.code is not Code.OVERLOADED


@pytest.mark.parametrize("api", APIS)
async def test_a_404_names_the_url_shape_of_its_own_api(api, sleeps):
    with server(api) as srv:
        srv.queue_error(404, srv.error_body(404, "no such route"))
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=False)
        await p.aclose()
    hint = info.value.hint or ""
    assert ("end in /v1" in hint) is (api == "openai")
    assert {"openai": "/v1", "anthropic": "api.anthropic.com", "gemini": "/v1beta", "ollama": "11434"}[api] in hint


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
async def test_litellm_invalid_model_name_on_the_gemini_route_is_a_model_problem(stream, sleeps):
    body = {"error": {"message": "400: {'error': '/v1beta/models: Invalid model name passed in model=gemini-9. "
                                 "Call `/v1/models` to view available models for your key.'}", "code": "400"}}
    with server("gemini") as srv:
        srv.queue_error(400, body)
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, "gemini", stream=stream, model="gemini-9")
        await p.aclose()
    assert info.value.code is Code.MODEL_MISSING and "does not serve model 'gemini-9'" in (info.value.hint or "")
    assert "[request]" not in (info.value.hint or "")


def _real(name: str) -> Reply:
    resp = json.loads((REAL / f"{name}.json").read_text())["response"]
    return Reply(body=resp["body"].encode(), status=resp["status"], content_type=resp["content_type"], stream=False)


LATER = [Message.system("You are a coding agent."), Message.user("Where is main defined?"),
         Message.assistant(Parsed(text="Let me look.")), Message.user("Go on.")]


@pytest.mark.parametrize("first_turn", [True, False])
async def test_a_stream_dropped_by_an_overflow_gets_the_real_error_and_a_hint_that_helps(first_turn, sleeps):
    """llama-cpp-python closes a stream whose prompt passes n_ctx before any byte; asked whole it says why."""
    with server("openai") as srv:
        srv.queue_reset()
        srv.queue_reply(_real("llama_overflow_whole"))
        srv.queue_reply(_real("llama_overflow_whole"))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        with pytest.raises(ProviderError) as info:
            await ask(p, "openai", stream=True, events=events, messages=None if first_turn else LATER)
        with pytest.raises(ProviderError):  # the next turn asks whole at once: no stream, no retry
            await ask(p, "openai", stream=True, messages=LATER)
        await p.aclose()
        asked = [r.body.get("stream") for r in srv.chat_requests()]
    err = info.value
    assert asked == [True, False, False] and sleeps.delays == []
    assert err.code is Code.CONTEXT_LENGTH and "maximum context length is 4096" in err.message
    assert "is the server running" not in (err.hint or "")
    if first_turn:
        assert "first request" in err.hint and "-c" in err.hint and "n_ctx" in err.hint and "new session" not in err.hint
    else:
        assert "new session" in (err.hint or "")


@pytest.mark.parametrize("api", APIS)
async def test_an_empty_200_stream_is_asked_whole_once_then_remembered(api, sleeps):
    """llama-cpp-python answers an empty 200 stream whenever it picks a tool: two requests a turn, every turn,
    unless the endpoint is remembered."""
    with server(api) as srv:
        srv.queue_stream([], trailer=False)
        for _ in range(3):
            srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        for _ in range(3):
            assert (await ask(p, api, stream=True, events=events)).tool_calls
        await p.aclose()
        asked = [srv.wants_stream(r) for r in srv.chat_requests()]
    assert asked == [True, False, False, False]  # 4 requests for 3 turns, not 6
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert len(notes) == 1 and "empty stream" in notes[0]


async def test_a_refused_connection_is_still_a_network_error(sleeps):
    with server("openai") as srv:
        url = srv.url
    p = provider_for(type("Gone", (), {"api": "openai", "url": url})(), sleep=sleeps, limits={"max_retries": 1})
    with pytest.raises(ProviderError) as info:
        await ask(p, "openai", stream=True)
    await p.aclose()
    assert info.value.code is Code.NETWORK and "is the server running" in (info.value.hint or "")


async def test_a_json_error_labelled_html_is_still_read_as_json(sleeps):
    with server("openai") as srv:
        srv.queue_error(400, json.dumps({"error": {"message": "temperature must be <= 2"}}), content_type="text/html")
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, "openai", stream=False)
        await p.aclose()
    assert info.value.message.endswith(": temperature must be <= 2") and "HTML" not in (info.value.hint or "")


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_closed_after_its_headers_but_before_any_data_is_asked_whole(api, sleeps):
    with server(api) as srv:
        srv.queue_cut(body_for(api), after=0)
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=True, events=events)
        await p.aclose()
        asked = [srv.wants_stream(r) for r in srv.chat_requests()]
    assert parsed.tool_calls and asked == [True, False] and sleeps.delays == []
    assert [e.message for e in events if isinstance(e, Notice)] == [
        "the server closed the stream before its first byte; asking this server without streaming from now on"]


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_cut_after_some_data_is_still_retried_as_a_stream(api, sleeps):
    with server(api) as srv:
        srv.queue_cut(body_for(api), after=2, chunk_size=3)
        srv.queue(body_for(api), chunk_size=3)
        p = provider_for(srv, sleep=sleeps)
        parsed = await ask(p, api, stream=True)
        await p.aclose()
        asked = [srv.wants_stream(r) for r in srv.chat_requests()]
    assert parsed.tool_calls and asked == [True, True] and sleeps.delays == [0.5]
