"""Every protocol, against its loopback server: whole and streamed turns, faults, retries."""

from __future__ import annotations

import pytest
from wire_helpers import APIS, CALLS, TEXT, ask, body_for, provider_for, server

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import Notice, RetryScheduled, StreamEvent, StreamKind


def assert_turn(parsed, *, ids: bool) -> None:
    assert parsed.text.strip() == TEXT
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [(n, a) for _i, n, a in CALLS]
    if ids:
        assert [c.id for c in parsed.tool_calls] == [i for i, _n, _a in CALLS]
    assert parsed.finish_reason == "tool_calls"


@pytest.mark.parametrize("api", APIS)
async def test_whole_turn(api, sleeps):
    with server(api) as srv:
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        parsed = await ask(p, api, stream=False)
        await p.aclose()
        assert_turn(parsed, ids=api in ("openai", "anthropic"))
        assert parsed.usage is not None and parsed.usage.input_tokens == 10
        assert len(srv.chat_requests()) == 1 and sleeps.delays == []


@pytest.mark.parametrize("api", APIS)
async def test_streamed_turn_matches_whole_turn(api, sleeps):
    with server(api) as srv:
        srv.queue(body_for(api), chunk_size=3)
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=True, events=events)
        await p.aclose()
    assert_turn(parsed, ids=api in ("openai", "anthropic"))
    stream = [e for e in events if isinstance(e, StreamEvent)]
    text = "".join(e.text for e in stream if e.kind is StreamKind.TEXT)
    assert text.strip() == TEXT
    assert len([e for e in stream if e.kind is StreamKind.TEXT]) > 3  # really streamed, not one blob
    starts = [e.name for e in stream if e.kind is StreamKind.TOOL_START]
    assert starts == ["read_file", "grep"]
    ends = [e.call for e in stream if e.kind is StreamKind.TOOL_END]
    assert [(c.name, c.arguments) for c in ends] == [(n, a) for _i, n, a in CALLS]
    assert not [e for e in events if isinstance(e, (Notice, RetryScheduled))]


@pytest.mark.parametrize("api", APIS)
async def test_stream_cut_mid_arguments_retries_the_whole_turn(api, sleeps):
    with server(api) as srv:
        srv.queue_cut(body_for(api), chunk_size=3)
        srv.queue(body_for(api), chunk_size=3)
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=True, events=events)
        await p.aclose()
        assert len(srv.chat_requests()) == 2
    assert_turn(parsed, ids=api in ("openai", "anthropic"))
    notice = next(i for i, e in enumerate(events) if isinstance(e, Notice))
    assert events[notice].message == "stream broke; retrying the turn"
    assert isinstance(events[notice + 1], RetryScheduled) and events[notice + 1].reason.startswith("stream broke")
    before = events[:notice]
    assert not [e for e in before if isinstance(e, StreamEvent) and e.kind in (StreamKind.TOOL_END, StreamKind.DONE)]
    after_ends = [e for e in events[notice:] if isinstance(e, StreamEvent) and e.kind is StreamKind.TOOL_END]
    assert len(after_ends) == 2  # only the retried attempt's complete calls
    assert sleeps.delays == [0.5]


@pytest.mark.parametrize("api", APIS)
async def test_stream_that_keeps_breaking_is_stream_broken(api, sleeps):
    with server(api) as srv:
        for _ in range(3):
            srv.queue_cut(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=True)
        await p.aclose()
        assert len(srv.chat_requests()) == 3
    assert info.value.code is Code.STREAM_BROKEN and "after 3 attempts" in info.value.message
    assert sleeps.delays == [0.5, 1.0]


@pytest.mark.parametrize("api", APIS)
async def test_connection_reset_is_retried(api, sleeps):
    with server(api) as srv:
        srv.queue_reset()
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=False, events=events)
        await p.aclose()
    assert parsed.tool_calls and sleeps.delays == [0.5]
    assert [e.reason for e in events if isinstance(e, RetryScheduled)] == ["connection failed"]


def _streams(api: str, req) -> bool:
    """Whether a recorded request asked for a stream (each API says it its own way)."""
    return server(api).wants_stream(req)


@pytest.mark.parametrize("api", APIS)
async def test_stream_dropped_before_its_first_byte_is_asked_whole_once_and_remembered(api, sleeps):
    """llama-cpp-python closes a stream whose prompt overflows n_ctx before any byte: that is no network
    error to retry three times; the same request unstreamed gets the real answer (or the real error)."""
    with server(api) as srv:
        srv.queue_reset()
        srv.queue(body_for(api))
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        first = await ask(p, api, stream=True, events=events)
        second = await ask(p, api, stream=True, events=events)
        await p.aclose()
        asked = [_streams(api, r) for r in srv.chat_requests()]
    assert first.tool_calls and second.tool_calls and sleeps.delays == []
    assert asked == [True, False, False]  # the next turn goes straight to the whole request
    notes = [e.message for e in events if isinstance(e, Notice)]
    assert len(notes) == 1 and "before its first byte" in notes[0] and "without streaming" in notes[0]
    assert not [e for e in events if isinstance(e, RetryScheduled)]


@pytest.mark.parametrize("api", APIS)
async def test_the_whole_fallback_survives_the_connection_its_stream_left(api, sleeps):
    """As llama-cpp-python does on overflow: an empty 200 stream on a kept-alive connection, which the
    server then closes when the next request arrives on it. The whole request the fallback sends is
    handed that pooled connection; closed before a byte of reply, it is sent once more on a new one
    (never three network retries ending in "is the server running?")."""
    from agentcli.testing.servers import Reply

    with server(api) as srv:
        srv.queue_reply(Reply(chunks=[], trailer=False, stream=True))
        srv.queue_reset()
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=True, events=events)
        await p.aclose()
        asked = [_streams(api, r) for r in srv.chat_requests()]
    assert parsed.tool_calls and sleeps.delays == []
    assert asked == [True, False, False]
    assert not [e for e in events if isinstance(e, RetryScheduled)]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True])
async def test_rate_limit_honours_retry_after(api, stream, sleeps):
    with server(api) as srv:
        srv.queue_error(429, retry_after="2")
        srv.queue_error(529 if api == "anthropic" else 503, retry_after_ms="1500")
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps)
        events: list = []
        parsed = await ask(p, api, stream=stream, events=events)
        await p.aclose()
    assert parsed.tool_calls
    assert sleeps.delays == [2.0, 1.5]
    retries = [e for e in events if isinstance(e, RetryScheduled)]
    assert [(e.reason, e.attempt, e.delay_s) for e in retries][0] == ("rate limited (HTTP 429)", 1, 2.0)
    assert "overloaded" in retries[1].reason


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True])
async def test_slow_first_byte_is_a_timeout_naming_the_url(api, stream, sleeps):
    with server(api) as srv:
        srv.queue_slow(body_for(api), delay=2.0)
        p = provider_for(srv, sleep=sleeps, limits={"request_timeout": 0.2, "max_retries": 0})
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=stream)
        await p.aclose()
    assert info.value.code is Code.TIMEOUT
    assert srv.url in (info.value.hint or "") and "loopback-model" in (info.value.hint or "")


@pytest.mark.parametrize("api", APIS)
async def test_stalled_stream_times_out_then_retries(api, sleeps):
    with server(api) as srv:
        srv.queue_stall(body_for(api), after=2)
        srv.queue(body_for(api))
        p = provider_for(srv, sleep=sleeps, limits={"stream_idle_timeout": 0.3})
        events: list = []
        parsed = await ask(p, api, stream=True, events=events)
        await p.aclose()
    assert parsed.tool_calls
    assert [e.reason for e in events if isinstance(e, RetryScheduled)] == ["timed out"]


@pytest.mark.parametrize("api", APIS)
async def test_non_json_error_body(api, sleeps):
    with server(api) as srv:
        srv.queue_error(502, "<html><body>502 Bad Gateway</body></html>", content_type="text/html")
        p = provider_for(srv, sleep=sleeps, limits={"max_retries": 0})
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=False)
        await p.aclose()
    assert info.value.code is Code.SERVER and info.value.status == 502
    assert "502 Bad Gateway" in info.value.message


async def test_200_with_a_body_that_is_not_json_is_retried(openai_server, sleeps):
    openai_server.queue("upstream hiccup", content_type="text/plain", stream=False)
    openai_server.queue(body_for("openai"))
    p = provider_for(openai_server, sleep=sleeps)
    parsed = await ask(p, "openai", stream=False)
    await p.aclose()
    assert parsed.tool_calls and sleeps.delays == [0.5]


RETRIED = [408, 409, 429, 500, 502, 503, 504, 529]
NOT_RETRIED = [(400, Code.BAD_REQUEST), (401, Code.AUTH), (403, Code.AUTH), (404, Code.NOT_FOUND),
               (413, Code.CONTEXT_LENGTH), (422, Code.BAD_REQUEST)]


@pytest.mark.parametrize("status", RETRIED)
async def test_retry_table_over_http_retried(status, openai_server, sleeps):
    openai_server.queue_error(status)
    openai_server.queue(body_for("openai"))
    p = provider_for(openai_server, sleep=sleeps)
    parsed = await ask(p, "openai", stream=False)
    await p.aclose()
    assert parsed.tool_calls and len(openai_server.chat_requests()) == 2 and len(sleeps.delays) == 1


@pytest.mark.parametrize("status,code", NOT_RETRIED)
async def test_retry_table_over_http_not_retried(status, code, openai_server, sleeps):
    openai_server.queue_error(status)
    openai_server.queue(body_for("openai"))
    p = provider_for(openai_server, sleep=sleeps)
    with pytest.raises(ProviderError) as info:
        await ask(p, "openai", stream=False)
    await p.aclose()
    assert info.value.code is code and len(openai_server.chat_requests()) == 1 and sleeps.delays == []
