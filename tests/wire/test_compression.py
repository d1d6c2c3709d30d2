"""Compressed replies: every API shape, whole and streamed, decoded exactly once and bounded after decoding.

A server or gateway that compresses JSON broke every non-streamed request: the body was decoded by
httpx, then wrapped in a new response with the original headers and decoded again.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import zlib

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_provider_turns import assert_turn
from wire_helpers import APIS, ask, body_for, provider_for

from agentcli.core.errors import ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.providers._body import Budget, UnsupportedEncoding, read_whole
from agentcli.providers._sse import BadChunk, ResponseTooLarge
from agentcli.testing.servers import CODINGS, Reply, compressing_server

IDS = {"openai": True, "anthropic": True, "ollama": False, "gemini": False}


# gzip and deflate on every API both ways; raw deflate (sent as "deflate" by some servers) once each way.
CASES = [(api, stream, coding) for api in APIS for stream in (False, True) for coding in ("gzip", "deflate")] + [
    ("openai", False, "raw-deflate"), ("ollama", True, "raw-deflate")]
assert {c for _a, _s, c in CASES} == set(CODINGS)


@pytest.mark.parametrize(("api", "stream", "coding"), CASES)
async def test_turn_through_a_compressing_server(api, stream, coding, sleeps):
    with compressing_server(api, coding) as srv:
        srv.queue(body_for(api), chunk_size=3)
        p = provider_for(srv, sleep=sleeps)
        parsed = await ask(p, api, stream=stream)
        await p.aclose()
        assert srv.compressed == 1 and len(srv.chat_requests()) == 1  # really compressed; read the first time
        assert srv.last.headers["accept-encoding"] == "gzip, deflate"
    assert_turn(parsed, ids=IDS[api])


@pytest.mark.parametrize("api", APIS)
async def test_compressed_error_body_is_quoted(api, sleeps):
    with compressing_server(api, "gzip") as srv:
        srv.queue_error(400, srv.error_body(400, "the field temperature is out of range"))
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, api, stream=True)
        await p.aclose()
        assert srv.compressed == 1
    assert "the field temperature is out of range" in info.value.message


async def test_doctor_probe_through_a_compressing_server(sleeps):
    with compressing_server("ollama", "deflate", models=("qwen3:8b",)) as srv:
        p = provider_for(srv, sleep=sleeps)
        assert await p.list_models() == ["qwen3:8b"]
        assert (await p.model_info("qwen3:8b") or {})["capabilities"] == ["completion", "tools"]
        await p.aclose()
        assert srv.compressed == 2


def _bomb(megabytes_out: int) -> bytes:
    """A gzip body of about megabytes_out / 1000 that inflates to megabytes_out MB of zeros.

    Built from one full-flushed block repeated, so making it costs one MB of compression. The
    trailer is never reached: the reader must stop long before.
    """
    z = zlib.compressobj(9, zlib.DEFLATED, zlib.MAX_WBITS | 16)
    mb = bytes(1 << 20)
    first = z.compress(mb) + z.flush(zlib.Z_FULL_FLUSH)
    again = z.compress(mb) + z.flush(zlib.Z_FULL_FLUSH)
    return first + again * (megabytes_out - 1) + z.flush()


@pytest.fixture(scope="module")
def bomb() -> bytes:
    return _bomb(1024)


@pytest.mark.parametrize("stream", [False, True])
async def test_a_decompression_bomb_is_refused_within_the_byte_bound(bomb, stream, sleeps):
    assert len(bomb) < 1_100_000
    ctype = "text/event-stream" if stream else "application/json"
    with compressing_server("openai", "gzip") as srv:
        srv.queue_reply(Reply(bomb, headers={"content-encoding": "gzip"}, content_type=ctype, stream=False))
        p = provider_for(srv, sleep=sleeps, limits={"max_response_bytes": 4_000_000})
        with pytest.raises(ProviderError) as info:
            await ask(p, "openai", stream=stream)
        await p.aclose()
        assert len(srv.chat_requests()) == 1  # not retried: the same bytes would come again
    assert "max_response_bytes" in (info.value.hint or "") and not info.value.retryable


async def test_an_encoding_we_never_offered_is_a_clear_error(sleeps):
    with compressing_server("openai", "gzip") as srv:
        srv.queue_reply(Reply(b"\x8b\x00\x00", headers={"content-encoding": "br"}, content_type="application/json",
                              stream=False))
        p = provider_for(srv, sleep=sleeps)
        with pytest.raises(ProviderError) as info:
            await ask(p, "openai", stream=False)
        await p.aclose()
        assert len(srv.chat_requests()) == 1
    assert "'br'" in info.value.message and info.value.code is Code.SERVER


# -- the decoder itself: any coding chain, any chunking, bounded output ------------------------

def _encode(data: bytes, coding: str) -> bytes:
    if coding == "gzip":
        return gzip.compress(data)
    z = zlib.compressobj(6, zlib.DEFLATED, zlib.MAX_WBITS if coding == "deflate" else -zlib.MAX_WBITS)
    return z.compress(data) + z.flush()


async def _chunks(data: bytes, cuts: list[int]):
    start = 0
    for cut in sorted({c % (len(data) + 1) for c in cuts}) + [len(data)]:
        if cut > start:
            yield data[start:cut]
            start = cut
        await asyncio.sleep(0)


def _read(data: bytes, header: str, cuts: list[int], max_bytes: int) -> bytes:
    resp = httpx.Response(200, headers={"content-encoding": header}, content=_chunks(data, cuts))
    return asyncio.run(read_whole(resp, Budget(max_bytes, 60.0))).content


@settings(max_examples=150, deadline=None)
@given(
    payload=st.binary(max_size=3000) | st.builds(lambda n, b: b * n, st.integers(1, 4000), st.binary(min_size=1, max_size=3)),
    codings=st.lists(st.sampled_from(["gzip", "deflate", "raw"]), max_size=2),
    cuts=st.lists(st.integers(0, 10_000), max_size=12),
    max_bytes=st.integers(1, 8000),
)
def test_decoding_is_exact_in_any_chunking_and_refuses_past_the_bound(payload, codings, cuts, max_bytes):
    stages = [payload]  # the payload, each coding's output in turn; the last is what is sent
    for coding in codings:  # applied in order, so undone in reverse
        stages.append(_encode(stages[-1], coding))
    wire = stages[-1]
    header = ", ".join("deflate" if c == "raw" else c for c in codings) or "identity"
    if any(len(stage) > max_bytes for stage in stages):  # the bound holds at every stage of the decoding
        with pytest.raises(ResponseTooLarge):
            _read(wire, header, cuts, max_bytes)
    else:
        assert _read(wire, header, cuts, max_bytes) == payload


@pytest.mark.parametrize("header", ["br", "zstd", "gzip, br", "compress"])
def test_unknown_codings_are_refused_not_guessed(header):
    with pytest.raises(UnsupportedEncoding):
        _read(b"{}", header, [], 1000)


def test_a_small_result_of_a_larger_middle_stream_is_read_in_any_chunking():
    """Found by the property above: gzip then deflate of 18 zero bytes is 25 bytes on the wire over a
    23-byte middle stream; with a 25-byte budget the middle stage was held to the room left for the
    result after the first chunk, and the body was refused as too large."""
    wire = _encode(_encode(bytes(18), "gzip"), "raw")
    assert len(wire) <= 25
    for a in range(len(wire) + 1):
        for b in range(a, len(wire) + 1):
            assert _read(wire, "gzip, deflate", [a, b], 25) == bytes(18)


def test_a_corrupt_body_is_a_bad_chunk():
    rng = random.Random(7)
    bad = gzip.compress(b"x" * 500)[:10] + bytes(rng.randrange(256) for _ in range(50))
    with pytest.raises(BadChunk):
        _read(bad, "gzip", [3, 20], 10_000)
