"""The DeepSeek V3 / V3.1 reader's walk for the usual reply shape (one section of closed calls, read
from one `▁` to the next) answers as the full path it skips (hypothesis): replies holding the tokens
inside argument strings, broken JSON, several calls and sections, cut-off ends, ASCII-bar tokens,
text and stray `▁` around them. The walk must also be the one taken for the usual shape."""

from __future__ import annotations

import json
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import deepseek as ds

_TOKENS = [ds.CALLS_BEGIN, ds.CALLS_END, ds.CALL_BEGIN, ds.CALL_END, ds.SEP, ds.EOS, *ds.OUTPUT_TOKENS]
_NAMES = st.sampled_from(["get_weather", "f", "", "a<b", "two words", "x\ny", " padded "])
_STRINGS = st.one_of(st.text(max_size=6), st.sampled_from([*_TOKENS, "▁", "｜", "```", "\n", "<｜tool▁"]))
_ARGS = st.one_of(
    st.dictionaries(st.sampled_from(["q", "city", "n"]), st.one_of(st.integers(), _STRINGS), max_size=3).map(
        lambda d: json.dumps(d, ensure_ascii=False)),
    st.sampled_from(['{"a": ', "not json", "", "{}", '{"q": "a▁b"}', "[1, 2]"]),
)


@st.composite
def _call(draw: st.DrawFn) -> str:
    name, args = draw(_NAMES), draw(_ARGS)
    layout = draw(st.sampled_from(["v3", "v31", "nosep", "twosep"]))
    if layout == "v3":
        fence = draw(st.sampled_from(["```json\n{}\n```", "{}", "```\n{}\n```", "```JSON\n{}"]))
        body = f"function{ds.SEP}{name}\n" + fence.replace("{}", args, 1)
    elif layout == "v31":
        body = f"{name}{ds.SEP}{args}"
    elif layout == "nosep":
        body = f"{name}{args}"
    else:
        body = f"{name}{ds.SEP}{args}{ds.SEP}"
    end = draw(st.sampled_from([ds.CALL_END, ds.CALL_END, ds.CALL_END, ""]))
    return ds.CALL_BEGIN + body + end


# A second section spelled with ASCII bars: the full path respells it and reads it.
_ASCII_SECTION = "<|tool▁calls▁begin|><|tool▁call▁begin|>g<|tool▁sep|>{}<|tool▁call▁end|><|tool▁calls▁end|>"
_GAP = st.sampled_from(["", "", " ", "\n", "text", "▁", ds.EOS, ds.SEP])


@st.composite
def _reply(draw: st.DrawFn) -> str:
    sections = []
    for _ in range(draw(st.integers(1, 2))):
        calls = draw(st.lists(_call(), max_size=3))
        inner = "".join(draw(_GAP) + c for c in calls) + draw(_GAP)
        close = draw(st.sampled_from([ds.CALLS_END, ds.CALLS_END, ds.CALLS_END, ""]))
        sections.append(ds.CALLS_BEGIN + inner + close)
    before = draw(st.sampled_from(["", "", "Sure.\n", "a▁b ", ds.EOS, ds.OUTPUT_TOKENS[0] + "x"]))
    after = draw(st.sampled_from(["", "", "\n", ds.EOS, " " + ds.EOS + "\n", "done", ds.CALL_BEGIN + "f" + ds.SEP + "{}",
                                  ds.OUTPUT_TOKENS[2] + "r" + ds.OUTPUT_TOKENS[3], "a▁b", _ASCII_SECTION]))
    text = before + draw(_GAP).join(sections) + after
    if draw(st.booleans()) and draw(st.booleans()):
        text = text.replace("｜tool▁", "|tool▁").replace("▁begin｜", "▁begin|").replace("▁end｜", "▁end|")
    return text


def _full(dialect: ds._DeepSeekTokens, text: str) -> ds.ParseResult:
    with mock.patch.object(ds, "_usual", lambda *a: None):
        return dialect.parse(text)


def _same(a: ds.ParseResult, b: ds.ParseResult) -> None:
    assert a[1] == b[1]
    assert [(c.name, c.arguments, c.raw, c.error, c.dialect) for c in a[0]] == [
        (c.name, c.arguments, c.raw, c.error, c.dialect) for c in b[0]]


@settings(max_examples=600, deadline=None)
@given(_reply(), st.sampled_from([ds.DEEPSEEK_V3, ds.DEEPSEEK_V31]))
def test_the_walk_reads_as_the_full_path(text: str, dialect: ds._DeepSeekTokens) -> None:
    _same(dialect.parse(text), _full(dialect, text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["get_weather", "run"]), _ARGS), min_size=1, max_size=4),
       st.sampled_from(["", "Sure.\n"]), st.sampled_from(["", "\n", ds.EOS]), st.integers(0, 3000))
def test_the_usual_shape_takes_the_walk(calls: list[tuple[str, str]], before: str, after: str, pad: int) -> None:
    body = "".join(f"{ds.CALL_BEGIN}function{ds.SEP}{n}\n```json\n{a}\n```{ds.CALL_END}" for n, a in calls)
    text = before + ds.CALLS_BEGIN + body + ds.CALLS_END + after + "x" * pad
    if "▁" in "".join(a for _, a in calls) or "｜" in "".join(a for _, a in calls):
        return  # an argument holding the tokens' characters may send it the full way
    got = ds._usual(text, text, "deepseek_v3")
    assert got is not None
    _same(got, _full(ds.DEEPSEEK_V3, text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["get_weather", "run"]), _ARGS), min_size=1, max_size=3),
       st.sampled_from([_ASCII_SECTION, _ASCII_SECTION.replace("|", "｜"), "<|tool▁call▁begin|>g<|tool▁sep|>{}",
                        ds.EOS + _ASCII_SECTION, ds.OUTPUT_TOKENS[0] + "<|tool▁outputs▁end|>"]))
def test_tokens_after_the_section_in_either_spelling_read_as_the_full_path(
        calls: list[tuple[str, str]], after: str) -> None:
    body = "".join(f"{ds.CALL_BEGIN}{n}{ds.SEP}{a}{ds.CALL_END}" for n, a in calls)
    text = ds.CALLS_BEGIN + body + ds.CALLS_END + after
    for dialect in (ds.DEEPSEEK_V3, ds.DEEPSEEK_V31):
        _same(dialect.parse(text), _full(dialect, text))
