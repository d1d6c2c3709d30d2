"""Kimi K3's lane (kimi_k3._lane, read by pipeline._lane): its usual reply read from the raw text
gives the response the full path (mask, reasoning split, chain) gives.

The replies are generated in K3's channel layout: prose, a response channel, a tools channel of
calls and arguments (string values raw, typed values JSON), the message's close token. Unless
usual, each part is odd now and then: drawn from every marker, tag and token the pipeline knows
(inside values and attributes too), and a reply is cut anywhere one time in eight. Wherever the
lane answers, the full path must give the same response; on the usual shape it must answer.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup, kimi_k3
from agentcli.wire.types import Candidate, NativeParse, ParseContext

K3 = "kimi_k3"
NAMES = ("python", "read_file", "f", "a.b-c")
TOKENS = (kimi_k3.SEP, kimi_k3.RESPONSE_OPEN, kimi_k3.RESPONSE_CLOSE, kimi_k3.TOOLS_OPEN, kimi_k3.TOOLS_CLOSE,
          kimi_k3.MESSAGE_CLOSE, kimi_k3.CALL_OPEN, kimi_k3.CALL_CLOSE, kimi_k3.ARG_OPEN, kimi_k3.ARG_CLOSE,
          "<|open|>", "<|close|>", "<|open|>think<|sep|>", "<|close|>think<|sep|>", "<|open|>tool", "<|clo")


def _snippets() -> list[str]:
    """Every marker, tag and token the pipeline knows, K3's own (and cut ones), and the characters
    any of them (or a string, a fence, the mask's placeholder) opens with or turns on."""
    markup = _markup.collected()
    found = {t for pair in markup.reasoning_tags for t in pair}
    found |= {s.trigger for s in markup.reasoning_splits}
    found |= set(markup.turn_end) | set(markup.turn_start) | set(markup.section_openers)
    found |= {t for pair in markup.call_wrappers for t in pair}
    found |= set(pipeline._call_markup()) | set(TOKENS)
    found |= {"```", "```json\n", "~~~", "\n```\n", "&amp;", "&quot;", '"', "'", '<|"|>', "\\", '\\"', "\ufeff",
              "\ue0fe", "\ue0ff", "\ue0fe\ue100\ue0ff", "<parameter=k>", "</parameter>", "[THINK]x[/THINK]"}
    found |= set("'\"\\[]{}()|`~<>｜▁◁▷\n\t ")
    return sorted(found)


def _steering() -> list[str]:
    """The markup that makes the pipeline's general steps act on what it stands in: reasoning tags
    and splits (a lone close tag makes what stands before it reasoning), turn and section tokens,
    K3's own tokens, fences, quotes and brackets."""
    markup = _markup.collected()
    found = {t for pair in markup.reasoning_tags for t in pair} | {s.trigger for s in markup.reasoning_splits}
    found |= set(markup.turn_end) | set(markup.turn_start) | set(markup.section_openers) | set(TOKENS)
    found |= {"```", "```\n", "\n```\n", "~~~\n", '"', "'", "[", "]", "<", '("', "'<think>'", '"</think>"'}
    return sorted(found)


SNIPPETS = _snippets()
STEERING = _steering()
BARE = sorted({s for s in (*SNIPPETS, *STEERING) if "<" not in s})  # what a value may hold past its `<` check
_plain = st.text(alphabet="abc XYZ019.,:;!?\n\t-_名", max_size=12)  # prose: what the pipeline takes as plain
_prose = st.lists(_plain, max_size=3).map("".join)
# A string value in the usual reply: code and words, parentheses, braces, pipes, escapes and all
# (no `<`, bracket or quote).
_raw = st.text(alphabet="abc XYZ019.,:;!?\n\t-_名(){}|&>=+*/\\%#$@^", max_size=40)
_json_text = st.text(alphabet="abc XYZ019.,:;\n-_名(){}|&>'\"\\/", max_size=10)  # no `<` or bracket
_usual_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _json_text,
              st.floats(allow_nan=False, allow_infinity=False, width=32)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_json_text, inner, max_size=3)),
    max_leaves=8,
)
_odd_json_text = st.lists(st.one_of(st.text(max_size=6), st.sampled_from(SNIPPETS)), max_size=3).map("".join)
_odd_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _odd_json_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_odd_json_text, inner, max_size=3)),
    max_leaves=6,
)
_space = st.sampled_from(("", "", "", " ", "\n", "\n\n", " \t", "\r\n"))
_TYPES = ("string", "string", "object", "array", "number", "integer", "boolean")


def _json(draw: st.DrawFn, values: st.SearchStrategy[Any]) -> str:
    return json.dumps(draw(values), ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from(((", ", ": "), (",", ":")))),
                      indent=draw(st.sampled_from((None, None, 2))))


class _Odds:
    """Which parts of one reply are odd, and what they hold instead. Unless the reply is usual,
    each part is odd one time in six, or (half the replies) exactly one part of a kind drawn is:
    a reply the lane would read but for that part, where a guard of the lane is needed. The
    choices use a random source (seeded by hypothesis): a drawn integer leans to its least value."""

    KINDS = ("prose", "token", "gap", "name", "attrs", "key", "value", "typed", "end")

    def __init__(self, draw: st.DrawFn, usual: bool, one: str | None = None) -> None:
        self.draw, self.usual = draw, usual
        self.rnd = random.Random(draw(st.integers(0, 2**64)))  # a seed per reply: each reply its own odds
        self.one = one or (self.rnd.choice(self.KINDS) if self.rnd.random() < 0.5 else None)
        self.done = False

    def __call__(self, kind: str) -> bool:
        if self.usual:
            return False
        if self.one is None:
            return self.rnd.randrange(6) == 0
        if self.done or kind != self.one or self.rnd.random() < 0.4:
            return False
        self.done = True
        return True

    def text(self, around: st.SearchStrategy[str] = _plain) -> str:
        """Odd text: plain text with markup of any kind in it (more often the markup that steers, or
        the markup holding no `<`)."""
        rnd, draw = self.rnd, self.draw
        pieces = [draw(around)]
        for _ in range(rnd.randint(1, 3)):
            pieces.append(rnd.choice(rnd.choice((STEERING, STEERING, SNIPPETS, BARE, BARE))))
            pieces.append(draw(around))
        return "".join(pieces)


@st.composite
def _argument(draw: st.DrawFn, odd: _Odds) -> str:
    """One argument token: its key and type, and its value (raw text for a string, else JSON)."""
    kind = draw(st.sampled_from(_TYPES))
    key = draw(st.sampled_from(("code", "path", "q", "opts", ""))) if not odd("key") else odd.text()
    attrs = f' key="{key}" type="{kind}"'
    if odd("attrs"):
        attrs = odd.rnd.choice((f' key="{key}"', f" key='{key}' type='{kind}'", f' type="{kind}" key="{key}"',
                                f'  key="{key}"\ttype="{kind}" ', f'key="{key}"', "", f' key="{key}" type="{odd.text()}"',
                                f' key="{key}" type="{kind}" x="{odd.text()}"'))
    if kind == "string":
        value = odd.text(_raw) if odd("value") else draw(_raw)
    elif odd("typed"):
        value = odd.rnd.choice((odd.text(), "{not json", '"s"', '"<think>"', "[1, 2", "1 2", "{}x", "", " ", "nul",
                                "1" * 5000, '["[THINK]"]', '{"a": "x]"}', '{"a": "</think>"}', "'a'"))
        if odd.rnd.random() < 0.5:
            value = _json(draw, _odd_values)
    else:
        value = _json(draw, st.dictionaries(_json_text, _usual_values, max_size=3) if kind == "object" else
                      st.lists(_usual_values, max_size=3) if kind == "array" else st.one_of(
                          st.none(), st.booleans(), st.integers(-10**9, 10**9),
                          st.floats(allow_nan=False, allow_infinity=False)))
        value = draw(_space) + value + draw(_space)
    return f"{kimi_k3.ARG_OPEN}{attrs}{kimi_k3.SEP}{value}{kimi_k3.ARG_CLOSE}"


@st.composite
def _call(draw: st.DrawFn, odd: _Odds, index: int) -> str:
    name = draw(st.sampled_from(NAMES)) if not odd("name") else odd.rnd.choice((odd.text(), "", "a&amp;b", " f"))
    attrs = f' tool="{name}" index="{index}"'
    if odd("attrs"):
        attrs = odd.rnd.choice((f' tool="{name}"', f' index="{index}" tool="{name}"', f" tool='{name}'",
                                f'tool="{name}"', f' tool="{name}" index={index}', "", f' tool="{name}" x="{odd.text()}"'))
    args = [draw(_argument(odd)) for _ in range(draw(st.integers(0, 3)))]
    gaps = [odd.text(_space) if odd("gap") else draw(_space) for _ in range(len(args) + 1)]
    body = gaps[0] + "".join(a + g for a, g in zip(args, gaps[1:], strict=True))
    end = kimi_k3.CALL_CLOSE if not odd("end") else odd.rnd.choice(
        ("", kimi_k3.CALL_CLOSE * 2, "<|close|>call", kimi_k3.CALL_CLOSE.replace("call", "cull")))
    return f"{kimi_k3.CALL_OPEN}{attrs}{kimi_k3.SEP}{body}{end}"


@st.composite
def _reply(draw: st.DrawFn, usual: bool, one: str | None = None) -> str:
    """A reply in K3's layout; unless `usual`, parts are odd (see _Odds: the prose around and in
    the response channel, a channel token, each token's attributes, each name, key and value, each
    gap between tokens; `one`: only one part, of that kind) and one reply in eight is cut anywhere."""
    odd = _Odds(draw, usual, one)

    def prose() -> str:
        return odd.text() if odd("prose") else draw(_prose)

    def token(tok: str) -> str:
        return tok if not odd("token") else odd.rnd.choice(("", tok + tok, odd.text(), tok[:-1]))

    calls = [draw(_call(odd, i + 1)) for i in range(draw(st.integers(1, 3)))]
    gaps = [odd.text(_space) if odd("gap") else draw(_space) for _ in range(len(calls) + 1)]
    tools = gaps[0] + "".join(c + g for c, g in zip(calls, gaps[1:], strict=True))
    head = prose()
    if draw(st.booleans()):  # the reply's words in the response channel
        head += token(kimi_k3.RESPONSE_OPEN) + prose() + token(kimi_k3.RESPONSE_CLOSE) + prose()
    tail = prose()
    if draw(st.booleans()):
        tail += token(kimi_k3.MESSAGE_CLOSE) + prose()
    text = f"{head}{token(kimi_k3.TOOLS_OPEN)}{tools}{token(kimi_k3.TOOLS_CLOSE)}{tail}"
    if not usual and odd.rnd.randrange(8) == 0:
        text = text[: odd.rnd.randrange(len(text) + 1)]  # cut anywhere
    return text


def _ctx(draw: st.DrawFn, some: bool = True) -> ParseContext:
    offered = draw(st.sampled_from(((), NAMES, NAMES[:2]) if some else ((), NAMES)))
    tools = [Tool(name=n, description="", parameters={"type": "object", "properties": {
        "code": {"type": "string"}, "opts": {"type": "object"}, "q": {"type": "integer"}}}) for n in offered]
    ctx = ParseContext.of(tools) if tools else ParseContext()
    prefer = draw(st.sampled_from(((), (), (K3,), ("hermes",)) if some else ((), (K3,))))
    return ParseContext(tools=ctx.tools, prefer=prefer) if prefer else ctx


def _chain(draw: st.DrawFn) -> tuple[str, ...]:
    """K3 forced, every dialect (auto), or a few."""
    chain = draw(st.sampled_from(((K3,), (K3,), (K3,), None, ("hermes", K3), (K3, "deepseek_v3", "json_block"))))
    return tuple(pipeline.dialects.DIALECTS) if chain is None else chain


def _lane(text: str, ctx: ParseContext, parsers: tuple[str, ...]) -> tuple[list[Candidate], str] | None:
    return pipeline._lane(NativeParse(text=text), ctx, pipeline._chain(tuple(ctx.prefer), parsers))


def _full(text: str, ctx: ParseContext, chain: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> object:
    """The response with no lane at all: neither the pipeline's nor the parse's own (see
    test_the_parse_reads_the_usual_reply_as_before)."""
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_lane", lambda *a: None)
        m.setattr(kimi_k3, "_lane", lambda *a: None)
        return pipeline.finalize(NativeParse(text=text), ctx, chain)


_SETTINGS = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(data=st.data())
def test_the_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    text = data.draw(_reply(usual=False))
    ctx, chain = _ctx(data.draw), _chain(data.draw)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@pytest.mark.parametrize("kind", _Odds.KINDS)
@settings(_SETTINGS, max_examples=120)
@given(data=st.data())
def test_one_odd_part_answers_as_the_full_path(kind: str, data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """A usual reply but for one part of `kind`, forced (where the lane answers most): each of the
    lane's guards stands between one of these and a wrong answer."""
    text = data.draw(_reply(usual=False, one=kind))
    ctx = _ctx(data.draw, some=False)
    assert pipeline.finalize(NativeParse(text=text), ctx, (K3,)) == _full(text, ctx, (K3,), monkeypatch)


_PLACES = ("value", "object", "array", "bare", "name", "call attribute", "key", "type", "attribute", "prose",
           "response")


# What turns a value or an attribute into markup most simply: a quote (with a bracket open before
# it, a string through the next tokens to the next quote), a bracket, a reasoning tag of each kind.
_SHORT = ('"', "'", "[", "]", '("', "{'", '{"', "('", "[THINK]", "[/THINK]", "</think>", "<think>", "◁/think▷",
          "```", "\ue0fe")


@settings(_SETTINGS, max_examples=1000)
@given(where=st.sampled_from(_PLACES), pre=_raw, post=_raw, data=st.data(),
       snippet=st.one_of(st.sampled_from(_SHORT), st.sampled_from(sorted({*BARE, *STEERING}))))
def test_markup_in_one_place_answers_as_the_full_path(where: str, snippet: str, pre: str, post: str,
                                                      data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """A forced usual reply with one piece of markup (any the pipeline knows, or a character one
    opens with) written in one place: a string value, a string in a typed value, a name, a key, a
    type, another attribute, the prose. Where the lane answers, as the full path."""
    odd = pre + snippet + post
    parts = {p: "" for p in _PLACES}
    parts[where] = odd
    value = {"object": json.dumps({"k": odd}), "array": json.dumps([1, odd]), "bare": json.dumps(odd), "value": odd}
    kind = "object" if where in ("object", "array", "bare") else "string"
    attrs = ' key="code{key}" type="{kind}{type}" x="{attribute}"'.format(kind=kind, **parts)
    text = (f"{parts['prose']}{kimi_k3.RESPONSE_OPEN}Sure{parts['response']}{kimi_k3.RESPONSE_CLOSE}{kimi_k3.TOOLS_OPEN}"
            f'{kimi_k3.CALL_OPEN} tool="python{parts["name"]}" index="1" x="{parts["call attribute"]}"{kimi_k3.SEP}'
            f"{kimi_k3.ARG_OPEN}{attrs}{kimi_k3.SEP}{value.get(where, pre)}{kimi_k3.ARG_CLOSE}"
            f'{kimi_k3.ARG_OPEN} key="n" type="integer"{kimi_k3.SEP}1{kimi_k3.ARG_CLOSE}'  # a quote after the value
            f"{kimi_k3.CALL_CLOSE}{kimi_k3.TOOLS_CLOSE}")
    ctx = _ctx(data.draw, some=False)
    assert pipeline.finalize(NativeParse(text=text), ctx, (K3,)) == _full(text, ctx, (K3,), monkeypatch)


@_SETTINGS
@given(data=st.data())
def test_the_usual_reply_takes_the_lane(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    text = data.draw(_reply(usual=True))
    ctx = _ctx(data.draw, some=False)
    assert _lane(text, ctx, (K3,)) is not None
    chain = _chain(data.draw)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@_SETTINGS
@given(data=st.data())
def test_the_parse_reads_the_usual_reply_as_before(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """The parse reads the usual reply by the lane's walk too (the chain hands it the text the mask
    and the reasoning split leave): on any text, the walk answers only what the token searches find."""
    text = data.draw(_reply(usual=data.draw(st.booleans())))
    lane = kimi_k3.KIMI_K3.lane(text)
    with monkeypatch.context() as m:
        m.setattr(kimi_k3, "_lane", lambda *a: None)
        searched = kimi_k3.KIMI_K3.parse(text)
    assert lane is None or lane == searched


def _bench_replies() -> list[Any]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
    import parse_sizes

    (grown,) = parse_sizes.candidates(K3, parse_sizes.SIZES, most=1)
    return [(s, parse_sizes.context(s)) for s in grown]


def test_the_benchmark_replies_take_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bench's 1 KB, 10 KB and 100 KB replies (a response channel, a long string of code, an
    object) are read by the lane, and read as the full path reads them."""
    for s, ctx in _bench_replies():
        got = _lane(s.text, ctx, (K3,))
        assert got is not None and got[0][0].arguments == s.arguments, s.size
        assert pipeline.finalize(NativeParse(text=s.text), ctx, (K3,)) == _full(s.text, ctx, (K3,), monkeypatch)


def test_the_lane_asks_no_general_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: a forced usual reply is read without the mask, the reasoning split or the chain."""
    asked: list[str] = []
    for name in ("mask", "split_thinking", "_run_dialects"):
        real = getattr(pipeline, name)
        monkeypatch.setattr(pipeline, name, lambda *a, _n=name, _r=real, **k: asked.append(_n) or _r(*a, **k))
    s, ctx = _bench_replies()[1]
    resp = pipeline.finalize(NativeParse(text=s.text), ctx, (K3,))
    assert asked == []
    assert resp.tool_calls[0].arguments == s.arguments and resp.text == "Let me run it."
    monkeypatch.setattr(pipeline, "_lane", lambda *a: None)
    assert pipeline.finalize(NativeParse(text=s.text), ctx, (K3,)) == resp
    assert asked  # the full path asks them: the count above can fail


def _call_text(name: str, args: list[tuple[str, str, str]]) -> str:
    body = "".join(f'{kimi_k3.ARG_OPEN} key="{k}" type="{t}"{kimi_k3.SEP}{v}{kimi_k3.ARG_CLOSE}' for k, t, v in args)
    return f'{kimi_k3.CALL_OPEN} tool="{name}" index="1"{kimi_k3.SEP}{body}{kimi_k3.CALL_CLOSE}'


@pytest.mark.parametrize(("calls", "taken"), [
    (1, True), (60, True), (200, True),  # many tokens: the full path reads them in widening windows
    (300, False),  # past MAX_CALLS: the full path keeps the first ones, the lane leaves it to it
])
def test_many_tokens_read_as_the_full_path(calls: int, taken: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    args = [(f"k{i}", "string" if i % 2 else "integer", str(i)) for i in range(700 // calls + 2)]
    text = "Calls." + kimi_k3.TOOLS_OPEN + "".join(_call_text("f", args) for _ in range(calls)) + kimi_k3.TOOLS_CLOSE
    ctx = ParseContext()
    assert (_lane(text, ctx, (K3,)) is not None) == taken
    assert pipeline.finalize(NativeParse(text=text), ctx, (K3,)) == _full(text, ctx, (K3,), monkeypatch)
    walked = kimi_k3.KIMI_K3.parse(text)  # the parse's own walk gives way to its searches past MAX_CALLS too
    monkeypatch.setattr(kimi_k3, "_lane", lambda *a: None)
    assert walked == kimi_k3.KIMI_K3.parse(text)


@pytest.mark.parametrize("value", [
    '{"a": 1}', "[1, [2, {}]]", " 42 ", "true", "null", "-1.5e3",
    "1" * 5000,  # past int's digit limit: json.loads' ValueError, the value kept as text
    '[' * 120 + ']' * 120,  # deep: decoded or not as json.loads decodes it
    '"a string"', '{"a": 1} x', "{'a': 1}", '{"a": "[THINK]"}', '{"[/THINK]": 1}', '["\\u005b"]', "\ufeff1", "",
])
def test_typed_values_read_as_the_full_path(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    text = kimi_k3.TOOLS_OPEN + _call_text("f", [("v", "object", value)]) + kimi_k3.TOOLS_CLOSE
    for placeholder in ("", "\ue0fe"):  # the mask leaves a reply holding its placeholder unmasked
        t = placeholder + text
        assert pipeline.finalize(NativeParse(text=t), ParseContext(), (K3,)) == _full(t, ParseContext(), (K3,), monkeypatch)
