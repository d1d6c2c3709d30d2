"""The string masking answers a reply whose markup all stands outside strings without compiling the
markup pattern (every dialect's tokens, one prefix tree: the costliest pattern of a cold parse), and
every other reply exactly as the pattern-first path does (hypothesis; counted, never timed)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects
from agentcli.wire.dialects import _opaque

MARKERS = sorted({m for n in dialects.names() for m in dialects.declared(n).markers if m})
PIECES = [*MARKERS[:: max(1, len(MARKERS) // 40)], "</tool_call>", "<parameter=a>", "</parameter>", "<think>",
          "[TOOL_CALLS]", "]<]minimax[>[", '<parameter name="k">', "<function=f>", "</function>", "<", "[", "]",
          "{", "}", "(", ")", '"', "'", '\\"', "\\", "\n", " ", "a", ": ", "lorem ", "｜"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts)
def test_the_mask_is_the_pattern_firsts(text: str) -> None:
    rx = _opaque.markup_pattern()
    quick, full = _opaque.mask(text), _opaque.mask(text, rx)  # a pattern given: every check runs on it
    assert quick.text == full.text
    assert quick._tokens == full._tokens
    assert quick.restore(quick.text) == full.restore(full.text) == text
    if _opaque._plainly_outside_strings(text):  # answered without the pattern: nothing for the full pass to hide
        assert not _opaque._mask_strings(text, rx).changed
    if _opaque.quotes_clear(text):  # the quoted stretches hold no bracket: nothing to hide either
        assert not _opaque._mask_strings(text, rx).changed


def _masked_without_compiling(text: str) -> bool:
    _opaque.markup_pattern.cache_clear()
    try:
        _opaque.mask(text)
        return _opaque.markup_pattern.cache_info().currsize == 0
    finally:
        _opaque.markup_pattern.cache_clear()


def test_a_reply_with_its_markup_outside_strings_compiles_no_pattern() -> None:
    assert _masked_without_compiling('<tool_call>{"name": "f", "arguments": {"a": ["x", "y"]}}</tool_call>')
    assert _masked_without_compiling("[TOOL_CALLS][{\"name\": \"f\", \"arguments\": {}}]")


def test_markup_that_may_stand_in_a_string_needs_the_pattern() -> None:
    assert not _masked_without_compiling('{"a": "x </tool_call> y"}')
    assert not _masked_without_compiling("<parameter=a>x <tool_call> y</parameter>")
    # past the places read one by one, a bracket between the quotes
    assert not _masked_without_compiling('["' + "[" * (_opaque._PLACES_WALKED + 1) + '"\'')
    assert not _masked_without_compiling("[I'll ]\n(f('</TOOLCALL>'))")  # a Python string after an apostrophe


def test_a_parameter_value_clear_of_brackets_needs_no_pattern() -> None:
    """An XML parameter's value is hidden whatever its quotes, when it holds markup: one holding no
    character a token opens with holds none (a 100 KB value: some memchr, not the strings' reading)."""
    assert _masked_without_compiling("<parameter=a>x</parameter>")
    assert _masked_without_compiling('<invoke name="f">\n<parameter name="a">' + "x y " * 30_000 + "</parameter>")


def test_quoted_stretches_clear_of_brackets_need_no_pattern() -> None:
    """However its quotes pair up (apostrophes, a Python call's arguments), a reply with no bracket
    between its first and last quote of a kind (past the first bracket a string of it needs) hides
    nothing."""
    assert _masked_without_compiling("<|tool_call_start|>[f(a='x y', b='it''s')]<|tool_call_end|>")
    assert _masked_without_compiling("<think>I'll help.</think>[{\"name\": \"f\", \"arguments\": {\"a\": \"b\"}}]")
    assert _masked_without_compiling('<steptml:invoke name="f"><steptml:parameter name="a">x</steptml:parameter>')


def _outside_strings_per_place(text: str) -> bool:
    """The plain reading of _brackets_outside_strings: each place's line counted from its start."""
    places = [i for i, c in enumerate(text) if c in _opaque._FIRSTS]
    if len(places) > _opaque._PLACES_CHECKED:
        return False
    for i in places:
        line = text.rfind("\n", 0, i) + 1
        if '\\"' in text[line:i] or "\\'" in text[line:i]:
            return False  # an escaped quote: the token walk decides whether it opens a string
        if ('"' in text[line:i] and "'" in text[line:i]) or text.startswith('<|"|>', i):
            return False  # one kind of quote may stand in the other's string; a quote that is markup
        dq = text.count('"', line, i) % 2
        # any single quote, not only an odd count: it may be an apostrophe, after which the line's
        # quotes pair otherwise, so with a parenthesis opened before it the token walk decides
        sq = text.count("'", line, i)
        bracket, paren = _opaque._first(text, "{[("), _opaque._first(text, "(")
        if (dq and 0 <= bracket < i) or (sq and 0 <= paren < i):
            return False
    return True


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts)
def test_the_bracket_walk_counts_each_line_once_as_the_per_place_reading(text: str) -> None:
    assert _opaque._brackets_outside_strings(text) == _outside_strings_per_place(text)
