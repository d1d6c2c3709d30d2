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
          "[TOOL_CALLS]", "]<]minimax[>[", "<", "[", "]", "{", "}", "(", ")", '"', "'", '\\"', "\\", "\n", " ",
          "a", ": ", "lorem ", "｜"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts)
def test_the_mask_is_the_pattern_firsts(text: str) -> None:
    rx = _opaque.markup_pattern()
    quick, full = _opaque.mask(text), _opaque.mask(text, rx)  # a pattern given: every check runs on it
    assert quick.text == full.text
    assert quick._tokens == full._tokens
    assert quick.restore(quick.text) == full.restore(full.text) == text
    if _opaque._plainly_unquoted(text):
        assert not _opaque._any_quoted(text, rx)


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
    assert not _masked_without_compiling("<parameter=a>x</parameter>")
    assert not _masked_without_compiling("[" * 9 + '"')  # past the tokens looked at one by one
