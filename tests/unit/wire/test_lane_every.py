"""Every dialect that reads a lane (pipeline._lane_of: its own lane, or a parse that reads in place,
Dialect.reads_in_place) gives through it the response the full path gives, on its whole fixture
corpus and on generated variants of it: a string argument replaced by any family's markup (as the
form writes it), prose of any markup around the reply, the reply cut anywhere, any subset of its
tools offered, the dialect forced, preferred or left to the auto chain. No hand-written case per
dialect: a dialect that gains a lane is checked here at once.
"""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import dialects, pipeline
from agentcli.wire.types import NativeParse, ParseContext
from tests.unit.wire.dialects.dialect_corpus import load_fixture
from tests.unit.wire.dialects.test_strings_every_dialect import (
    MARKUP,
    TEXT_PIECES,
    _bracketed,
    _written,
    carried,
    grown,
    own_markup,
)
from tests.unit.wire.test_lane import _full

LANES = tuple(n for n in dialects.names() if pipeline._lane_of(n) is not None)
ALL = tuple(dialects.names())


@functools.cache
def _cases(name: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(reply, the names it calls) of each fixture case of `name`."""
    out = []
    for case in (load_fixture(name) or {}).get("cases", ()):
        names = tuple(c.get("name") for c in case.get("calls") or () if isinstance(c.get("name"), str))
        out.append((case["text"], names))
    return tuple(out)


def _tools(names: tuple[str, ...]) -> list[Tool]:
    return [Tool(n, "", {"type": "object", "properties": {}}) for n in dict.fromkeys(names)]


_plain = st.text(alphabet="abc XYZ019.,:;!?\n\t-_名", max_size=12)
_prose = st.one_of(_plain, _plain, st.lists(st.one_of(_plain, st.sampled_from(MARKUP + TEXT_PIECES)), max_size=3).map("".join))


@st.composite
def _reply(draw: st.DrawFn, among: tuple[str, ...] = LANES) -> tuple[str, str, tuple[str, ...]]:
    name = draw(st.sampled_from(among))
    cases = _cases(name)
    text, names = draw(st.sampled_from(cases)) if cases else ("", ())
    g = grown(name)
    if g is not None and draw(st.booleans()):  # the grown case, its string argument any markup
        text, call, _, written, how = g
        names = (call["name"],)
        pieces = carried(name, how == "raw" or not _bracketed(text, written))
        value = "".join(draw(st.lists(st.sampled_from(pieces + TEXT_PIECES), min_size=1, max_size=3)))
        if how == "raw" and own_markup(name) and draw(st.booleans()):  # its own markup quoted in JSON in a raw value: the
            # mask hides it (a string within a bracket), where a reading of the raw text meets it
            value = json.dumps({"k": draw(st.sampled_from(sorted(own_markup(name))))})
        text = _written(text, written, how, f"a{value}z" if how == "raw" else value)
    if draw(st.integers(0, 3)) == 0:
        text = draw(_prose) + text
    if draw(st.integers(0, 3)) == 0:
        text += draw(_prose)
    if draw(st.integers(0, 7)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return name, text, names


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_every_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    chain = data.draw(st.sampled_from(((), (), tuple(dialects.DIALECTS))))
    # under auto a lane may read another family's reply (Hunyuan's reads Jamba's `<tool_calls>`):
    # any family's reply is drawn there
    name, text, names = data.draw(_reply(ALL if chain and data.draw(st.booleans()) else LANES))
    chain = chain or (name,)
    offered = data.draw(st.sampled_from(((), names, names[:1], ("other",))))
    ctx = ParseContext.of(_tools(offered)) if offered else ParseContext()
    prefer = data.draw(st.sampled_from(((), (name,), (data.draw(st.sampled_from(ALL)),))))
    if prefer:
        ctx = ParseContext(tools=ctx.tools, prefer=prefer)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch), (name, text)


@pytest.mark.parametrize("name", LANES)
def test_the_corpus_reads_the_same_through_the_lane(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each fixture case, forced and under auto, with its tools offered and with none."""
    for text, names in _cases(name):
        for ctx in (ParseContext.of(_tools(names)) if names else ParseContext(), ParseContext()):
            for chain in ((name,), tuple(dialects.DIALECTS)):
                assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch), text


@pytest.mark.parametrize(("name", "text"), [
    ("xlam", '<think>I\'ll help you with that.</think>[{"name": "f", "arguments": {"a": "b"}}]'),
    ("hermes", '\n<think>\nThe user wants the weather.\n</think>\n\n<tool_call>\n{"name": "f", "arguments": {}}\n</tool_call>'),
])
def test_a_reply_opening_with_its_reasoning_takes_the_lane(name: str, text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The usual reply of a reasoning model: the block cut out as the full path's split cuts it,
    the calls after it read by the lane, the reasoning kept."""
    ctx = ParseContext.of(_tools(("f",)))
    got = pipeline._lane(NativeParse(text=text), ctx, pipeline._chain((), (name,)))
    assert got is not None and got[2]
    resp = pipeline.finalize(NativeParse(text=text, thinking="earlier"), ctx, (name,))
    full = _full_native(NativeParse(text=text, thinking="earlier"), ctx, (name,), monkeypatch)
    assert resp == full and resp.thinking.startswith("earlier\n\n") and resp.tool_calls
    # a string holding a bracket within a bracket, in the block: the mask may hide something there
    # (it may pair with a quote after the block), so the full path reads the reply
    odd = text.replace("</think>", '{"a": "[x]"}</think>', 1)
    assert pipeline._lane(NativeParse(text=odd), ctx, pipeline._chain((), (name,))) is None


def _full_native(native: NativeParse, ctx: ParseContext, chain: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_lane", lambda *a: None)
        return pipeline.finalize(native, ctx, chain)


def _opening_owned(name: str) -> str | None:
    """The first corpus reply of `name` that opens with a tag it owns and that its lane reads whole."""
    owned = tuple(o for o in dialects.declared(name).owns if o.startswith("<"))
    for text, names in _cases(name):
        ctx = ParseContext.of(_tools(names)) if names else ParseContext()
        got = pipeline._lane(NativeParse(text=text), ctx, (name,)) if owned and text.startswith(owned) else None
        if got is not None and not got[1]:
            return text
    return None


OPENING_OWNED = tuple(n for n in LANES if _opening_owned(n) is not None)


@pytest.mark.parametrize("name", OPENING_OWNED)
def test_under_auto_a_reply_opening_with_an_owned_tag_takes_its_owners_lane(name: str) -> None:
    """The owners read first: a reply that is nothing but the section its owned tag opens is read
    by that owner's lane under the auto chain too (LFM2 at 100 KB: the chain's questions of every
    character cost ten times its lane)."""
    text = _opening_owned(name)
    auto = pipeline._chain((), tuple(dialects.DIALECTS))
    # the first owner of the opening tag in chain order (DeepSeek V3 before V3.1: the same tokens)
    first = next(n for n in auto if any(text.startswith(o) for o in dialects.declared(n).owns if o.startswith("<")))
    got = pipeline._lane(NativeParse(text=text), ParseContext(), auto)
    assert got is not None and got[0][0].dialect == first


def test_owned_markup_the_mask_leaves_standing_sends_the_reply_the_full_way() -> None:
    """`**Tool Call:**` (RWKV's, no bracket) in a string is no token the mask hides: its owner takes
    its turn first in the full path, so the lane leaves such a reply to it."""
    s, e = "<|tool_call_start|>", "<|tool_call_end|>"
    auto = tuple(dialects.DIALECTS)
    assert pipeline._lane(NativeParse(text=f"{s}[f(a='x')]{e}"), ParseContext(), auto) is not None
    assert pipeline._lane(NativeParse(text=f"{s}[f(a='**Tool Call:** x')]{e}"), ParseContext(), auto) is None


def test_an_owner_lane_opening_the_reply_still_leaves_its_words_to_the_others() -> None:
    """Kimi K3 owns `<|open|>`: a reply opening with its response section and then its calls is
    read by its lane under auto too (its owner lane, Dialect.lane_tokens), the words it leaves read
    by the others, not turned down as a reply that is more than its section."""
    text = _cases("kimi_k3")[0][0]
    assert pipeline._lane(NativeParse(text=text), ParseContext(), (("kimi_k3",))) is not None
    got = pipeline._lane(NativeParse(text=text), ParseContext(), tuple(dialects.DIALECTS))
    assert got is not None and got[0][0].dialect == "kimi_k3"
