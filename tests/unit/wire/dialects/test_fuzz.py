"""Fuzzing: random text, truncations and mutations of every fixture never make parsing raise.

Examples per test come from AGENTCLI_FUZZ_EXAMPLES (default keeps the whole file near 2000 examples);
`make fuzz` sets 50000 and selects the slow-marked variant.
"""

from __future__ import annotations

import os

import pytest
from dialect_corpus import all_cases
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects
from agentcli.wire.pipeline import parse_text
from agentcli.wire.textstream import TextStream
from agentcli.wire.types import ParseContext

_ENV = os.environ.get("AGENTCLI_FUZZ_EXAMPLES")
BIG = int(_ENV) if _ENV else 0
SMALL = 500  # four tests below: ~2000 examples in the default suite
TEXTS = [case["text"] for _, case in all_cases(dialects.names())]
ALL = tuple(dialects.names())
MARKERS = sorted({m for n in ALL for m in dialects.get(n).markers if m})
PIECES = MARKERS + ["{", "}", "[", "]", '"', "\\", "\n", "```json\n", "```", "<think>", "</think>", '"name": ', '"arguments": ', "(", ")", "=", ","]
_CTX = ParseContext.of()


def _check(text: str) -> None:
    resp = parse_text(text)
    assert isinstance(resp.text, str)
    for call in resp.tool_calls:
        assert isinstance(call.arguments, dict)
        assert call.name is not None


mutated = st.builds(
    lambda base, cuts, inserts: _mutate(base, cuts, inserts),
    st.sampled_from(TEXTS),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=4),
    st.lists(st.tuples(st.integers(min_value=0, max_value=10_000), st.sampled_from(PIECES)), max_size=6),
)


def _mutate(base: str, cuts: list[int], inserts: list[tuple[int, str]]) -> str:
    text = base
    for pos, piece in inserts:
        p = pos % (len(text) + 1)
        text = text[:p] + piece + text[p:]
    for c in cuts:
        if text:
            p = c % len(text)
            text = text[:p] + text[p + 1:]
    return text


def _fuzz(strategy, examples):
    return settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))(given(text=strategy))


@_fuzz(st.text(max_size=400), SMALL)
def test_random_unicode(text):
    _check(text)


@_fuzz(st.binary(max_size=400).map(lambda b: b.decode("utf-8", "replace")), SMALL)
def test_random_bytes(text):
    _check(text)


@_fuzz(mutated, SMALL)
def test_fixture_mutations(text):
    _check(text)
    stream = TextStream(ALL)
    for i in range(0, len(text), 7):
        stream.feed(text[i:i + 7])
    stream.flush()


@_fuzz(st.lists(st.sampled_from(PIECES + ["get_weather", "city", "Paris", " ", "x=1"]), max_size=40).map("".join), SMALL)
def test_marker_soup(text):
    _check(text)


@pytest.mark.slow
@pytest.mark.skipif(not BIG, reason="set AGENTCLI_FUZZ_EXAMPLES to run the long fuzz (make fuzz)")
def test_fuzz_long():
    @_fuzz(st.one_of(mutated, st.text(max_size=2000)), BIG)
    def run(text):
        _check(text)

    run()
