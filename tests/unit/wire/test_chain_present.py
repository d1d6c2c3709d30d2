"""The chain's marker index asks a group of markers sharing a rare character of the text around
that character's places (`_seen.near`), and tries only the dialects whose markers stand in the
text (issue 29). Generated inputs get the answers of the plain searches; the work on a long reply
is counted (the characters each group's markers are asked of), never timed."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _seen

INDEX = pipeline._chain_index(tuple(dialects.DIALECTS))
PIECES = [*INDEX.markers, "<", ">", "|", "[", "]", "=", ":", "\n", "\0", " ", "a", "all", "lorem ipsum ", "｜", "▁"]
_examples = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
# Markers around long filler: the index's sparse path (stretches of places) and, with many
# pieces, more places than a short text gathers.
long_texts = st.tuples(texts, st.integers(0, 3), texts).map(lambda t: t[0] + "lorem ipsum " * (800 * t[1]) + t[2])


@_examples
@given(st.one_of(texts, long_texts))
def test_present_is_each_marker_in_the_text(text: str) -> None:
    assert INDEX.present(pipeline._seen(text)) == frozenset(m for m in INDEX.markers if m in text)


@_examples
@given(st.one_of(texts, long_texts), st.sampled_from([ch for ch, _ in INDEX.groups if ch]), st.integers(0, 30),
       st.integers(1, 30))
def test_near_holds_every_needle_the_text_holds(text: str, ch: str, before: int, after: int) -> None:
    """A needle holding `ch` within `before` / `after` characters of it stands in the neighbourhoods
    exactly when it stands in the text."""
    for seen in (text, _seen.Seen(text)):
        hay = _seen.near(seen, ch, before, after)
        if hay is None:
            continue
        for piece in {p for p in PIECES if ch in p} | {text[i - min(i, before): i + after] for i in range(len(text))
                                                       if text[i] == ch and "\0" not in text[max(0, i - before): i + after]}:
            off = piece.find(ch)
            if off <= before and len(piece) - off <= after and "\0" not in piece:
                assert (piece in hay) == (piece in text), (piece, hay)


@_examples
@given(st.one_of(texts, long_texts))
def test_runnable_is_the_dialects_with_a_marker_present(text: str) -> None:
    present = INDEX.present(pipeline._seen(text))
    want = {n for n in INDEX.names if not INDEX.marker_sets[n] or not INDEX.marker_sets[n].isdisjoint(present)}
    assert set(INDEX.runnable(present)) == want


def test_a_long_reply_asks_each_group_of_a_few_characters(monkeypatch) -> None:
    """A 100 KB reply holding a call's tags: the tag markers (some 25 sharing `<`) are asked of the
    text around the two tags, not of the reply; the one marker keyed on a line break likewise."""
    asked: list[int] = []
    real = _seen.near

    def counting(seen, ch, before, after):  # noqa: ANN001, ANN202
        hay = real(seen, ch, before, after)
        asked.append(-1 if hay is None else len(hay))
        return hay

    monkeypatch.setattr(pipeline, "near", counting)
    text = '<tool_call>\n{"name": "f", "arguments": {"a": "' + "lorem ipsum " * 9000 + '"}}\n</tool_call>'
    assert INDEX.present(pipeline._seen(text)) == frozenset(m for m in INDEX.markers if m in text)
    assert asked and all(0 <= n < 200 for n in asked)


def test_a_marker_ending_in_a_line_break_is_found_by_the_break() -> None:
    assert _seen.key("all\n") == ("\n", 3)


needles = st.one_of(st.sampled_from(PIECES), st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join))


@_examples
@given(st.one_of(texts, long_texts), needles, st.integers(0, 60), st.integers(0, 60))
def test_locate_is_find(text: str, needle: str, start: int, cut: int) -> None:
    end = max(start, len(text) - cut)
    assert _seen.locate(text, needle) == text.find(needle)
    assert _seen.locate(text, needle, start, end) == text.find(needle, start, end)


@_examples
@given(st.one_of(texts, long_texts), st.sampled_from(["<", "|", "\n", "a", " ", '"']), st.integers(0, 60))
def test_count_char_is_count(text: str, ch: str, start: int) -> None:
    assert _seen.count_char(text, ch) == text.count(ch)
    assert _seen.count_char(text, ch, start, len(text) - start) == text.count(ch, start, len(text) - start)


class _Searches(str):
    """A str that counts its whole-text searches (find and count calls)."""

    calls: list[str]

    def find(self, sub, *args):  # noqa: ANN001, ANN002, ANN201
        self.calls.append("find")
        return str.find(self, sub, *args)

    def count(self, sub, *args):  # noqa: ANN001, ANN002, ANN201
        self.calls.append("count")
        return str.count(self, sub, *args)


def test_a_long_reply_finds_its_tags_by_their_rare_character() -> None:
    """Tags in a 100 KB reply are looked for by memchr of their rarest character and a compare at
    each place, never by a multi-character search of the whole text."""
    text = _Searches("<tool_call>\n" + "lorem ipsum " * 9000 + "\n</tool_call>")
    text.calls = []
    assert _seen.locate(text, "</tool_call>") == str.find(text, "</tool_call>")
    assert _seen.locate(text, "<tool_call>", 5) == -1
    assert text.calls.count("find") <= 6 and "count" not in text.calls


MASK_PIECES = ["<think>", "</think>", "<tool_call>", "</tool_call>", "[TOOL_CALLS]", '"', "'", "(", ")", "[", "]", "{", "}",
               "\\", "\n", " ", "I'll ", "a", "lorem ipsum ", "<parameter=x>", "</parameter>", "｜"]
mask_texts = st.lists(st.sampled_from(MASK_PIECES), max_size=40).map("".join)


@_examples
@given(st.one_of(mask_texts, st.tuples(mask_texts, mask_texts).map(lambda t: t[0] + "lorem ipsum " * 800 + t[1])))
def test_the_quick_checks_of_mask_skip_only_texts_with_nothing_to_hide(text: str) -> None:
    """mask's quick checks (no quote before any markup on its line; a quote but no bracket opened
    before it) decide only what the full pass would: its result is the full pass's."""
    from agentcli.wire.dialects import _opaque

    quick, full = _opaque.mask(text), _opaque._mask_strings(text, _opaque.markup_pattern())
    if _opaque._OPEN not in text:
        assert (quick.text, quick._tokens) == (full.text, full._tokens)


@pytest.mark.parametrize("text", [
    '(\\"<think>"', '{\\"<think>"' + "lorem ipsum " * 800, "lorem ipsum " * 800 + '(\\"<think>"',
    '{"a\\\\", "<think>"}', '{"a\\\\", "<think>"}' + "lorem ipsum " * 800, '["x \\"<tool_call>\\" y"]',
])
def test_an_escaped_quote_before_markup_is_left_to_the_full_pass(text: str) -> None:
    """`\\"` escapes a quote inside a string, and outside one is a backslash and a quote that opens
    a string: the quick checks cannot tell which, short reply or long, so the full pass decides."""
    from agentcli.wire.dialects import _opaque

    quick, full = _opaque.mask(text), _opaque._mask_strings(text, _opaque.markup_pattern())
    assert (quick.text, quick._tokens) == (full.text, full._tokens)
