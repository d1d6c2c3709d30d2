"""The auto chain on a long reply asks the markers holding no `<` group by group (one memchr per
rare character) as it comes to each dialect, whenever the reply is long enough or its tags name
an early dialect or an owner (issue 29): the dialect that reads the call leaves a short rest, and
the later ones ask theirs of that rest. The oracle is the chain asking every marker of the whole
text first: the same dialects tried in the same order, the same calls and text. Work is counted
(the characters looked for across the whole reply), never timed."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline
from agentcli.wire.dialects import _seen
from agentcli.wire.types import ParseContext
from tests.unit.wire.test_chain_lazy import FILLER, INDEX, NAMES, _run, contexts, dense, replies


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies, ctx=contexts)
def test_asking_every_long_reply_dialect_by_dialect_reads_what_the_eager_chain_reads(
        text: str, ctx: ParseContext | None) -> None:
    """With the length past which every reply is asked lazily lowered to the index's own start,
    each generated reply takes the lazy path, whatever its tags."""
    eager = _run(text, ctx, text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline._ChainIndex, "LAZY_FROM", pipeline._SEEN_FROM)
        assert _run(text, ctx, _seen.Seen(text)) == eager


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(replies, dense))
def test_the_tags_and_the_groups_are_every_marker_present(text: str) -> None:
    seen = _seen.Seen(text)
    tagged = INDEX.present_tags(seen)
    assert INDEX._long_present(seen, tagged) == frozenset(m for m in INDEX.markers if m in text)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(replies, dense), order=st.permutations(NAMES))
def test_each_dialect_asked_alone_is_runnable_as_the_whole_question_says(text: str, order: list[str]) -> None:
    """In any order of dialects (groups asked so far shared), the lazy answers are `runnable`'s and
    `owning`'s from every marker asked of the text."""
    present = frozenset(m for m in INDEX.markers if m in text)
    runnable, owning = INDEX.runnable(present), INDEX.owning(present)
    seen = _seen.Seen(text)
    tagged = INDEX.present_tags(seen)
    groups: dict[int, frozenset[str]] = {}
    lazy_run = pipeline._Asked(seen, INDEX.runnable_by(tagged), INDEX.bare_need, INDEX.bare_spans, groups)
    lazy_own = pipeline._Asked(seen, INDEX.owning(tagged), INDEX.owns_need, INDEX.bare_spans, groups)
    for name in order:
        assert (name in lazy_run) == (name in runnable), name
        assert (name in lazy_own) == (name in owning), name


def test_an_early_reader_leaves_the_other_groups_to_its_short_rest(monkeypatch: Any) -> None:
    """A Mistral call with a 100 KB argument and no wrapper any dialect owns: the characters of the
    markers after Mistral's in the chain are looked for in what it left, not across the reply."""
    text = '[TOOL_CALLS] [{"name": "get_weather", "arguments": {"city": "' + FILLER * 4000 + '"}}]'
    looked: list[str] = []
    real = pipeline._Asked.asked_group

    def counting(seen, ch, group, reach):  # noqa: ANN001, ANN202
        if len(seen.text) > 100_000:
            looked.append(ch)
        return real(seen, ch, group, reach)

    monkeypatch.setattr(pipeline._Asked, "asked_group", staticmethod(counting))
    found, rest, _ = pipeline._run_dialects(text, NAMES, None, 64, _seen.Seen(text))
    assert [c.dialect for c in found] == ["mistral"] and not rest.strip()
    # (`:` keys RWKV's wrapper `**Tool Call:**`, asked up front as an owner's, with `Action:` and `call:`)
    assert "[" in looked and '"' not in looked and "f" not in looked and "\n" not in looked, looked
