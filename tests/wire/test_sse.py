"""SSE / NDJSON framing: the spec's corner cases and the idle timeout."""

from __future__ import annotations

import asyncio

import pytest

from agentcli.providers._sse import BadChunk, StreamStalled, decode_json, idle_lines, ndjson_objects, sse_events


async def agen(items, delay: float = 0.0):
    for item in items:
        if delay:
            await asyncio.sleep(delay)
        yield item


async def collect(aiter):
    return [x async for x in aiter]


async def test_sse_data_event_comment_and_crlf():
    lines = [": keep-alive", "event: content_block_delta\r", "data: {\"a\":1}\r", "\r",
             "data:{\"b\":2}", "", "data: [DONE]", ""]
    events = await collect(sse_events(agen(lines)))
    assert [(e.event, e.data) for e in events] == [
        ("content_block_delta", '{"a":1}'), ("message", '{"b":2}'), ("message", "[DONE]"),
    ]


async def test_sse_multiline_data_is_joined():
    events = await collect(sse_events(agen(["data: line1", "data: line2", "", "id: 7", "retry: 10", ""])))
    assert [e.data for e in events] == ["line1\nline2"]


async def test_sse_event_left_open_at_eof_is_dropped():
    events = await collect(sse_events(agen(["data: {\"ok\":1}", "", "data: {\"cut"])))
    assert [e.data for e in events] == ['{"ok":1}']


async def test_ndjson_skips_blank_lines_and_rejects_garbage():
    assert await collect(ndjson_objects(agen(['{"a":1}', "", '  {"b":2}  ']))) == [{"a": 1}, {"b": 2}]
    with pytest.raises(BadChunk):
        await collect(ndjson_objects(agen(["not json"])))
    with pytest.raises(BadChunk):
        decode_json("[1, 2]")


async def test_idle_timeout_raises_stream_stalled():
    with pytest.raises(StreamStalled):
        await collect(idle_lines(agen(["a", "b"], delay=0.2), 0.05))
    assert await collect(idle_lines(agen(["a", "b"], delay=0.01), 1.0)) == ["a", "b"]
