"""The tagged JSON frame's lane (TaggedJsonDialect.lane: Hermes' <tool_call>, LongCat's tag, the
generic <tool_use>, <function_call>, <tools>, ...) gives the response the full path gives.

The replies are generated in the frame's layout for every dialect of the table built on the frame:
prose before, between and after the tags, call objects in each shape the frame reads (a call, a
list of calls, the OpenAI item, an id, arguments as a JSON string), with string values and keys
drawn from plain text and from every marker, tag and token the pipeline knows (the frame's own
tags among them), odd parts one time in six and cuts anywhere. Wherever the lane answers, the full
path must give the same response; on the usual shape the lane must answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._tagged import TaggedJsonDialect
from agentcli.wire.types import NativeParse, ParseContext
from tests.unit.wire.test_lane import _SETTINGS, _full, _lane, _unmaskable

FRAMES = tuple(n for n in dialects.names() if isinstance(dialects.get(n), TaggedJsonDialect))
NAMES = ("get_weather", "read_file", "f", "a.b-c")
ALL = tuple(dialects.names())
# each frame's open tag -> the dialects declaring it among their markers (other forms using the tag)
SHARING = {dialects.get(f).open: tuple(n for n in ALL if dialects.get(f).open in dialects.declared(n).markers)
           for f in FRAMES}


def _snippets() -> list[str]:
    markup = _markup.collected()
    found = {t for pair in (*markup.reasoning_tags, *markup.call_wrappers) for t in pair}
    found |= {s.trigger for s in markup.reasoning_splits} | set(markup.turn_end) | set(markup.turn_start)
    found |= set(pipeline._call_markup())
    for name in ALL:  # every form's markers and owned markup (words too: `Action:` is no tag the mask hides)
        row = dialects.declared(name)
        found |= {*row.markers, *row.owns}
    for name in FRAMES:
        d = dialects.get(name)
        found |= {d.open, d.close}
    found |= {"```", "```json\n", "~~~", "\n```\n", "[]", "{}"}
    found |= set("'\"\\[]{}()|`~<>｜▁◁▷\n\t ")
    return sorted(found)


SNIPPETS = _snippets()
_plain = st.text(alphabet="abc XYZ019.,:;!?\n\t-_名", max_size=12)
_plain_prose = st.lists(_plain, max_size=3).map("".join)
_prose = st.lists(st.one_of(_plain, st.sampled_from(SNIPPETS)), min_size=1, max_size=4).map("".join)
_json_text = st.lists(st.one_of(st.text(max_size=8), st.sampled_from(SNIPPETS)), max_size=4).map("".join)
_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _json_text),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_json_text, inner, max_size=3)),
    max_leaves=8,
)
_args = st.dictionaries(st.one_of(st.sampled_from(("city", "path", "q")), _json_text), _values, max_size=4)
_space = st.sampled_from(("", "", " ", "\n", "\n\n", " \t"))


@st.composite
def _call_object(draw: st.DrawFn, names: st.SearchStrategy[str], usual: bool) -> dict[str, Any]:
    """One call in a shape the frame reads (unless `usual`, a few it reads otherwise too: arguments
    as a JSON string, none at all)."""
    name, args = draw(names), draw(_args)
    shape = draw(st.sampled_from((0, 1, 3, 5)) if usual else st.integers(0, 9))
    if shape == 0:
        return {"type": "function", "function": {"name": name, "arguments": args}}
    if shape == 1:
        return {"name": name, "arguments": args, "id": draw(st.sampled_from(("c1", "call_9", "")))}
    if shape == 2:
        return {"name": name, "arguments": json.dumps(args)}  # arguments as a JSON string
    if shape == 3:
        return {"name": name, "parameters": args}
    if shape == 4:
        return {"name": name}
    return {"name": name, "arguments": args}


@st.composite
def _body(draw: st.DrawFn, odd: bool, usual: bool) -> str:
    """A tag's JSON; `odd`: names from prose, a stray entry, something after the value."""
    names = st.one_of(st.sampled_from(NAMES), _prose) if odd else st.sampled_from(NAMES)
    calls = draw(st.lists(_call_object(names, usual), min_size=1, max_size=2))
    value: Any = calls if len(calls) > 1 or draw(st.integers(0, 3)) == 0 else calls[0]
    if odd and draw(st.integers(0, 5)) == 0:
        value = [*calls, draw(_values)]  # a stray entry beside the calls
    text = json.dumps(value, ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from(((", ", ": "), (",", ":")))), indent=draw(st.sampled_from((None, None, 2))))
    if odd and draw(st.integers(0, 5)) == 0:
        text += draw(st.sampled_from((",", ";", " {}", " x", "\u00a0"))) + draw(_space)  # more after the value
    return text


@st.composite
def _reply(draw: st.DrawFn, usual: bool) -> tuple[str, str]:
    """A reply in the frame of one of FRAMES; unless `usual`, each part (prose, gaps, bodies) is odd
    one time in six and one reply in eight is cut anywhere."""

    def part(plain: st.SearchStrategy[str], odd: st.SearchStrategy[str]) -> str:
        return draw(plain if usual or draw(st.integers(0, 5)) else odd)

    dialect = draw(st.sampled_from(FRAMES))
    d = dialects.get(dialect)
    n = draw(st.integers(1, 3))
    tags = []
    for _ in range(n):
        odd = not usual and draw(st.integers(0, 5)) == 0
        tags.append(f"{d.open}{part(_space, _prose)}{draw(_body(odd, usual))}{part(_space, _prose)}{d.close}")
    body = "".join(t + (part(_space, _prose) if i < n - 1 else "") for i, t in enumerate(tags))
    text = f"{part(_plain_prose, _prose)}{body}{part(_plain_prose, _prose)}"
    if not usual and draw(st.integers(0, 7)) == 0:
        text = text[: draw(st.integers(0, len(text)))]  # cut anywhere
    return dialect, text


def _ctx(draw: st.DrawFn, dialect: str) -> ParseContext:
    offered = draw(st.sampled_from(((), NAMES, NAMES[:2])))
    tools = [Tool(name=n, description="", parameters={"type": "object", "properties": {"city": {"type": "string"}}})
             for n in offered]
    ctx = ParseContext.of(tools) if tools else ParseContext()
    # the model's dialect preferred (read first in the chain): none, the frame's, one declaring the
    # frame's tag as its own marker too, or any of the table
    sharing = SHARING.get(dialects.get(dialect).open) or (dialect,)
    prefer = draw(st.sampled_from(((), (), (dialect,), (draw(st.sampled_from(sharing)),),
                                   (draw(st.sampled_from(ALL)),))))
    return ParseContext(tools=ctx.tools, prefer=prefer) if prefer else ctx


def _chain(draw: st.DrawFn, dialect: str) -> tuple[str, ...]:
    """The dialect forced, every dialect (auto), or a few."""
    chain = draw(st.sampled_from(((dialect,), (dialect,), None, (dialect, "json_block"), ("hermes", "longcat"))))
    return tuple(dialects.DIALECTS) if chain is None else chain


@_SETTINGS
@given(data=st.data())
def test_the_frame_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    dialect, text = data.draw(_reply(usual=False))
    ctx, chain = _ctx(data.draw, dialect), _chain(data.draw, dialect)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@_SETTINGS
@given(data=st.data())
def test_the_usual_frame_reply_takes_the_lane(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    dialect, text = data.draw(_reply(usual=True))
    ctx = ParseContext()
    if not _unmaskable(text):  # forced (a chain of several takes only a reply that is its section)
        assert _lane(text, ctx, (dialect,)) is not None, text
    ctx, chain = _ctx(data.draw, dialect), _chain(data.draw, dialect)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


def test_every_frame_dialect_reads_a_lane() -> None:
    """Each dialect built on the frame (and no offered_only one among them) reads the lane."""
    assert "hermes" in FRAMES and "longcat" in FRAMES
    for name in FRAMES:
        assert pipeline._lane_of(name) is not None, name


def test_a_tag_quoted_in_a_value_is_the_value_and_asks_no_general_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: a forced usual Hermes reply is read without the mask, the reasoning split or the
    chain, and a close tag in its string is text."""
    asked: list[str] = []
    for name in ("mask", "split_thinking", "_run_dialects"):
        real = getattr(pipeline, name)
        monkeypatch.setattr(pipeline, name, lambda *a, _n=name, _r=real, **k: asked.append(_n) or _r(*a, **k))
    args = {"code": 'print("</tool_call><tool_call>{}")', "n": [1, {"a": "<think>"}]}
    text = f'<tool_call>\n{json.dumps({"name": "run", "arguments": args})}\n</tool_call>'
    ctx = ParseContext.of([Tool(name="run", description="")])
    resp = pipeline.finalize(NativeParse(text=text), ctx, ("hermes",))
    assert asked == []
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("run", args)]
    monkeypatch.setattr(pipeline, "_lane", lambda *a: None)
    assert pipeline.finalize(NativeParse(text=text), ctx, ("hermes",)) == resp
    assert asked  # the full path asks them: the count above can fail


@pytest.mark.parametrize("frame", FRAMES)
def test_with_any_dialect_preferred_the_lane_names_the_reader_the_chain_would(frame: str,
                                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A form sharing the frame's tag (Laguna, Granite, xLAM read `<tool_call>` too) preferred reads
    the reply first, and names its calls: the lane answers only where the frame's dialect reads first."""
    d = dialects.get(frame)
    for body in ('{"name": "get_weather", "arguments": {"city": "Paris", "days": 3}}', '[{"name": "f", "arguments": {}}]'):
        text = f"{d.open}\n{body}\n{d.close}"
        for preferred in ALL:
            ctx = ParseContext(prefer=(preferred,))
            for chain in (tuple(dialects.DIALECTS), (frame,), (preferred, frame)):
                assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch), \
                    (preferred, chain[:3])
