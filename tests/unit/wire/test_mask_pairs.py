"""A reply dense in markup tokens (more than a few bracket places) with one kind of quote, none
escaped, is answered by reading its strings (the quotes taken two by two) instead of every token's
place: the answer must be the full pass's (hypothesis, with every dialect's markers inside and
outside string values, unbalanced and escaped quotes, nested JSON, line breaks), and the places are
then not read one by one (counted, never timed)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects
from agentcli.wire.dialects import _opaque

MARKERS = sorted({m for n in dialects.names() for m in (*dialects.declared(n).markers, *dialects.declared(n).owns) if m})
# Every piece a second time with its quotes swapped: a text holding one kind of quote is drawn often.
_BASE = [*MARKERS, "<|sep|>", "<parameter=a>", "</parameter>", '<parameter name="a">', '<|"|>', '"', '"', '"',
         "\\", '\\"', "\\\\", "\n", "{", "}", "[", "]", "(", ")", ": ", ", ", " ", "a", "lorem ", "東京", "｜",
         '{"a": 1}', '{"a": {"b": [1, "x"]}}', 'tool="python" ']
PIECES = _BASE + [p.replace('"', "'") for p in _BASE]
_examples = settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
# Many tokens on one line, and long fillers, so both ways of cutting out the strings are taken.
dense = st.tuples(st.lists(st.sampled_from(MARKERS), min_size=9, max_size=20), texts, texts).map(
    lambda t: t[1] + "".join(t[0]) + t[2])
long_dense = st.tuples(dense, st.integers(1, 4), texts).map(lambda t: t[0] + "lorem ipsum " * (200 * t[1]) + t[2])


def _full(text: str) -> _opaque.Masked:
    return _opaque._mask_strings(text, _opaque.markup_pattern())


@_examples
@given(st.one_of(texts, dense, long_dense))
@example('<|open|>call tool="<|close|>"<|sep|>' * 3 + "[]")
@example('<|"|>x<|"|>' + "<|sep|>" * 9 + '{"a": "<|sep|>"}')
@example('{"a": "x\\"<tool_call>"}' + "<|sep|>" * 9)
@example('"a\n{"b": "<tool_call>"}' + "<|sep|>" * 9)  # a string's quote on the line before: no pair across it
@example("<|sep|>" * 9 + '(<|"|>"<think>"')  # Gemma 4's delimiter is no quote: the string after it holds the token
@example("('<think>')" + "<|sep|>" * 9)
@example("<|sep|>" * 9 + '{"a": "' + "lorem " * 400 + '<tool_call>", "b": "c"}')  # a long string, read in place
@example("<|sep|>" * 9 + '["' + "lorem " * 400 + '\n{"k": "<tool_call>"}')  # a long string never closed
def test_the_strings_read_answer_as_the_full_pass(text: str) -> None:
    quick = _opaque.mask(text)
    if _opaque._OPEN not in text:
        full = _full(text)
        assert (quick.text, quick._tokens) == (full.text, full._tokens)
    assert quick.restore(quick.text) == text


@_examples
@given(st.one_of(texts, dense, long_dense))
def test_strings_read_clear_hide_nothing(text: str) -> None:
    """_pairs_clear's own promise, asked of any text it is asked of (one kind of quote, none after a
    backslash): clear strings leave the full pass nothing to hide outside parameter values."""
    dq, sq = '"' in text, "'" in text
    if dq == sq or "<parameter" in text or _opaque._OPEN in text:
        return
    quote = '"' if dq else "'"
    if "\\" + quote in text:
        return
    if _opaque._pairs_clear(text, quote):
        assert not _full(text).changed


@pytest.mark.parametrize("filler", [0, 80, 800, 8000])
def test_a_reply_dense_in_tokens_is_answered_by_its_strings(monkeypatch, filler: int) -> None:  # noqa: ANN001
    calls: list[str] = []
    for name in ("_places_even", "_clear_of_strings", "_mask_strings"):
        real = getattr(_opaque, name)
        monkeypatch.setattr(_opaque, name, lambda *a, _n=name, _r=real: calls.append(_n) or _r(*a))
    reply = ('<|open|>response<|sep|>Let me run it.<|close|>response<|sep|><|open|>tools<|sep|>'
             '<|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1) '
             + "lorem ipsum " * filler + '<|close|>argument<|sep|><|open|>argument key="opts" type="object"<|sep|>'
             '{"a": 1, "b": ["x", {"c": "d"}]}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>')
    assert not _opaque.mask(reply).changed
    assert calls == []
    hidden = reply.replace('"d"', '"<|close|>call<|sep|>"')
    masked = _opaque.mask(hidden)
    assert masked.changed and "_mask_strings" in calls
    assert masked.restore(masked.text) == hidden
