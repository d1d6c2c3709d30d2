"""The string masking reads the strings of the lines holding markup (quotes, escapes, line breaks
found by memchr) where the quote parity cannot tell: an escaped quote in a call's arguments
(`{"a": "say \\"hi\\""}`) before the call's close token no longer costs the full pass over the
whole reply. The quick reading must answer as the full pass does (hypothesis, generated texts
dense in quotes, escapes, brackets and markup, short and long); the full pass is counted, never timed."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _opaque

PIECES = ["<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "</tool_call>", "<tool_call>", "<think>", "[TOOL_CALLS]",
          "<parameter=a>", "</parameter>", '<|"|>', '"', '"', "'", '\\"', "\\'", "\\\\", "\\", "\\\n", "\n",
          "{", "}", "[", "]", "(", ")", " ", ": ", ", ", "a", "I'll ", "東京", "｜"]
_examples = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
# Around long filler, so mask's long-reply check (the markup tokens walked) is taken as well.
long_texts = st.tuples(texts, st.integers(1, 3), texts).map(lambda t: t[0] + "lorem ipsum " * (200 * t[1]) + t[2])


def _full(text: str) -> _opaque.Masked:
    return _opaque._mask_strings(text, _opaque.markup_pattern())


@_examples
@given(st.one_of(texts, long_texts))
@example('{"a": "x \\"y\\" z"}<｜tool▁call▁end｜>')
@example('{"a": "x \\\\"}<｜tool▁call▁end｜>"')
@example('("I\\\'ll <think>")')
@example('<|"|>["<|"|><think>')
# the quote parity misread these (the full pass hides the token): a single-quoted string holding a
# double quote, an escaped single quote, Gemma 4's delimiter counted as a quote
@example('\'"I\'ll ["</tool_call>"')
@example("('\\'<think>'")
@example('(<|"|>"</tool_call>"')
def test_the_mask_is_the_full_pass(text: str) -> None:
    quick = _opaque.mask(text)
    if _opaque._OPEN not in text:
        full = _full(text)
        assert (quick.text, quick._tokens) == (full.text, full._tokens)
    assert quick.restore(quick.text) == text


@_examples
@given(st.one_of(texts, long_texts))
def test_a_text_read_clear_of_strings_has_nothing_to_hide(text: str) -> None:
    """Every markup token opens at a bracket place: when none stands in a string mask could hide,
    the full pass hides nothing."""
    places = sorted(i for i, c in enumerate(text) if c in _opaque._FIRSTS)
    if _opaque._clear_of_strings(text, places, most=len(places)) and "<parameter" not in text:
        assert not _full(text).changed


@pytest.mark.parametrize("filler", [0, 80, 8000])
def test_an_escaped_quote_in_the_arguments_costs_no_full_pass(monkeypatch, filler: int) -> None:  # noqa: ANN001
    calls: list[str] = []
    full = _opaque._mask_strings
    monkeypatch.setattr(_opaque, "_mask_strings", lambda t, rx: calls.append(t) or full(t, rx))
    args = '{"location": "T\\u014dky\\u014d \\"東京\\" ' + "lorem ipsum " * filler + '", "note": "a\\\\b\\nc"}'
    reply = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>" + args
             + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>")
    assert not _opaque.mask(reply).changed
    assert calls == []
    quoted = '{"a": "x \\"y\\" <｜tool▁call▁end｜>"}' + "lorem ipsum " * filler
    assert _opaque.mask(quoted).changed  # the token in the string is hidden
    assert _opaque.mask(quoted).restore(_opaque.mask(quoted).text) == quoted


def test_a_line_dense_in_strings_is_left_to_the_full_pass() -> None:
    text = "{" + ", ".join(f'"k{i}": "v \\"{i}\\""' for i in range(40)) + "}<｜tool▁call▁end｜>"
    assert not _opaque._clear_of_strings(text, [text.index("<")])
    assert not _opaque.mask(text).changed


@pytest.mark.parametrize("filler", [0, 800])
def test_a_reply_dense_in_tokens_with_attribute_strings_needs_no_pattern(filler: int) -> None:
    """More bracket places than the quote parity looks at (twenty tokens), strings in the tokens'
    attributes: the strings read answer without the markup pattern (compiled nowhere) or the full pass."""
    reply = ('<|open|>response<|sep|>Let me run it.<|close|>response<|sep|><|open|>tools<|sep|>'
             '<|open|>call tool="python" index="1"<|sep|><|open|>argument key="code" type="string"<|sep|>print(1) '
             + "lorem ipsum " * filler + '<|close|>argument<|sep|><|open|>argument key="opts" type="object"<|sep|>'
             '{"a": 1}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>')
    assert reply.count("<") > _opaque._PLACES_CHECKED
    _opaque.markup_pattern.cache_clear()
    try:
        assert not _opaque.mask(reply).changed
        assert _opaque.markup_pattern.cache_info().currsize == 0
    finally:
        _opaque.markup_pattern.cache_clear()
