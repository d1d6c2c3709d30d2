"""A reply whose calls fill the chain's budget (MAX_CALLS) is not asked about again: once the calls
are all read, what is left stays text, so the marker index of the text the last turn left (a pass
over a megabyte of markup per rebuild) is not rebuilt. The answer is the same; the asking is counted."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.types import ParseContext

HERMES = '<tool_call>\n{"name": "f", "arguments": {"a": %d}}\n</tool_call>\n'
MISTRAL = '[TOOL_CALLS][{"name": "g", "arguments": {"b": 1}}]\n'


def test_a_flood_is_not_asked_about_after_its_last_call(monkeypatch) -> None:
    asked: list[int] = []
    real = pipeline._ChainIndex.runnable_in
    monkeypatch.setattr(pipeline._ChainIndex, "runnable_in", lambda self, *a: asked.append(1) or real(self, *a))
    text = "".join(HERMES % i for i in range(MAX_CALLS + 5)) + MISTRAL + "lorem ipsum " * 400
    resp = pipeline.parse_text(text, ParseContext.of())
    assert [c.name for c in resp.tool_calls] == ["f"] * MAX_CALLS
    assert any(r.kind == "too_many_calls" for r in resp.repairs)
    assert asked == []


@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, MAX_CALLS + 3), st.integers(0, 4), st.booleans())
def test_reading_up_to_the_budget_reads_the_same(calls: int, others: int, tail: bool) -> None:
    """Hermes calls up to past the budget, Mistral lists after them: the calls read are the first
    ones up to the budget, in order, and the lists left unread stay in the text as written."""
    text = "".join(HERMES % i for i in range(calls)) + MISTRAL * others + ("lorem ipsum " * 400 if tail else "")
    resp = pipeline.parse_text(text, ParseContext.of())
    n = min(calls + others, MAX_CALLS)
    assert len(resp.tool_calls) == n
    assert [c.name for c in resp.tool_calls] == (["f"] * calls + ["g"] * others)[:n]
    if calls >= MAX_CALLS:
        assert resp.text.count("[TOOL_CALLS]") == others
