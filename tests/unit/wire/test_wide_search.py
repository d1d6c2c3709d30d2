"""Token searches over a long reply go by the places of the token's rare character (issue 29).

A plain `text.find(TOKEN)` walks every character it passes: past `_seen.TWO_WAY` characters CPython
searches with its two-way algorithm, a step or a few a character, and a reply stored two or four
bytes a character (one CJK character or emoji is enough) reads a wide unit a step. Apertus, Harmony,
K2-Horizon, Kimi K2, MiniCPM5, MiniMax M1, Seed-OSS and tool-named XML look for their
tokens on such a reply with `_seen.finder` / `find_far` (a memchr for the token's rare character,
the token checked where it stands; below TWO_WAY the plain search is kept, as a str method call
costs about as much as a plain scan of several KB) and answer a few whole-reply questions at the
place that decides them (the section tokens around Kimi calls, a channel naming `analysis`).

Two claims, each over generated replies in 1-, 2- and 4-byte storage:
- every dialect reads what the same dialect reads with the old plain searches put back (the same
  calls, raw text, errors and visible text), markers standing also inside string values;
- on a long wide reply, no search of a multi-character token made by the dialect's own code (or by
  `_seen` / `_scan` for it) walks the reply: the characters those searches pass are counted.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import (
    _seen,
    apertus,
    harmony,
    k2_horizon,
    kimi_k2,
    minicpm5,
    minimax,
    seed_oss,
    tool_xml,
)


def _plain_finder(text: str, below: int = 0) -> Callable[..., int]:
    return text.find


def _plain_locate(text: str, needle: str, start: int = 0, end: int | None = None) -> int:
    return text.find(needle, start, len(text) if end is None else end)


def _old_section_tokens(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Kimi K2's section tokens as searched before: the last begin before the calls, the first end after."""
    out: list[tuple[int, int]] = []
    first, last = spans[0][0], spans[-1][1]
    for tok in kimi_k2.SECTION_BEGINS:
        i = text.rfind(tok, 0, first)
        if i != -1 and not text[i + len(tok) : first].strip():
            out.append((i, first))
    for tok in kimi_k2.SECTION_ENDS:
        j = text.find(tok, last)
        if j != -1 and not text[last:j].strip():
            out.append((last, j + len(tok)))
    for (_, e1), (s2, _) in zip(spans, spans[1:]):
        if not text[e1:s2].strip():
            out.append((e1, s2))
    return out


_COMMON = {"finder": _plain_finder, "find_far": _plain_locate, "locate": _plain_locate}
# Per dialect module: the names that put its old plain searches back.
ORACLES: dict[Any, dict[str, Any]] = {
    apertus: {},
    harmony: {"_names_analysis": lambda text: "analysis" in text},
    k2_horizon: {},
    kimi_k2: {"_section_tokens": _old_section_tokens},
    minicpm5: {}, minimax: {}, seed_oss: {}, tool_xml: {},
}

Q = '\\"'  # a quote inside a JSON string value
PIECES: dict[Any, list[str]] = {
    apertus: ["<|tools_prefix|>", "<|tools_suffix|>", '[{"get_weather": {"city": "Paris"}}]', '[{"f": {"q": "',
              "<|tools_prefix|>[", '"}}]', ", ", "<|inner_prefix|>", "<|inner_suffix|>"],
    harmony: ["<|start|>assistant", "<|channel|>", "analysis", "commentary", "final", " to=functions.get_weather",
              " to=python", " <|constrain|>json", "<|message|>", '{"city": "Paris"}', '{"q": "<|end|>"}', "<|end|>",
              "<|call|>", "<|return|>", "  analysis", "Need weather."],
    k2_horizon: ["<ifm|tool_call>", "</ifm|tool_call>", "<ifm|tool_calls>", "</ifm|tool_calls>", "get_weather",
                 "<ifm|arg_key>city</ifm|arg_key>", "<ifm|arg_type>string</ifm|arg_type>", "<ifm|arg_value>",
                 "</ifm|arg_value>", '{"name": "f", "arguments": {"q": "</ifm|tool_call>"}}', "<ifm|think>",
                 "</ifm|think>", "<ifm|think_fast>", "</ifm|think_fast>", "Boston"],
    kimi_k2: [*kimi_k2.SECTION_BEGINS, *kimi_k2.SECTION_ENDS, kimi_k2.CALL_BEGIN, kimi_k2.CALL_END, kimi_k2.ARG_BEGIN,
              "functions.get_weather:0", "\nget_weather:1", "call_3", '{"city": "Beijing"}',
              '{"q": "<|tool_call_end|>' + Q + '"}', "`", "<|tool_call"],
}
# Whole calls and their usual neighbours, so that generated replies hold readable calls too.
WHOLE: dict[Any, list[str]] = {
    apertus: ['<|tools_prefix|>[{"get_weather": {"city": "Paris"}}]<|tools_suffix|>',
              '<|tools_prefix|>[{"f": {"q": "<|tools_suffix|>"}}, {"g": {}}]<|tools_suffix|>'],
    harmony: ['<|channel|>analysis<|message|>Need weather.<|end|>',
              '<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{"city": "Paris"}<|call|>',
              '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{"q": "<|call|>"}<|call|>',
              '<|channel|>final<|message|>Done.<|return|>', "<|channel|> analysis to=functions.f<|message|>{}<|end|>"],
    k2_horizon: ['<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Boston</ifm|arg_value>'
                 '</ifm|tool_call>', '<ifm|tool_call>{"name": "f", "arguments": {"q": "<ifm|think>"}}</ifm|tool_call>',
                 "<ifm|think>Maybe <ifm|tool_call>f</ifm|tool_call></ifm|think>"],
    kimi_k2: ['<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>'
              '{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>',
              '<|tool_call_begin|>functions.f:1<|tool_call_argument_begin|>{"q": "<|tool_calls_section_end|>"}'
              '<|tool_call_end|>', '\nfunctions.get_weather:2<|tool_call_argument_begin|>{"city": "Oslo"}',
              '\nf:3 <|tool_call_argument_begin|>{"q": 1}<|tool_call_end|>\n<|tool_call_section_end|>'],
}
PIECES.update({
    minicpm5: ['<function name="get_weather">', "<function name=", '"f">', '<param name="city">', "Paris", "</param>",
               "</function>", "<![CDATA[", "]]>", "<tool_call>", "</tool_call>", "<arguments>", "</arguments>"],
    minimax: ["<tool_calls>", "</tool_calls>", '{"name": "get_weather", "arguments": {"city": "Dallas"}}', "\n",
              "<think>", "</think>", '{"name": "f", "arguments": {"q": "</tool_calls>"}}'],
    seed_oss: ["<seed:tool_call>", "</seed:tool_call>", "<function=get_weather>", "</function>",
               "<parameter=location>", "</parameter>", "Barcelona", "<seed:think>", "</seed:think>"],
    tool_xml: ["<read_file>", "</read_file>", "<path>", "</path>", "src/main.js", "<content>", "</content>", "\n",
               "</", "<html>", "</html>"],
})
WHOLE.update({
    minicpm5: ['<function name="get_weather"><param name="city">Paris</param></function>',
               '<tool_call><function name="f"><param name="q"><![CDATA[</function>]]></param></function></tool_call>'],
    minimax: ['<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Dallas"}}\n</tool_calls>',
              "<think>Maybe <tool_calls>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_calls></think>"],
    seed_oss: ["<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona</parameter>\n</function>\n"
               "</seed:tool_call>", "<seed:think>Plan.</seed:think>"],
    tool_xml: ["\n<read_file>\n<path>src/main.js</path>\n</read_file>",
               "\n<write_to_file>\n<path>b.py</path>\n<content>\nx = '</path>'\n</content>\n</write_to_file>"],
})
SHARED = ['{"q": "', '"}', "|", "||||||||||||||||||", "<", ">", "\n", " ", "  \n", "Checking.\n", "lorem ipsum "]
FILLER = "lorem ipsum dolor sit amet "
WIDE = ["", "\u00e9", "\u4e2d", "\U0001f600"]  # 1-byte storage, 1-byte Latin-1, 2-byte, 4-byte


def _replies(module: Any) -> st.SearchStrategy[str]:
    pieces = st.lists(st.sampled_from(PIECES[module] + WHOLE[module] * 3 + SHARED), max_size=12).map("".join)

    def build(t: tuple[str, int, str, str, str, int]) -> str:
        head, n, mid, tail, wide, at = t
        text = head + FILLER * n + mid + FILLER * (n // 4) + tail  # short, and long past _seen.TWO_WAY
        at %= len(text) + 1
        return text[:at] + wide + text[at:]

    return st.tuples(pieces, st.integers(0, 3 * _seen.TWO_WAY // 2 // len(FILLER)), pieces, pieces, st.sampled_from(WIDE), st.integers(0, 1 << 20)).map(build)


def _read(module: Any, dialect: Any, text: str) -> Any:
    cands, rest = dialect.parse(text)
    got = [(c.name, json.dumps(c.arguments, sort_keys=True), c.raw, c.error, c.id) for c in cands], rest
    if module is harmony:
        return got, harmony.split_analysis(text)
    return got


DIALECTS = {apertus: apertus.APERTUS, harmony: harmony.HARMONY, k2_horizon: k2_horizon.K2_HORIZON,
            kimi_k2: kimi_k2.KIMI_K2, minicpm5: minicpm5.MINICPM5, minimax: minimax.MINIMAX,
            seed_oss: seed_oss.SEED_OSS, tool_xml: tool_xml.TOOL_XML}


@pytest.mark.parametrize("module", list(DIALECTS), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_reads_what_plain_searches_read(module: Any) -> None:
    dialect = DIALECTS[module]

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=_replies(module))
    def check(text: str) -> None:
        got = _read(module, dialect, text)
        with pytest.MonkeyPatch.context() as mp:
            for name, plain in {**_COMMON, **ORACLES[module]}.items():
                if hasattr(module, name):
                    mp.setattr(module, name, plain)
            assert _read(module, dialect, text) == got

    check()


_WATCHED = frozenset({"agentcli.wire.dialects._seen", "agentcli.wire.dialects._scan"})


class Walked(str):
    """A reply that counts the characters passed by searches of multi-character needles made from
    the watched modules (the dialect's own code, `_seen` and `_scan` on its behalf): a search passes
    every character from where it starts to the end of its hit, or to its bound when it misses.
    `count` is not watched: Kimi K2 counts its 28-character argument token in one plain pass, which
    CPython strides through for less than a memchr for its `|` costs on a four-byte reply."""

    walked = 0
    watched: frozenset[str] = _WATCHED

    def _count(self, needle: Any, start: Any, end: Any, hit: int, reverse: bool = False) -> None:
        if not isinstance(needle, str) or len(needle) < 2:
            return
        if sys._getframe(2).f_globals.get("__name__") not in type(self).watched:
            return
        lo = 0 if start is None else start if start >= 0 else max(0, len(self) + start)
        hi = len(self) if end is None else min(end, len(self)) if end >= 0 else max(0, len(self) + end)
        if hit < 0:
            passed = hi - lo
        else:
            passed = hi - hit if reverse else hit + len(needle) - lo
        type(self).walked += max(0, passed)

    def find(self, sub: Any, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        hit = str.find(self, sub, start, end)
        self._count(sub, start, end, hit)
        return hit

    def rfind(self, sub: Any, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        hit = str.rfind(self, sub, start, end)
        self._count(sub, start, end, hit, reverse=True)
        return hit

    def index(self, sub: Any, start: Any = None, end: Any = None) -> int:  # type: ignore[override]
        hit = str.find(self, sub, start, end)
        self._count(sub, start, end, hit)
        if hit < 0:
            raise ValueError("substring not found")
        return hit

    def __contains__(self, sub: Any) -> bool:  # type: ignore[override]
        hit = str.find(self, sub)
        self._count(sub, None, None, hit)
        return hit >= 0


# One call of each dialect, prose before it: the wide character stands in the prose.
CALLS: dict[Any, str] = {
    apertus: '<|tools_prefix|>[{"get_weather": {"city": "Paris%s"}}]<|tools_suffix|>',
    harmony: ('<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant to=functions.get_weather'
              '<|channel|>commentary json<|message|>{"city": "Paris%s"}<|call|>'),
    k2_horizon: ('<ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_value>Boston%s'
                 '</ifm|arg_value></ifm|tool_call>'),
    kimi_k2: ('<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>'
              '{"city": "Beijing%s"}<|tool_call_end|><|tool_calls_section_end|>'),
    minicpm5: '<function name="get_weather"><param name="city">Paris%s</param></function>',
    minimax: '<tool_calls>\n{"name": "get_weather", "arguments": {"city": "Dallas%s"}}\n</tool_calls>',
    seed_oss: ("<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona%s</parameter>\n"
               "</function>\n</seed:tool_call>"),
    tool_xml: "\n<get_weather>\n<city>Paris%s</city>\n</get_weather>",
}


@pytest.mark.parametrize("wide", ["\u4e2d", "\U0001f600"], ids=["2-byte", "4-byte"])
@pytest.mark.parametrize("size", [_seen.TWO_WAY + 10_000, 100_000])
@pytest.mark.parametrize("where", ["prose", "argument"])
@pytest.mark.parametrize("module", list(DIALECTS), ids=lambda m: m.__name__.rsplit(".", 1)[1])
def test_no_token_search_walks_a_wide_reply(module: Any, wide: str, size: int, where: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    filler = FILLER * (size // len(FILLER))
    prose, arg = (wide + filler, "") if where == "prose" else ("Checking. ", wide + filler)
    text = Walked(prose + CALLS[module] % arg)
    monkeypatch.setattr(Walked, "watched", _WATCHED | {module.__name__})
    monkeypatch.setattr(Walked, "walked", 0)
    cands, _ = DIALECTS[module].parse(text)
    assert [c.name for c in cands] == ["get_weather"]
    if module is harmony:
        assert harmony.split_analysis(text)[1] == ["Need weather."]
    assert Walked.walked < 1000, Walked.walked  # the reply is forty or a hundred thousand characters


def test_the_count_sees_a_plain_search(monkeypatch: pytest.MonkeyPatch) -> None:
    """The counting reply is not blind: with the plain searches put back, a dialect walks it."""
    text = Walked("\u4e2d" + FILLER * (_seen.TWO_WAY // len(FILLER) + 1) + CALLS[apertus] % "")
    monkeypatch.setattr(Walked, "watched", _WATCHED | {apertus.__name__})
    monkeypatch.setattr(Walked, "walked", 0)
    monkeypatch.setattr(apertus, "finder", _plain_finder)
    apertus.APERTUS.parse(text)
    assert Walked.walked > len(text)
