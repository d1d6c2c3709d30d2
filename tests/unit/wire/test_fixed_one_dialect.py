"""A chain of one dialect (a forced parse) skips the chain's bookkeeping (owners, turns, every
marker of the chain asked up front and again after a cut): with no one to order, its turn comes
down to whether one of its markers stands in the text. The shortcut must read what the chain
reads: on generated replies (every dialect's markers and wrappers, inside string values and out,
fences, reasoning tags, real calls of every dialect, offered and unoffered tool names, short and
long) each dialect alone returns the same calls, rest and cap by the shortcut as by the chain."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import dialects, pipeline
from agentcli.wire.types import ParseContext
from tests.unit.wire.test_chain_lazy import CALLS, INDEX, NAMES

MARKUP = sorted({*INDEX.markers, *(m for o in INDEX.owns.values() for m in o), "<think>", "</think>", "[]"})
PIECES = [*MARKUP, "```", "```json\n", "~~~", "\n", " ", '"', "{", "}", "[", "]", "lorem ipsum ", "<", ">", "|",
          '{"name": "get_weather", "arguments": {"city": "Paris"}}', '{"name": "rm_rf", "arguments": {}}']
piece_texts = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
quoted = st.tuples(st.sampled_from(MARKUP), piece_texts).map(lambda t: json.dumps({"text": f"a {t[0]} {t[1]}"}))
parts = st.one_of(st.sampled_from(CALLS), piece_texts, quoted)
FILLER = "lorem ipsum dolor sit amet "
replies = st.tuples(st.lists(parts, min_size=1, max_size=4), st.integers(0, 3), st.sampled_from([0, 3, 400])).map(
    lambda t: "".join(t[0][: t[1]]) + FILLER * t[2] + "".join(t[0][t[1]:]))
contexts = st.sampled_from([
    None, ParseContext(),
    ParseContext.of([Tool("get_weather", "", {"type": "object"}), Tool("get_current_temperature", "", {"type": "object"})]),
    ParseContext(tools={"get_weather": Tool("get_weather", "", {"type": "object"})}, prefer=("hermes",)),
])


class _Chained:
    """The real index of a one-dialect chain, showing two names: `_run_dialects` then takes the
    chain's path (owners, turns, re-asking) with the same one dialect."""

    def __init__(self, real: pipeline._ChainIndex) -> None:
        self._real = real
        self.names = real.names * 2

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._real, attr)


def _shape(got: tuple[list[Any], str, bool]) -> Any:
    found, rest, capped = got
    return [(c.name, c.arguments, c.raw, c.dialect, c.error, c.embedded) for c in found], rest, capped


def _both(name: str, text: str, ctx: ParseContext | None, limit: int, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    seen = pipeline._seen(text)
    short = _shape(pipeline._run_dialects(text, (name,), ctx, limit, seen))
    real = pipeline._chain_index
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_chain_index", lambda names: _Chained(real(names)))
        chained = _shape(pipeline._run_dialects(text, (name,), ctx, limit, pipeline._seen(text)))
    return short, chained


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies, ctx=contexts, limit=st.sampled_from([64, 1, 0]), data=st.data())
def test_one_dialect_reads_what_the_chain_reads(text: str, ctx: ParseContext | None, limit: int, data: st.DataObject,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # the dialects whose markers stand in the text are the interesting ones; any other, sometimes
    present = [n for n in NAMES if not INDEX.prepared[n][1] or any(m in text for m in INDEX.prepared[n][1])]
    name = data.draw(st.sampled_from(present or list(NAMES)) if present and data.draw(st.booleans()) else st.sampled_from(NAMES))
    short, chained = _both(name, text, ctx, limit, monkeypatch)
    assert short == chained


@pytest.mark.parametrize("name", NAMES)
def test_every_dialect_alone_reads_its_fixtures_as_the_chain_does(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    ctx = ParseContext.of([Tool("get_weather", "", {"type": "object"})])
    for text in CALLS:
        for reply in (text, text + FILLER * 400):
            short, chained = _both(name, reply, ctx, 64, monkeypatch)
            assert short == chained


def test_the_shortcut_is_taken_for_one_dialect_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A chain of one dialect asks no owners; a longer chain does (the shortcut is not the chain's path)."""
    asked: list[int] = []
    real = pipeline._ChainIndex.asked
    monkeypatch.setattr(pipeline._ChainIndex, "asked", lambda self, seen: asked.append(len(self.names)) or real(self, seen))
    text = CALLS[0]
    pipeline._run_dialects(text, ("hermes",), None, 64)
    assert asked == []
    pipeline._run_dialects(text, ("hermes", "mistral"), None, 64)
    assert asked == [2]


@pytest.mark.parametrize("name", NAMES)
def test_no_dialect_reads_anything_from_nothing(name: str) -> None:
    """The chain stops once a dialect's cut leaves no text: that skips no reading only while every
    dialect reads no call, and leaves no text, from an empty one."""
    assert dialects.deferred(name).parse("") == ([], "")
