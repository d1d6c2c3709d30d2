"""request_timeout bounds a whole request, streamed or not; a reply past the byte limit ends the turn.

A server that streams valid deltas forever, or trickles a byte at a time, is never idle, so only a
bound on the whole request ends it. Outcomes are asserted, never elapsed time.
"""

from __future__ import annotations

import pytest
from wire_helpers import APIS, ask, body_for, provider_for, server

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import RetryScheduled, StreamEvent, StreamKind

FAST = {"request_timeout": 0.5, "stream_idle_timeout": 5.0}


def assert_overtime(err: ProviderError) -> None:
    assert err.code is Code.TIMEOUT and not err.retryable
    assert "still arriving after limits.request_timeout (0.5 s)" in err.message
    assert "max_output_tokens" in (err.hint or "") and "request_timeout" in (err.hint or "")


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_that_never_ends_ends_at_request_timeout(api, sleeps):
    with server(api) as srv:
        srv.queue_endless()
        p = provider_for(srv, sleep=sleeps, limits=FAST)
        events: list = []
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=True, events=events)
        await p.aclose()
        assert len(srv.chat_requests()) == 1  # not asked again: it would run just as long
    assert_overtime(info.value)
    texts = [e for e in events if isinstance(e, StreamEvent) and e.kind is StreamKind.TEXT]
    assert len(texts) > 3  # the deltas were valid and shown as they came
    assert not [e for e in events if isinstance(e, RetryScheduled)]


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("api", APIS)
async def test_a_trickle_ends_at_request_timeout(api, stream, sleeps):
    with server(api) as srv:
        srv.queue_trickle(body_for(api), byte_delay=0.02)
        p = provider_for(srv, sleep=sleeps, limits=FAST)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=stream)
        await p.aclose()
        assert len(srv.chat_requests()) == 1
    assert_overtime(info.value)


@pytest.mark.parametrize("api", APIS)
async def test_a_stream_past_the_byte_limit_ends_with_a_clear_message(api, sleeps):
    with server(api) as srv:
        srv.queue_endless(chunk_delay=0.0)
        p = provider_for(srv, sleep=sleeps, limits={"max_response_bytes": 20_000})
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=True)
        await p.aclose()
        assert len(srv.chat_requests()) == 1
    assert "passed 20000 bytes" in info.value.message and not info.value.retryable
    assert "limits.max_response_bytes" in (info.value.hint or "")


@pytest.mark.parametrize("api", APIS)
async def test_a_reply_within_the_bound_is_unaffected(api, sleeps):
    with server(api) as srv:
        srv.queue(body_for(api), chunk_size=4)
        p = provider_for(srv, sleep=sleeps, limits={"request_timeout": 30.0})
        parsed = await ask(p, api, stream=True)
        await p.aclose()
    assert len(parsed.tool_calls) == 2
