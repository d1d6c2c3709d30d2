"""Walks over every occurrence of a frequent token in a long reply dense in markup (a `|` every
dozen characters) cost a step or two an occurrence, not a probe of each place of the token's rare
character (`_seen.locate` remembers that character is dense in the text); the call wrappers'
regions are found without a walk of the whole reply per unclosed wrapper (`_CallSpans` reads every
later wrapper only up to where an unclosed one covers the rest); a run of harmony messages finds
each body's end with one search; a megabyte of fenced pythonic examples is not parsed list by list.
Generated replies get the answers of the plain searches and of the old walks (kept here as
references); the work is counted, never timed."""

from __future__ import annotations

import bisect
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup, _opaque, _seen, harmony, pythonic
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._callscan import fences
from agentcli.wire.dialects._pylist import call_list
from agentcli.wire.dialects._scan import AstBudget
from tests.unit.wire.test_mask_fast import _string_spans_old  # the per-token walk, brackets one by one

_examples = settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))

WRAPPERS = _markup.collected().call_wrappers
TOKENS = ["<|channel|>", "<|message|>", "<|end|>", "<|start|>", "<think>", "</think>", "<|x|>", "|", "<", "a b", "\n",
          *(t for pair in WRAPPERS for t in pair)]
# Many tokens (a long reply, past _seen.SHORT, dense in `|` and `<`), or a few around long prose.
dense = st.lists(st.sampled_from(TOKENS), min_size=0, max_size=1500).map("".join)
sparse = st.tuples(st.lists(st.sampled_from(TOKENS), max_size=30).map("".join), st.integers(0, 3),
                   st.lists(st.sampled_from(TOKENS), max_size=30).map("".join)).map(
    lambda t: t[0] + "lorem ipsum " * (500 * t[1]) + t[2])
replies = st.one_of(dense, sparse)


@_examples
@given(replies, st.sampled_from(TOKENS[:7]), st.lists(st.tuples(st.integers(0, 1 << 15), st.integers(0, 1 << 15)),
                                                      max_size=20))
def test_a_walk_and_the_searches_after_it_answer_as_find(text: str, needle: str, asks: list[tuple[int, int]]) -> None:
    """Every occurrence walked in order, then searches from anywhere (the dense note then taken):
    each answer is `str.find`'s."""
    at, pos = [], 0
    while (i := _seen.locate(text, needle, pos)) >= 0:
        assert i == text.find(needle, pos)
        at.append(i)
        pos = i + 1
    assert text.find(needle, pos) == -1
    for start, end in asks:
        assert _seen.locate(text, needle, start, start + end) == text.find(needle, start, start + end)
        assert _seen.locate(text, needle, start) == text.find(needle, start)


class _Finds(str):
    """A reply that counts its `find` calls (each a search, of a character or of a token), and the
    token searches over a long stretch of it."""

    finds = tokens = 0

    def find(self, sub, *args):  # noqa: ANN001, ANN002, ANN201
        type(self).finds += 1
        span = (args[1] if len(args) > 1 else len(self)) - (args[0] if args else 0)
        type(self).tokens += len(sub) > 1 and span >= _seen.SHORT  # a token searched over a long stretch
        return str.find(self, sub, *args)


def test_a_walk_over_a_token_in_dense_markup_searches_once_an_occurrence(monkeypatch) -> None:
    """1,000 `<|channel|>` tokens among 9,000 others holding a `|` each: the walk asks each once
    and pays one search an occurrence once the `|` proved dense, where probing each place of `|`
    paid some ten searches an occurrence."""
    text = _Finds(("<|start|>" * 3 + "<|x|>" * 6 + "<|channel|>") * 1000)
    monkeypatch.setattr(_Finds, "finds", 0)
    n, pos = 0, 0
    while (i := _seen.locate(text, "<|channel|>", pos)) >= 0:
        n, pos = n + 1, i + 1
    assert n == 1000
    assert _Finds.finds <= n + 2 * _seen._PROBES, _Finds.finds


def test_a_sparse_character_is_still_probed(monkeypatch) -> None:
    """Tokens far apart in prose (a `|` some 12,000 characters from the next): a walk over them
    goes by the places of `|` to its end (a few finds of a character each asking), no token search
    crossing the prose; the same walk with the tokens a few hundred characters apart turns plain."""
    text = _Finds(("lorem ipsum " * 1000 + "<|x|><|channel|>") * 40)
    monkeypatch.setattr(_Finds, "finds", 0)
    monkeypatch.setattr(_Finds, "tokens", 0)
    n, pos = 0, 0
    while (i := _seen.locate(text, "<|channel|>", pos)) >= 0:
        n, pos = n + 1, i + 1
    assert n == 40 and _Finds.finds <= 4 * (n + 1)
    assert _Finds.tokens == 0  # no token search crossed the prose
    close = _Finds(("lorem ipsum " * 30 + "<|x|><|channel|>") * 400)
    monkeypatch.setattr(_Finds, "finds", 0)
    n, pos = 0, 0
    while (i := _seen.locate(close, "<|channel|>", pos)) >= 0:
        n, pos = n + 1, i + 1
    assert n == 400 and _Finds.finds <= 3 * _seen._WALK + 400 + 1, _Finds.finds


def _old_regions(text: str) -> list[tuple[int, int]]:
    """The call wrappers' regions as _CallSpans found them before: every wrapper walked to the end."""
    spans = []
    for open_tag, close_tag in WRAPPERS:
        pos = 0
        while (o := text.find(open_tag, pos)) != -1:
            c = text.find(close_tag, o + len(open_tag))
            spans.append((o + len(open_tag), len(text) if c == -1 else c))
            if c == -1:
                break
            pos = c + len(close_tag)
    merged: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return merged


def _old_inside(merged: list[tuple[int, int]], at: int) -> bool:
    i = bisect.bisect_right([a for a, _ in merged], at) - 1
    return i >= 0 and at < merged[i][1]


@_examples
@given(replies)
def test_call_regions_are_the_old_walks(text: str) -> None:
    """Each place of the reply is inside a call's region exactly when the old walk said so."""
    old = _old_regions(text)
    for spans in (pipeline._CallSpans(text), pipeline._CallSpans(text, _seen.Seen(text))):
        assert [spans.inside(i) for i in range(len(text) + 1)] == [_old_inside(old, i) for i in range(len(text) + 1)]


class _Walked(str):
    """A reply that counts the characters its token searches pass (to the hit's end, or the bound)."""

    walked = 0

    def find(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        hit = str.find(self, sub, start, end)
        lo, hi = start or 0, len(self) if end is None else min(end, len(self))
        type(self).walked += max(0, (hi if hit < 0 else hit + len(sub)) - lo)
        return hit


def test_unclosed_wrappers_are_not_each_walked_to_the_end(monkeypatch) -> None:
    """Every wrapper opened near the start and none closed, then 100 KB: the first unclosed one
    covers the rest, and the others' closes are looked for only up to it (the old walk passed the
    whole reply once a wrapper)."""
    text = _Walked("".join(o for o, _ in WRAPPERS) + "lorem ipsum " * 9000)
    monkeypatch.setattr(_Walked, "walked", 0)
    spans = pipeline._CallSpans(text)
    walked = _Walked.walked
    old = _old_regions(text)
    assert [spans.inside(i) for i in range(0, len(text), 97)] == [_old_inside(old, i) for i in range(0, len(text), 97)]
    assert _Walked.walked > 5 * len(text)  # the old walk, for scale
    assert walked < 2 * len(text), walked


HARMONY = ["<|start|>assistant", "<|channel|>", "analysis", "commentary", "  final", " to=functions.f", " to=assistant",
           " <|constrain|>json", "<|message|>", '{"q": 1}', "<|end|>", "<|call|>", "<|return|>", "<|start|>", "<|",
           "|>", "\n", " ", "\t", "lorem ipsum " * 200, "x"]
harmony_texts = st.lists(st.sampled_from(HARMONY), max_size=60).map("".join)


def _old_body_end(text: str, start: int) -> tuple[int, int]:
    """The first terminator or <|start|> from `start`, each token searched for whole."""
    best, after = len(text), len(text)
    for tok in (*harmony.ENDS, harmony.START):
        at = text.find(tok, start)
        if at != -1 and at < best:
            best, after = at, at if tok == harmony.START else at + len(tok)
    return best, after


def _old_word_after(header: str, key: str) -> str:
    i = header.rfind(key)
    if i == -1:
        return ""
    i += len(key)
    while i < len(header) and header[i] == " ":
        i += 1
    j = i
    while j < len(header) and header[j] not in " \t\r\n<":
        j += 1
    return header[i:j]


@_examples
@given(harmony_texts, st.lists(st.integers(0, 1 << 13), max_size=8))
def test_harmony_bodies_end_where_the_token_searches_said(text: str, starts: list[int]) -> None:
    """A body's end, searched for a few thousand characters at once (then token by token), and the
    words after a header's keys are what the token searches and the character loops found."""
    cache: dict[str, int] = {}
    for start in sorted(s % (len(text) + 1) for s in starts):
        assert harmony._body_end(text, start, cache, text.find) == _old_body_end(text, start)
    for key in (harmony.CHANNEL, " to="):
        assert harmony._word_after(text, key) == _old_word_after(text, key)


def test_a_run_of_harmony_messages_is_split_with_one_search_a_message(monkeypatch) -> None:
    """1,000 messages: each found by one search for its <|message|> (once `|` proved dense) and its
    end by one regex search of the characters after it, where each of the four end tokens was
    searched for in turn (probing the places of `|` first)."""
    one = ("<|channel|>analysis<|message|>Reasoning.<|end|><|start|>assistant<|channel|>commentary "
           'to=functions.f <|constrain|>json<|message|>{"a": 1}<|call|>\n')
    text = _Finds(one * 1000)
    monkeypatch.setattr(_Finds, "finds", 0)
    out, thoughts = harmony.split_analysis(text)
    assert len(thoughts) == 1000 and out.count("<|call|>") == 1000
    assert _Finds.finds <= 2000 + 4 * _seen._PROBES, _Finds.finds


def _old_inline(text: str, budget: AstBudget) -> tuple[list[tuple], str]:
    """pythonic's inline lists as read before: every list parsed, the fences all found first."""
    skip = None
    out: list[tuple] = []
    kept: list[str] = []
    pos, scan_left = 0, 2 * len(text)
    for m in pythonic._INLINE.finditer(text):
        p = m.start()
        if p < pos or (p > 0 and text[p - 1] == "`"):
            continue
        if scan_left <= 0 or len(out) > MAX_CALLS:
            break
        end = pythonic._list_end(text, p, min(len(text), p + pythonic._SPAN_MAX))
        scan_left -= (end or min(len(text), p + pythonic._SPAN_MAX)) - p
        if end is None:
            continue
        calls = call_list(text[p:end], budget)
        if calls is None or any(err for _, _, err in calls):
            continue
        if skip is None:
            skip = [(fs, fe) for fs, fe, *_ in fences(text)]
        k = bisect.bisect_right(skip, (p, len(text)))
        if k and skip[k - 1][0] <= p < skip[k - 1][1]:
            continue
        out.extend((n, a, text[p:end]) for n, a, _ in calls)
        kept.append(text[pos:p])
        pos = end
    kept.append(text[pos:])
    return out, "".join(kept) if out else text


PY = ["Here: ", "[f(x=1)]", "[f(x=1), g(y='a')]", "[f(1)]", "[h(", ")]", "```python\n", "```\n", "~~~\n", "`", "\n",
      "[f(x=[1, 2])]", "lorem ", "[g(q=\"]\")]"]


@_examples
@given(st.lists(st.sampled_from(PY), max_size=80).map("".join), st.integers(0, 300))
def test_pythonic_inline_lists_are_the_old_walks(text: str, tokens: int) -> None:
    """Lists in prose, in fences and broken, under budgets from none to plenty: the same calls and
    text as the walk that parsed every list and found every fence first."""
    got = pythonic.PYTHONIC._inline(text, AstBudget(tokens))
    old = _old_inline(text, AstBudget(tokens))
    assert ([(c.name, c.arguments, c.raw) for c in got[0]], got[1]) == old


def test_fenced_examples_are_not_parsed_one_by_one(monkeypatch) -> None:
    """A megabyte-like run of fenced examples (3,000 lists): one list is parsed (the first, before
    the fences are asked), the others are charged to the budget unread, and the walk stops where
    the budget runs out instead of scanning every list's brackets."""
    parsed: list[str] = []
    real = pythonic.call_list
    monkeypatch.setattr(pythonic, "call_list", lambda src, budget: parsed.append(src) or real(src, budget))
    ends: list[int] = []
    real_end = pythonic._list_end
    monkeypatch.setattr(pythonic, "_list_end", lambda *a: ends.append(1) or real_end(*a))
    text = "Here is the code:\n```python\nresults = [compute(x=1), compute(x=2)]\nprint(results)\n```\n" * 3000
    assert pythonic.PYTHONIC.parse(text) == ([], text)
    assert len(parsed) == 1
    assert len(ends) < 3000 // 2, len(ends)


BRACKETS = ["{", "}", "[", "]", "(", ")", "{{{{", "}}}}", "((((", "))", "[[[", "]]]]", "{[(", ")]}", "({", "})",
            '"</think>"', "'<tool_call>'", '"a"', " ", "\n", "x", "<tool_call>", '<|"|>', "<|", "|>", '"', "'", "<",
            "\\", '<|"|></think><|"|>']


@_examples
@given(st.lists(st.sampled_from(BRACKETS), max_size=120).map("".join), st.integers(0, 3))
def test_runs_of_brackets_stack_as_brackets_one_by_one(text: str, depth: int) -> None:
    """Nesting written as runs (`{{{{ ... }}}}`, mixed runs, closers with no opener), among tags and
    Gemma 4's `<|"|>` (a quote that opens no string, told by the `<|` before it): the strings found
    holding markup are the per-token walk's."""
    text = "{" * (300 * depth) + text + "}" * (100 * depth)
    rx = _opaque.markup_pattern()
    few = _opaque._FEW_TOKENS
    try:
        _opaque._FEW_TOKENS = 0  # the scanner, whatever the reply's size
        assert _opaque._string_spans(text, rx) == _string_spans_old(text, rx)
    finally:
        _opaque._FEW_TOKENS = few


def test_deep_nesting_is_walked_a_run_at_a_time(monkeypatch) -> None:
    """131,072 `{`, a call, 65,536 `}` (bench_parse_scale's deep nesting): the mask's walk takes a
    few matches, one per run of brackets and string, where it took one per bracket."""
    matches: list[int] = []
    real = _opaque._scanner

    class Counted:
        def __init__(self, rx: Any) -> None:
            self.rx = rx

        def finditer(self, text: str) -> Any:
            for m in self.rx.finditer(text):
                matches.append(1)
                yield m

        def __getattr__(self, name: str) -> Any:
            return getattr(self.rx, name)

    monkeypatch.setattr(_opaque, "_scanner", lambda kind, known: Counted(real(kind, known)))
    call = '<tool_call>\n<function=f>\n<parameter=q>\n"x" </tool_call>\n</parameter>\n</function>\n</tool_call>'
    text = "{" * 131072 + call + ' ("<think>") ' + "}" * 65536
    masked = _opaque.mask(text)
    assert masked.restore(masked.text) == text and masked.changed
    assert 0 < len(matches) < 20, len(matches)


REASONING = ["<think>", "</think>", "[THINK]", "[/THINK]", "<seed:think>", "</seed:think>", "<|channel>", "<channel|>",
             "<|START_THINKING|>", "<|END_THINKING|>", "think>", "THINK]", "channel", "<tool_call>", "</tool_call>",
             "plan ", "\n", "<|", "|>"]
_PAIRS = pipeline._pair_probes()
long_reasoning = st.tuples(st.lists(st.sampled_from(REASONING), max_size=30).map("".join), st.integers(1, 2),
                           st.lists(st.sampled_from(REASONING), max_size=30).map("".join)).map(
    lambda t: t[0] + "lorem ipsum | <x> " * (300 * t[1]) + t[2])


@_examples
@given(long_reasoning)
def test_a_changed_long_text_skips_pairs_by_their_probes_as_the_tags_would(text: str) -> None:
    """After a split changes a long reply, a pair whose shared probe stands nowhere is passed over
    without asking its two tags: the split is the one that asks every pair's tags."""
    seen = pipeline._seen(text)
    got = pipeline.split_thinking(text, seen if isinstance(seen, _seen.Seen) else None)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "_pair_probes", lambda: tuple((pair, frozenset()) for pair, _ in _PAIRS))
        assert pipeline.split_thinking(text) == got


def test_a_changed_long_text_asks_one_probe_a_pair(monkeypatch) -> None:
    """Reasoning cut out of a 60 KB reply: each later pair with a probe its two tags share asks that
    probe (one scan), not its open and its close tag (two)."""
    asked: list[str] = []
    real = pipeline.holds
    monkeypatch.setattr(pipeline, "holds", lambda text, needle: asked.append(needle) or real(text, needle))
    text = "<think>plan</think>" + "lorem ipsum | <x> " * 3000 + "<think>more</think> done"
    assert pipeline.split_thinking(text, pipeline._seen(text))[1] == "plan\n\nmore"
    assert "THINK]" in asked and "[THINK]" not in asked and "[/THINK]" not in asked


def _old_orphan_close(text: str, open_tag: str, close_tag: str, start: int, calls: Any) -> int:
    """_orphan_close as it stood: the close searched again after every opener."""
    depth, pos, paired = 0, start, False
    while True:
        c = text.find(close_tag, pos)
        while c >= 0 and calls is not None and calls.inside(c):
            c = text.find(close_tag, c + len(close_tag))
        if c < 0:
            return -1
        o = text.find(open_tag, pos, c)
        if o >= 0:
            depth += 1
            pos = o + len(open_tag)
            continue
        if depth == 0:
            return -1 if paired and not text[c + len(close_tag):].strip() else c
        depth -= 1
        paired = True
        pos = c + len(close_tag)


THINKS = ["<think>", "</think>", "<tool_call>", "</tool_call>", "x", " ", "\n", "<", ">"]


@_examples
@given(st.lists(st.sampled_from(THINKS), max_size=80).map("".join), st.integers(0, 2), st.integers(0, 20))
def test_the_orphan_close_is_the_old_walks(text: str, longer: int, start: int) -> None:
    """Nested and quoted reasoning tags, inside calls or not, short and past SHORT: the first
    close with no opener is the one the walk that searched the close after every opener found."""
    text = text + "lorem ipsum " * (400 * longer)
    start = min(start, len(text))
    for calls in (None, pipeline._CallSpans(text)):
        assert pipeline._orphan_close(text, "<think>", "</think>", start, calls) == \
            _old_orphan_close(text, "<think>", "</think>", start, calls)


def test_nested_pairs_search_their_close_once(monkeypatch) -> None:
    """1,000 pairs (a reasoning quoting one, then its close): each close is searched for once, not
    again after the opener before it."""
    asked: list[str] = []
    real = pipeline.finder
    monkeypatch.setattr(pipeline, "finder", lambda text, below=_seen.TWO_WAY: (
        lambda needle, *a: asked.append(needle) or real(text, below)(needle, *a)))
    text = "<think>a</think>" * 1000 + "</think>tail"
    assert pipeline._orphan_close(text, "<think>", "</think>") == len(text) - len("</think>tail")
    assert asked.count("</think>") <= 1001, asked.count("</think>")
