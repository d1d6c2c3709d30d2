"""The shared conformance suite: every registered dialect with a fixture file passes the same checks.

Per case: the dialect alone finds exactly the expected calls (through finalize, no tools); the
full chain finds them too (no dialect steals or invents calls on another's fixtures); streaming
the text in random chunkings never shows a completed call's markers as text and announces the
same calls; every truncation of the text parses without raising.
"""

from __future__ import annotations

import pytest
from dialect_corpus import all_cases, context, expected_calls, found_calls
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.events import StreamKind
from agentcli.wire import dialects
from agentcli.wire.pipeline import finalize, parse_text, split_thinking
from agentcli.wire.textstream import TextStream
from agentcli.wire.types import NativeParse

CASES = all_cases(dialects.names())
IDS = [f"{name}:{case['id']}" for name, case in CASES]
ALL = tuple(dialects.names())


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_dialect_alone(name, case):
    resp = finalize(NativeParse(text=case["text"]), context(case), (name,))
    assert found_calls(resp) == expected_calls(case)
    assert all(c.dialect == name for c in resp.tool_calls)
    if "text_after" in case:
        # Fixtures may keep reasoning in text_after (a dialect alone leaves it); finalize moves it out.
        assert resp.text == split_thinking(case["text_after"])[0].strip()
    assert resp.finish_reason == ("tool_calls" if case["calls"] else "stop")


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_dialect_parse_is_total_and_pure(name, case):
    d = dialects.get(name)
    first = d.parse(case["text"])
    second = d.parse(case["text"])
    assert first == second
    cands, rest = first
    assert isinstance(rest, str)
    assert all(c.dialect == name for c in cands)


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_full_chain_finds_the_same_calls(name, case):
    """Usable calls only: dialects may differ on reporting a cut-off call as an error or as text.
    A case that is "not this dialect" but another dialect's call states `chain_calls`."""
    resp = parse_text(case["text"], context(case))
    expected = case.get("chain_calls", case["calls"])
    want = [(c["name"], c.get("arguments", {})) for c in expected if not c.get("error")]
    assert [(n, a) for n, a, err in found_calls(resp) if not err] == want


def _markers(dialect_name: str) -> tuple[str, ...]:
    d = dialects.get(dialect_name)
    return tuple(m for m in (*d.markers, *getattr(d, "stream_markers", ())) if m)


def _chunks(text: str, sizes: list[int]) -> list[str]:
    out, i, k = [], 0, 0
    while i < len(text):
        n = sizes[k % len(sizes)]
        out.append(text[i:i + n])
        i += n
        k += 1
    return out


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(min_value=1, max_value=16), min_size=1, max_size=40))
def test_stream_split_invariance(name, case, sizes):
    text = case["text"]
    final = parse_text(text)
    stream = TextStream(ALL)
    events = []
    for chunk in _chunks(text, sizes):
        events += stream.feed(chunk)
    events += stream.flush()
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    for call in final.tool_calls:
        if call.error or not call.raw:
            continue
        marks = [m for m in _markers(call.dialect) if m in call.raw]
        for m in marks:
            assert shown.count(m) <= final.text.count(m), (m, shown)
        if not marks and call.raw not in final.text:
            assert call.raw not in shown
    started = [e.name for e in events if e.kind is StreamKind.TOOL_START]
    assert len(started) >= len([c for c in final.tool_calls if not c.error])
    assert [e.index for e in events if e.kind is StreamKind.TOOL_START] == list(range(len(started)))
    # The final parse never depends on the stream detector.
    assert parse_text("".join(_chunks(text, sizes))) == final


@pytest.mark.parametrize(("name", "case"), CASES, ids=IDS)
def test_every_truncation_parses(name, case):
    text = case["text"]
    d = dialects.get(name)
    step = max(1, len(text) // 200)
    for i in range(0, len(text) + 1, step):
        prefix = text[:i]
        cands, rest = d.parse(prefix)
        assert isinstance(rest, str)
        resp = parse_text(prefix)
        assert isinstance(resp.text, str)
        stream = TextStream(ALL)
        stream.feed(prefix)
        stream.flush()
