"""The string mask's full pass finds the strings and parameter values that hold markup in C (one
regex runs over the text and the strings that cannot hold any), hides their tokens with no Python
step a token, and restores in one pass. It must give exactly what the earlier per-token walk gave
(kept below as the oracle): the same masked text, the same tokens, the same restored values, on
replies dense in quotes, escapes, brackets, single quotes inside parentheses, every token of markup
the pipeline knows inside and outside strings and parameter values, unclosed strings, and text
stored one, two or four bytes a character (hypothesis). A reply of thousands of calls with nothing
to hide takes no Python step a string (counted with a line tracer, never timed)."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _opaque

# --- the oracle: the per-token walk the fast pass replaced, as it stood --------------------------

_TOKENS_OLD = re.compile(r'<\|"\|>|"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'?|\{|\}|\[|\]|\(|\)|\n')
_PAIRS = {"}": "{", "]": "[", ")": "("}
_PARAM_OPEN_OLD = re.compile(r'<parameter(?:=[^>\n]{1,128}| name="[^"\n]{1,128}")>')
_PARAM_STRUCTURE_OLD = re.compile(r"<parameter[ =]|</function>|</invoke>|<function=|<invoke ")
_PLACEHOLDER_OLD = re.compile(_opaque._OPEN + "([\ue100-\ue13f]+)" + _opaque._CLOSE)


def _holds_old(piece: str, rx: re.Pattern[str]) -> bool:
    return rx.search(piece) is not None


def _string_spans_old(text: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    stack: list[str] = []
    pos = 0
    while (m := _TOKENS_OLD.search(text, pos)) is not None:
        tok = m.group()
        c = tok[0]
        pos = m.end()
        if c in "{[(":
            stack.append(c)
        elif c in "}])":
            if stack and stack[-1] == _PAIRS[c]:
                stack.pop()
        elif c == "'" and not (stack and stack[-1] == "("):
            pos = m.start() + 1  # an apostrophe (no parenthesis innermost): no string, read on after it
        elif c in "\"'" and stack and len(tok) > 1 and tok[-1] == c and (c == '"' or stack[-1] == "(") and _holds_old(tok, rx):
            spans.append(m.span())
    return spans


def _param_values_old(text: str) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = 0
    for m in _PARAM_OPEN_OLD.finditer(text):
        if m.start() < pos:
            continue
        close = text.find("</parameter>", m.end())
        if close == -1:
            break
        if not _PARAM_STRUCTURE_OLD.search(text, m.end(), close):
            spans.append((m.end(), close))
        pos = m.end()
    return spans


def _placeholder_old(index: int) -> str:
    digits = []
    while True:
        index, d = divmod(index, _opaque._BASE)
        digits.append(chr(_opaque._DIGIT0 + d))
        if not index:
            break
    return _opaque._OPEN + "".join(reversed(digits)) + _opaque._CLOSE


def _mask_strings_old(text: str, rx: re.Pattern[str]) -> tuple[str, list[str]]:
    tokens: list[str] = []

    def hide(t: re.Match[str]) -> str:
        tokens.append(t.group())
        return _placeholder_old(len(tokens) - 1)

    spans = _param_values_old(text) if "<parameter" in text else []
    if '"' in text or "'" in text:
        spans = sorted(spans + _string_spans_old(text, rx))
    out: list[str] = []
    pos = 0
    for a, b in spans:
        if a < pos:
            continue
        piece = text[a:b]
        if _holds_old(piece, rx):
            out.append(text[pos:a])
            out.append(rx.sub(hide, piece))
            pos = b
    if not tokens:
        return text, []
    out.append(text[pos:])
    return "".join(out), tokens


def _restore_old(tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value

    def token(m: re.Match[str]) -> str:
        index = 0
        for ch in m.group(1):
            index = index * _opaque._BASE + ord(ch) - _opaque._DIGIT0
        return tokens[index] if index < len(tokens) else m.group()

    if isinstance(value, str):
        return _PLACEHOLDER_OLD.sub(token, value) if _opaque._OPEN in value else value
    if isinstance(value, dict):
        return {_restore_old(tokens, k): _restore_old(tokens, v) for k, v in value.items()}
    if isinstance(value, list):
        return [_restore_old(tokens, v) for v in value]
    return value


# --- the texts -------------------------------------------------------------------------------------

WORDS = list(_opaque._markup_words())  # every token of markup the pipeline knows
# near misses: a token's first two characters (the fast pass's own filter), cut tokens, brackets
NEAR = sorted({w[:2] for w in WORDS} | {w[:-1] for w in WORDS[::7]} | {"<", "[", "]", "<|", "|>", "/>", "<x", "[x", "]]"})
SYNTAX = ['"', '"', '"', "'", "'", "\\", '\\"', "\\'", "\\\\", "\\\n", "\n", "{", "}", "[", "]", "(", ")", "((", "{[",
          ": ", ", ", " ", "=", '<|"|>', "<parameter=a>", '<parameter name="k">', "</parameter>", "<parameter ",
          "<function=f>", "</function>", '<invoke name="f">', "</invoke>", '{"a": "', '", "b": ', "('", "')",
          "I'll ", "don't"]
WIDE = ["a", "lorem ", "é", "ÿ", "東京", "｜", "▁", "\U0001f600", "\ud7ff"]  # one, two and four bytes a character
PIECES = [*WORDS, *NEAR, *SYNTAX, *SYNTAX, *WIDE]

_examples = settings(max_examples=1500, deadline=None, suppress_health_check=list(HealthCheck))
texts = st.lists(st.sampled_from(PIECES), max_size=60).map("".join)
# Past 4 KB the markup search of a long string or value runs by memchr (_hits): the long kind too.
long_texts = st.tuples(texts, st.integers(1, 3), texts, texts).map(
    lambda t: t[0] + ("lorem ipsum " * (150 * t[1])).join([t[2], t[3]]))
# A call repeated (the reply of thousands of calls), each with a piece of its own.
repeated = st.tuples(texts, st.lists(texts, min_size=2, max_size=30)).map(lambda t: "".join(t[0] + x for x in t[1]))
replies = st.one_of(texts, texts, long_texts, repeated)


def _check(text: str) -> _opaque.Masked:
    rx = _opaque.markup_pattern()
    old_text, old_tokens = _mask_strings_old(text, rx)
    few = (_opaque._FEW_TOKENS, _opaque._FEW_PARAMS)
    try:  # the scanners, whatever the reply's size (a reply of a few tokens is walked by default)
        _opaque._FEW_TOKENS = _opaque._FEW_PARAMS = 0
        scanned = _opaque._mask_strings(text, rx)
    finally:
        _opaque._FEW_TOKENS, _opaque._FEW_PARAMS = few
    assert (scanned.text, scanned._tokens) == (old_text, old_tokens)
    fast = _opaque._mask_strings(text, rx)
    assert (fast.text, fast._tokens) == (old_text, old_tokens)
    if _opaque._OPEN not in text:
        quick = _opaque.mask(text)  # the quick checks first: the same answer
        assert (quick.text, quick._tokens) == (old_text, old_tokens)
    assert fast.restore(fast.text) == text
    return fast


@_examples
@given(replies)
@example('{"a": "x </tool_call> y"}')
@example('{"a": "x \\"<tool_call>\\" y"}')  # escaped quotes inside: one string
@example('{"a": "x \\<tool_call>"}')  # a token right after a backslash: in the string
@example('{"a": "x \\\n<tool_call>"}')  # a backslash before a line break ends the string
@example('("I\'ll <think>")')
@example('I\'ll check. [{"a": "</tool_call>"}]')  # an apostrophe before the call: its strings are still read
@example("f('<think>', '[TOOL_CALLS]')")
@example('I\'ll check. [{"a": "</tool_call>"}]')  # an apostrophe opens no string: the call's strings are read
@example("it's [{'a': 1}, {\"b\": \"<think>\"}]")
@example('{"name": "f", "arguments": {"a": {"\u25c1think\u25b7": null}}}')  # Kimi's tag opens with no bracket
@example("['<think>']")  # a single-quoted string hides only within parentheses
@example('[I\'ll ]\n"</TOOLCALL>"')  # the apostrophe's "string" holds the `]` that closes the list
@example('{"a": "<t", "b": "<think>"}')  # a near miss before a token
@example('(<|"|>"</tool_call>"')
@example('{"a": "<tool_call>"')  # unclosed object; closed string
@example('{"a": "<tool_call>')  # unclosed string: nothing hidden
@example('{"a": "<tool_call>\\"')  # ends in an escaped quote: read as closed
@example('[)"<think>"')  # a closer that pops nothing
@example('{]"<think>"}')  # a closer that does not match the opener: ignored
@example('<parameter=a>x <think> y</parameter>')
@example('<parameter=a>x <think> <parameter=b>y</parameter>')
@example('<parameter=a <parameter=b>x <think></parameter>')
@example('<parameter=a>"<think>"</parameter>{"k": "<think>"}')
@example('<parameter name="k"><tool_call>\n</parameter>' * 3)
@example('{"a": "東京 <think> 😀"}' + "lorem ipsum " * 400 + '{"b": "<tool_call>"}')
def test_the_fast_pass_is_the_per_token_walk(text: str) -> None:
    _check(text)



@_examples
@given(replies, st.data())
def test_restore_is_the_placeholder_sub(text: str, data: st.DataObject) -> None:
    """Any value built from the masked text (a slice, a dict, a list, a placeholder the model wrote
    itself through a JSON escape: past the last index, spelled with a leading zero, unclosed) comes
    back as the placeholder sub brought it back."""
    masked = _check(text)
    if not masked.changed:
        return
    t = masked.text
    i = data.draw(st.integers(0, len(t)))
    j = data.draw(st.integers(i, len(t)))
    n = len(masked._tokens)
    odd = data.draw(st.sampled_from([
        _placeholder_old(n), _placeholder_old(n + 70), _opaque._OPEN + chr(_opaque._DIGIT0) + _placeholder_old(0)[1:],
        _opaque._OPEN + chr(_opaque._DIGIT0) * 2 + chr(_opaque._DIGIT0 + 1) + _opaque._CLOSE, _opaque._OPEN,
        _opaque._CLOSE, _opaque._OPEN + _opaque._OPEN + chr(_opaque._DIGIT0) + _opaque._CLOSE]))
    for value in (t[i:j], t[i:j] + odd + t[:i], odd, {t[i:j]: [t[:i], odd, 3, None]}, [t[j:], {"k": t}]):
        assert masked.restore(value) == _restore_old(masked._tokens, value)


@pytest.mark.parametrize("count", [1, 63, 64, 65, 4095, 4096, 4097, 70000])
def test_placeholders_are_the_indices_written_in_base_64(count: int) -> None:
    made = _opaque._placeholders(count)
    assert len(made) == count
    for i in {0, 1, 63, 64, 65, 4095, 4096, 4097, count - 1} & set(range(count)):
        assert made[i] == _placeholder_old(i)


def test_thousands_of_hidden_tokens_are_hidden_and_restored() -> None:
    text = "{" + ", ".join(f'"k{i}": "<tool_call>{i}</tool_call>"' for i in range(3000)) + "}"
    fast = _check(text)
    assert len(fast._tokens) == 6000
    assert fast.restore({"all": [fast.text]}) == {"all": [text]}


# --- counted: no Python step a string ---------------------------------------------------------------

CALL = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius", "days": [1, 2]}}\n</tool_call>\n'


def _lines(fn: Callable[..., Any], *args: Any) -> int:
    """Lines run in the mask's module and in this file's oracle while fn(*args) runs."""
    count = 0
    files = {_opaque.__file__, __file__}

    def local(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def trace(frame: Any, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in files else None

    sys.settrace(trace)
    try:
        fn(*args)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.parametrize("calls", [2000, 8000])
def test_a_reply_of_thousands_of_calls_takes_no_step_a_string(calls: int) -> None:
    reply = CALL * calls  # some 8 strings and 8 brackets a call, nothing to hide
    rx = _opaque.markup_pattern()
    assert not _opaque.mask(reply).changed
    steps = _lines(_opaque._mask_strings, reply, rx)
    assert steps < 100, steps  # a few regex passes: no step a string, a bracket or a call
    # the counter sees a per-token walk: the oracle's takes some steps a token
    assert _lines(_string_spans_old, reply, rx) > 10 * calls


def test_the_walk_runs_only_past_a_string_that_may_hold_markup() -> None:
    """One quoted token in the last call: the brackets before it are walked (a step each), the
    strings that cannot hold markup are not."""
    rx = _opaque.markup_pattern()
    quoted = CALL * 2000 + '{"name": "f", "arguments": {"text": "a </tool_call> b"}}'
    masked = _opaque._mask_strings(quoted, rx)
    assert masked._tokens == ["</tool_call>"]
    assert _lines(_opaque._string_spans, quoted, rx) < _lines(_string_spans_old, quoted, rx) / 2


XML_CALL = ('<function_calls>\n<invoke name="write_file">\n<parameter name="path">a.txt</parameter>\n'
            '<parameter name="content">partial <b>conte\n</function_calls>\n')


def test_a_reply_of_thousands_of_parameters_takes_no_step_a_parameter() -> None:
    """Thousands of parameters, one of each call left open (its value runs into the next call:
    structure, not hidden): the parameters are read in C, none in Python."""
    reply = XML_CALL * 3000
    rx = _opaque.markup_pattern()
    assert _opaque._mask_strings(reply, rx).text == _mask_strings_old(reply, rx)[0] == reply
    assert _lines(_opaque._mask_strings, reply, rx) < 100
    assert _lines(_param_values_old, reply) > 3000  # the counter sees a step a parameter
