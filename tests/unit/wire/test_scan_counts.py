"""The parse's hot paths look for markup where its rare characters stand instead of scanning the
whole text once per needle (issue 29). Two kinds of check: generated inputs get the same answers
as the plain searches they replace (hypothesis), and the work on a long reply is counted (scans
over the whole text, pattern scans, marker-index rebuilds), never timed."""

from __future__ import annotations

import hashlib
import re

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _markup, _opaque, _seen, deepseek
from agentcli.wire.types import Candidate, ParseContext

MARKERS = sorted({m for n in dialects.names() for m in dialects.get(n).markers if m})
PIECES = [*MARKERS[:: max(1, len(MARKERS) // 40)], "<think>", "</think>", "[THINK]", "<|message|>", "```", "~~~",
          "`", "~", "<", ">", "|", "[", "]", '"', "'", "\\", "\n", " ", "  ", "a", "lorem ipsum ", "é", "｜", "▁"]
_examples = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
# The same pieces around long filler, so the marker index's sparse path (places, stretches) is taken.
long_texts = st.tuples(texts, st.integers(0, 3), texts).map(lambda t: t[0] + "lorem ipsum " * (400 * t[1]) + t[2])
needles = st.one_of(st.sampled_from(PIECES), st.lists(st.sampled_from(PIECES), min_size=1, max_size=3).map("".join))


@_examples
@given(st.one_of(texts, long_texts), needles)
def test_holds_is_in(text: str, needle: str) -> None:
    assert _seen.holds(text, needle) == (needle in text)


@_examples
@given(st.one_of(texts, long_texts), st.lists(needles, max_size=6).map(tuple))
def test_holds_any_and_the_marker_index_are_in(text: str, group: tuple[str, ...]) -> None:
    seen = _seen.Seen(text)
    assert _seen.holds_any(text, group) == any(n in text for n in group)
    assert [n in seen for n in group] == [n in text for n in group]


@_examples
@given(st.one_of(texts, long_texts), st.integers(0, 50))
def test_find_long_is_find(text: str, cut: int) -> None:
    needle = text[cut:]
    for n in (needle, needle[: len(needle) // 2], needle + "x"):
        for start in (0, cut // 2):
            assert _seen.find_long(text, n, start) == text.find(n, start)


def test_find_long_after_many_false_starts() -> None:
    head = "ab" * 40
    text = (head + "c") * 30 + head + "d" * 200
    needle = head + "d" * 100
    assert _seen.find_long(text, needle) == text.find(needle)


@_examples
@given(st.one_of(texts, long_texts))
def test_fences_are_read_as_line_by_line(text: str) -> None:
    assert pipeline._fences(text) == pipeline._fences_by_line(text)


def test_fences_dense_in_backticks_fall_back_to_lines() -> None:
    text = "use `x` and `y`\n" * 300 + "```\ncode\n```\n"
    assert pipeline._fence_starts(text) is None
    assert pipeline._fences(text) == pipeline._fences_by_line(text)


@_examples
@given(st.one_of(texts, long_texts))
def test_markup_hits_are_the_pattern_scan(text: str) -> None:
    rx = _opaque.markup_pattern()
    assert [m.span() for m in _opaque._hits(text, rx)] == [m.span() for m in rx.finditer(text)]


def test_markup_hits_past_many_misses_are_the_pattern_scan() -> None:
    rx = _opaque.markup_pattern()
    text = "[1, [2]] " * 100 + "<tool_call> [TOOL_CALLS] </tool_call>"
    assert [m.span() for m in _opaque._hits(text, rx)] == [m.span() for m in rx.finditer(text)]


@_examples
@given(texts)
def test_deepseek_last_fence_is_rfind(text: str) -> None:
    assert deepseek._last_fence(text) == text.rfind("```")


def _cand(raw: str, name: str = "f") -> Candidate:
    return Candidate(name=name, arguments="{}", raw=raw, dialect="hermes")


def test_short_call_ids_are_the_blake2b_of_the_call_as_before() -> None:
    raw = '<tool_call>{"name": "f", "arguments": {}}</tool_call>'
    want = hashlib.blake2b(f"0\0hermes\0f\0{raw}".encode(), digest_size=8).hexdigest()
    assert pipeline._stable_id(0, _cand(raw)) == "call_" + want


# Call texts of every width (full-width tokens, lone surrogates, astral characters), short and long.
_raws = st.tuples(st.lists(st.sampled_from(["<｜tool▁call▁begin｜>", "lorem ipsum ", "\ud83d", "é", "\U0001f600", "\0", "x"]),
                           max_size=40).map("".join), st.integers(0, 3000)).map(lambda t: t[0] + "y" * t[1] + t[0])


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(raw=_raws, other=_raws, index=st.integers(0, 63))
def test_call_ids_are_stable_and_tell_places_dialects_names_and_texts_apart(raw: str, other: str, index: int) -> None:
    """The same call text at the same place gets the same id (a new string object, parsed again);
    another place, dialect or name gets another; two texts of different length or ends differ."""
    a = _cand(raw)
    assert pipeline._stable_id(index, a) == pipeline._stable_id(index, _cand("".join(list(raw))))
    assert pipeline._stable_id(index, a) != pipeline._stable_id(index + 1, a)
    assert pipeline._stable_id(index, a) != pipeline._stable_id(index, _cand(raw, name="g"))
    assert pipeline._stable_id(index, a) != pipeline._stable_id(index, Candidate("f", "{}", raw, "xlam"))
    end = pipeline._ID_END
    if len(raw) != len(other) or raw[:end] != other[:end] or raw[-end:] != other[-end:]:
        assert pipeline._stable_id(index, a) != pipeline._stable_id(index, _cand(other))


def test_a_long_call_is_named_from_a_bounded_part_of_its_text(monkeypatch) -> None:
    """Naming a call hashes a bounded number of bytes whatever its length (the length and both ends
    of a long text): reading a 100 KB call whole to name it cost more than decoding it."""
    seeds: list[int] = []
    real = pipeline._blake2b()
    monkeypatch.setattr(pipeline, "_blake2b", lambda: lambda data, **kw: seeds.append(len(data)) or real(data, **kw))
    for n in (10, 1_000, 100_000):
        pipeline._stable_id(0, _cand("<｜tool▁call▁begin｜>" + "x" * n))
    assert len(seeds) == 3 and max(seeds) <= 4 * pipeline._ID_WHOLE + 64


def test_a_reply_repeating_one_long_call_text_gives_each_call_its_own_id() -> None:
    """Calls read from one long block share its raw text (and so its ends): their places tell them
    apart, and parsing the reply again (a new string) names them the same."""
    from agentcli.wire.pipeline import parse_text

    body = ", ".join(f'{{"name": "f", "arguments": {{"a": "{"x" * 3000}{i}"}}}}' for i in range(3))
    text = f"<tool_call>[{body}]</tool_call>"
    first, again = parse_text(text, None, ("hermes",)), parse_text("".join(list(text)), None, ("hermes",))
    assert [c.id for c in again.tool_calls] == [c.id for c in first.tool_calls]
    assert len({c.id for c in first.tool_calls}) == 3


# --- counted work on a long reply -----------------------------------------------------------------

FILLER = " lorem ipsum dolor sit amet" * 4000  # ~108 KB
REPLY = '<tool_call>{"name": "write", "arguments": {"text": "' + FILLER + '"}}</tool_call>'


class _Scans(str):
    """A str counting searches for a needle of more than one character that covered more than half
    of it: the full-text scans the hot paths are meant to avoid."""

    scans = 0

    def _note(self, sub: object, start: int | None, end: int | None) -> None:
        n = len(self)
        s = 0 if start is None else max(0, start + n if start < 0 else start)
        e = n if end is None else min(n, end + n if end < 0 else end)
        if isinstance(sub, str) and len(sub) > 1 and e - s > n // 2:
            type(self).scans += 1

    def find(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        self._note(sub, start, end)
        return str.find(self, sub, start, end)

    def rfind(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        self._note(sub, start, end)
        return str.rfind(self, sub, start, end)

    def count(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        self._note(sub, start, end)
        return str.count(self, sub, start, end)

    def __contains__(self, sub) -> bool:  # noqa: ANN001
        self._note(sub, None, None)
        return str.__contains__(self, sub)


def _scans(fn, text: str) -> int:  # noqa: ANN001
    _Scans.scans = 0
    fn(_Scans(text))
    return _Scans.scans


def test_a_reply_without_reasoning_is_passed_without_a_scan_per_tag() -> None:
    assert len(pipeline._reasoning_markup()) >= 8  # as many scans as the check was once given
    assert _scans(pipeline.split_thinking, REPLY) == 0
    # the counter sees the split's own work (a close after the answer: the full split, not the usual shape's shortcut)
    assert _scans(pipeline.split_thinking, "<think>a</think>" + REPLY + "</think>") > 0


def test_masking_a_reply_with_no_quoted_markup_scans_no_whole_text() -> None:
    assert _scans(_opaque.mask, REPLY) <= 1  # at most the one parity count of the call's line


def test_the_string_mask_runs_no_pattern_over_the_text_when_markup_is_sparse(monkeypatch) -> None:
    rx = _opaque.markup_pattern()

    class Counted:
        scans = matches = 0
        pattern = rx.pattern

        def finditer(self, text: str, *a):  # noqa: ANN002, ANN201
            Counted.scans += 1
            return rx.finditer(text, *a)

        def search(self, text: str, *a):  # noqa: ANN002, ANN201
            Counted.scans += 1
            return rx.search(text, *a)

        def match(self, text: str, *a):  # noqa: ANN002, ANN201
            Counted.matches += 1
            return rx.match(text, *a)

        def sub(self, *a):  # noqa: ANN002, ANN201
            return rx.sub(*a)

        def split(self, *a):  # noqa: ANN002, ANN201 - the full pass cuts each string holding markup
            return rx.split(*a)

    counted = Counted()
    monkeypatch.setattr(_opaque, "markup_pattern", lambda: counted)
    assert not _opaque.mask(REPLY).changed
    assert Counted.scans == 0 and Counted.matches <= 4
    quoted = '{"a": "x </tool_call> y"}\n' + REPLY
    assert _opaque.mask(quoted).changed


def test_fences_of_a_long_reply_are_found_without_reading_its_lines() -> None:
    text = "intro\n```json\n" + REPLY + "\n```\n" + "more prose\n" * 2000
    assert pipeline._fences(text) == pipeline._fences_by_line(text) == [(6, 14 + len(REPLY) + 4)]
    assert _scans(pipeline._fences, text) == 0


@pytest.mark.parametrize("parsers", [("hermes",), None])
def test_the_marker_index_of_the_reply_is_built_once(monkeypatch, parsers) -> None:  # noqa: ANN001
    """The reasoning split and the dialect chain share one index of the long reply (one the lane
    leaves to them: prose with brackets before the call; the lane itself builds none)."""
    text = "Writing it (as asked):\n" + REPLY
    built: list[int] = []
    real = _seen.Seen.__init__

    def counting(self, text: str) -> None:  # noqa: ANN001
        built.append(len(text))
        real(self, text)

    monkeypatch.setattr(_seen.Seen, "__init__", counting)
    resp = pipeline.parse_text(text, ParseContext(), parsers)
    assert len(resp.tool_calls) == 1
    assert built.count(len(text)) == 1
    built.clear()
    assert len(pipeline.parse_text(REPLY, ParseContext(), parsers).tool_calls) == 1
    assert built == []  # the usual reply: the lane reads it


def test_a_dialect_returning_a_copy_of_the_text_rebuilds_no_index(monkeypatch) -> None:
    built: list[int] = []
    real_seen = pipeline._seen
    monkeypatch.setattr(pipeline, "_seen", lambda text: built.append(len(text)) or real_seen(text))
    real = pipeline._parse_within

    def copying(d, text, *a):  # noqa: ANN001, ANN002, ANN202
        got = real(d, text, *a)
        if got is not None and not got[0] and got[1] is text:
            return [], text.encode().decode(), text, ""  # the same text, another object
        return got

    monkeypatch.setattr(pipeline, "_parse_within", copying)
    prose = "no call here " * 1000
    resp = pipeline.parse_text(prose, ParseContext(), ("hermes", "llama3_json", "mistral"))
    assert resp.text == prose.strip() and not resp.tool_calls
    assert built == [len(prose)]


def test_the_flood_bound_counts_no_marker_when_their_characters_are_few(monkeypatch) -> None:
    prep = pipeline._prepared("deepseek_v3")
    assert prep is not None
    text = _Scans("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n{\"a\": \""
                  + FILLER + "\"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
    _Scans.scans = 0
    assert pipeline._reach(text, prep[1], prep[3], 1024) == len(text)
    assert _Scans.scans == 0
    many = _Scans(("<｜tool▁call▁begin｜>x" * 2000) + FILLER)
    assert pipeline._reach(many, prep[1], prep[3], 1024) == [m.start() for m in re.finditer(
        "<｜tool▁call▁begin｜>", many)][1024]


def _any_quoted_per_token(text: str, rx: re.Pattern[str]) -> bool:
    """The check as first written: each token's line counted from its start."""
    if "<parameter" in text:
        return rx.search(text) is not None
    if '"' not in text and "'" not in text:
        return False
    for k, m in enumerate(rx.finditer(text)):
        if k == _opaque._HITS_CHECKED:
            return True
        at = m.start()
        line = text.rfind("\n", 0, at) + 1
        if '\\"' in text[line:at]:
            return True  # an escaped quote: in a string or opening one outside, the full pass decides
        if text.count('"', line, at) % 2 or text.count("'", line, at) % 2:
            return True
    return False


@_examples
@given(st.one_of(texts, long_texts))
@example('[\\"\\"<think>')  # two escaped quotes: even, yet neither read as escaped nor as a string's
def test_the_quote_check_counts_each_line_once_with_the_same_answer(text: str) -> None:
    rx = _opaque.markup_pattern()
    assert _opaque._any_quoted(text, rx) == _any_quoted_per_token(text, rx)


def test_a_reply_with_reasoning_is_split_in_a_few_scans() -> None:
    """Scans for the steps of the one pair present, not two per declared pair and ten per call-span
    index (the split took 20 such scans of this reply when each pair and wrapper was asked by `in`)."""
    pairs = len(_markup_pairs())
    assert pairs > 5
    assert _scans(pipeline.split_thinking, "<think>a</think>" + REPLY) < pairs + 2


def _markup_pairs() -> tuple[tuple[str, str], ...]:
    from agentcli.wire.dialects import _markup

    return _markup.collected().reasoning_tags


def test_each_reasoning_pair_has_probes_both_its_tags_hold() -> None:
    pairs = pipeline._pair_probes()
    assert [pair for pair, _ in pairs] == list(_markup.collected().reasoning_tags)
    for (open_tag, close_tag), probes in pairs:
        assert probes and all(p in open_tag and p in close_tag for p in probes)


@_examples
@given(texts)
def test_the_reasoning_split_skipping_pairs_by_probe_is_the_split_asking_every_pair(text: str) -> None:
    filtered = pipeline.split_thinking(text)
    every = tuple((pair, frozenset()) for pair, _ in pipeline._pair_probes())  # no probes: each pair asked
    original = pipeline._pair_probes
    pipeline._pair_probes = lambda: every  # type: ignore[assignment]
    try:
        assert pipeline.split_thinking(text) == filtered
    finally:
        pipeline._pair_probes = original  # type: ignore[assignment]
