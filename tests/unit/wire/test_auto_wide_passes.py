"""The auto chain asks each character of its markers at most once per reply (issue 29). A character
absent from a long reply costs a pass over all of it, and a reply holding one emoji is stored four
bytes a character (one full-width token or CJK character: two), so each such pass reads four times
the reply's length. The reasoning split, the chain's tags and lazy groups, a generic dialect's
wrappers, the offered-tag check, the marker bound and the fence lookup share one index (Seen) that
looks for a character once; the bare markers are grouped by as few characters as they allow.

The oracle is the same pipeline without the index (every question asked of the text itself): on
generated long replies (every dialect's markers and wrappers, inside string values and out, fixture
calls, prose stored 1, 2 and 4 bytes a character) it returns the same response, whether the index
keeps each character's answer (a wide reply, Seen.wide) or asks the text (below WIDE_FROM bytes):
both sides of the threshold are run on every reply. Work is counted (the characters looked for
across the whole reply), never timed."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _seen
from agentcli.wire.types import ParseContext
from tests.unit.wire.test_chain_lazy import CALLS, FILLER, MARKUP, NAMES, contexts, replies

WIDE = ["", "é", "全", "｜", "🐧"]  # stored 1, 1, 2, 2 and 4 bytes a character


def _widened(t: tuple[str, str, int]) -> str:
    text, ch, at = t
    return text[:at] + ch + text[at:] if ch else text


wide_replies = st.tuples(replies, st.sampled_from(WIDE), st.integers(0, 400)).map(_widened)


def _response(text: str, ctx: ParseContext | None) -> tuple[Any, ...]:
    r = pipeline.parse_text(text, ctx)
    return (r.text, r.thinking, [(c.name, c.arguments, c.raw, c.dialect, c.error, c.id) for c in r.tool_calls],
            [(x.kind, x.detail) for x in r.repairs], r.finish_reason)


# WIDE_FROM for every index wide (the generated replies are a few KB) and as it stands
THRESHOLDS = [0, _seen.WIDE_FROM]


@pytest.mark.parametrize("wide_from", THRESHOLDS)
@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=wide_replies, ctx=contexts)
def test_the_indexed_pipeline_answers_what_plain_questions_answer(wide_from: int, text: str,
                                                                 ctx: ParseContext | None) -> None:
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_seen, "WIDE_FROM", wide_from)
        got = _response(text, ctx)
        mp.setattr(pipeline, "_SEEN_FROM", 1 << 40)  # no index: each question asked of the text itself
        assert _response(text, ctx) == got


questions = st.lists(st.tuples(st.sampled_from(["first", "has", "count", "find", "in", "standing"]),
                               st.sampled_from([*MARKUP, "<", ">", "|", "`", "[", ":", "\n", "f", "🐧", "全"]),
                               st.integers(0, 20_000)), min_size=1, max_size=30)
texts = st.one_of(wide_replies, st.tuples(st.sampled_from(CALLS), st.sampled_from(WIDE), st.integers(0, 60)).map(
    lambda t: _widened((t[0] + FILLER * t[2], t[1], t[2]))))


@pytest.mark.parametrize("wide_from", THRESHOLDS)
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=texts, asked=questions)
def test_the_index_answers_as_the_text_does_in_any_order(wide_from: int, text: str,
                                                         asked: list[tuple[str, str, int]]) -> None:
    """Whatever was asked before (answers kept, places found), each answer is the text's own."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(_seen, "WIDE_FROM", wide_from)
        seen = _seen.Seen(text)
    assert seen.wide or wide_from
    for how, marker, start in asked:
        ch = marker[-1]
        if how == "first":
            assert seen.first(ch) == text.find(ch)
        elif how == "has":
            assert seen.has(ch) == (ch in text)
        elif how == "count":
            assert seen.count(ch) == text.count(ch)
        elif how == "find":
            assert seen.find(ch, start) == text.find(ch, start)
        elif how == "in":
            assert (marker in seen) == (marker in text)
        else:
            group = tuple(m for m in MARKUP if ch in m)
            assert seen.standing(ch, group) == frozenset(m for m in group if m in text)


class _Counted(str):
    """A reply that counts, per character, the searches for it reading most of the reply."""

    passes: Counter[str]

    def _note(self, ch: str, start: int, end: int, at: int) -> None:
        if len(ch) == 1 and (end if at < 0 else at) - start > len(self) // 2:
            self.passes[ch] += 1

    def __contains__(self, ch: object) -> bool:
        at = str.find(self, ch)  # type: ignore[arg-type]
        self._note(ch, 0, len(self), at)  # type: ignore[arg-type]
        return at >= 0

    def find(self, ch: str, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        s = 0 if start is None else start + len(self) if start < 0 else start
        e = len(self) if end is None else min(end, len(self))
        at = str.find(self, ch, s, e)
        self._note(ch, s, e, at)
        return at


def _passes(text: str, ctx: ParseContext, parsers: tuple[str, ...]) -> Counter[str]:
    counted = _Counted(text)
    counted.passes = Counter()
    pipeline.parse_text(counted, ctx, parsers)
    return counted.passes


PAD = FILLER * 3800  # some 100 KB
LONG_CALLS = {  # a reply per reader, early in the chain and last, holding a character stored 4 bytes wide
    "command_r": 'I will search.\nAction: ```json\n[{"tool_name": "internet_search", "parameters": {"query": "🐧'
                 + PAD + '"}}]\n```',
    "pythonic": '[get_weather(city="San Francisco 🐧' + PAD + '", metric="celsius")]',
    "json_block": 'I\'ll read it.\n```json\n{"name": "read_file", "arguments": {"path": "🐧' + PAD + '"}}\n```',
    "tool_xml": "I will read it.\n\n<read_file>\n<path>src/main.js 🐧" + PAD + "</path>\n</read_file>",
    "hermes": '<tool_call>\n{"name": "get_weather", "arguments": {"city": "全' + PAD + '"}}\n</tool_call>',
}
CTX = ParseContext.of([Tool(n, "", {"type": "object"}) for n in ("internet_search", "get_weather", "read_file")])


@pytest.mark.parametrize("reader", sorted(LONG_CALLS))
def test_the_auto_chain_looks_for_each_character_once(reader: str) -> None:
    """Against the forced dialect (which asks its own few), the whole chain scans each character of
    its markers at most once more: the reasoning split's, the tags', the lazy groups', the wrappers'
    and the fences' questions about one character are one question."""
    text = LONG_CALLS[reader]
    assert _seen.Seen(text).wide == (max(text) > "\uffff")  # four bytes a character: past WIDE_FROM
    forced, auto = _passes(text, CTX, (reader,)), _passes(text, CTX, tuple(dialects.DIALECTS))
    assert pipeline.parse_text(text, CTX).tool_calls[0].dialect in (reader, "xlam")
    extra = {ch: auto[ch] - forced[ch] for ch in auto if auto[ch] > forced[ch]}
    assert all(n <= 1 for n in extra.values()), extra
    assert set(extra) <= set("".join(pipeline._chain_index(NAMES).markers)), extra  # only markers' characters


def test_the_bare_markers_are_grouped_by_fewer_characters_than_their_rarest() -> None:
    """`**Tool Call:**` is asked with `Action:` by its `:`, `\\n{` with `all\\n` by its line break: the
    groups' characters cover every marker, and there are fewer of them than of rarest characters."""
    index = pipeline._chain_index(NAMES)
    bare = {m for _, group, _ in index.wide_spans for m in group}
    assert bare == {m for _, group, _ in index.bare_spans for m in group}
    assert all(ch in m for ch, group, _ in index.wide_spans for m in group)
    assert len(index.wide_spans) < len(_seen.grouped(tuple(sorted(bare))))


@pytest.mark.parametrize("reader", sorted(r for r, text in LONG_CALLS.items() if _seen.Seen(text).wide))
@pytest.mark.parametrize("auto", [False, True])
def test_a_character_the_reply_lacks_is_looked_for_once_by_the_whole_parse(reader: str, auto: bool) -> None:
    """On a wide reply the mask (its quick checks: `<`, `[`, the quotes, `|`, a backslash), the
    reasoning split and the dialects ask of one index: a character the reply lacks costs one pass
    over it in all, not one per stage (three for `<` before the mask shared the index). (Below
    WIDE_FROM bytes a pass costs less than keeping its answer, and each stage asks the text.)"""
    text = LONG_CALLS[reader]
    passes = _passes(text, CTX, tuple(dialects.DIALECTS) if auto else (reader,))
    absent = {ch: n for ch, n in passes.items() if ch not in text}
    assert absent and all(n == 1 for n in absent.values()), absent
