"""The reasoning split's shortcut for the usual reply of a reasoning model (one pair opening the
reply, closed once, nothing odd inside) gives exactly what the full split gives: held to it on
generated replies around every declared pair and split, with the odd shapes the shortcut must turn
down (tags nested, unclosed, written twice, a close without opener, call tokens inside the
reasoning, markup in string values, other reasoning markup), short and long, with and without the
caller's marker index; and on markup no family declares yet (a close tag inside its opener, a tag
or a call wrapper holding whitespace), which the shortcut must also get right or leave alone."""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._seen import SHORT, Seen

PLAIN = ["lorem ipsum ", "I'll help. ", "\n", " ", "\t", "\u3000", "<", ">", "|", "[", "]", "{", "}", "é", "｜"]
SPACES = ["", " ", "\n", "\t", "\u3000", "\r\n"]
FILLER = "lorem ipsum " * (SHORT // 12 + 1)  # once or twice in a part: past SHORT, the long path


def _odd(markup: _markup.Collected) -> list[str]:
    tags = [t for pair in markup.reasoning_tags for t in pair]
    return [*tags, *(s.trigger for s in markup.reasoning_splits), *(t for pair in markup.call_wrappers for t in pair),
            *markup.section_openers, *markup.probes, *(t[:-1] for t in tags), *(t[1:] for t in tags)]


@st.composite
def replies(draw: st.DrawFn, markup: _markup.Collected) -> str:
    """A reply shaped like the usual one (whitespace, a pair, reasoning, its close, an answer), any
    part of which may hold odd markup; or pieces in any order."""
    odd = _odd(markup)
    in_strings = st.sampled_from(odd).map(lambda t: json.dumps({"name": "f", "arguments": {"a": f"x {t} y"}}))
    pieces = st.one_of(st.sampled_from(PLAIN), st.sampled_from(PLAIN), st.sampled_from(odd), in_strings)
    runs = st.lists(pieces, max_size=6).map("".join)
    part = st.tuples(runs, st.integers(0, 2), runs).map(lambda t: t[0] + FILLER * t[1] + t[2])
    if draw(st.integers(0, 4)) == 0:
        return draw(part)
    open_tag, close_tag = draw(st.sampled_from(markup.reasoning_tags))
    head = draw(st.lists(st.sampled_from(SPACES), max_size=3).map("".join))
    thought, answer = draw(part), draw(part)
    close = draw(st.sampled_from([close_tag, close_tag, "", draw(st.sampled_from(odd))]))
    return head + open_tag + thought + close + answer


def _full(text: str, seen: Seen | None) -> tuple[str, str]:
    with pytest.MonkeyPatch.context() as m:
        m.setattr(pipeline, "_one_leading_pair", lambda text, seen: None)
        return pipeline.split_thinking(text, seen)


def _agrees(text: str, index: bool) -> None:
    seen = Seen(text) if index else None
    assert pipeline.split_thinking(text, seen) == _full(text, seen)


_examples = settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))


@_examples
@given(text=replies(_markup.collected()), index=st.booleans())
@example(text="<think>a</think>b", index=False)
@example(text=" <think>a</think><tool_call>{}</tool_call>", index=False)
@example(text="<think><tool_call>a</think>b", index=False)
@example(text="<think>a<think>b</think>c</think>d", index=False)
@example(text="<think>a</think>b</think>", index=False)
@example(text="<think>a</think>b<|message|>c", index=False)
@example(text="<think>a</think>b<think>c", index=False)
@example(text="<think>a</think>" + '{"a": "<seed:think>"}', index=False)
@example(text="<think>a</think>" + FILLER + "[THINK]", index=False)
@example(text="<think>a</think>" + FILLER + "[THINK]", index=True)
def test_the_usual_shape_splits_as_the_full_split_does(text: str, index: bool) -> None:
    _agrees(text, index)


@contextlib.contextmanager
def declaring(pairs: tuple[tuple[str, str], ...], wrappers: tuple[tuple[str, str], ...] = ()) -> Iterator[_markup.Collected]:
    """The collected markup with `pairs` and `wrappers` added (as a new family's row would add them),
    every cache built from it rebuilt on the way in and out."""
    real = _markup.collected()
    tags = (*real.reasoning_tags, *pairs)
    triggers = tuple(s.trigger for s in real.reasoning_splits)
    more = real._replace(reasoning_tags=tags, call_wrappers=(*real.call_wrappers, *wrappers), close_of=dict(tags),
                         probes=_markup._fewest((*(_markup._common(o, c) for o, c in tags), *triggers)))
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_markup, "collected", functools.cache(lambda: more))
        _markup.forget()
        try:
            yield more
        finally:
            m.undo()
            _markup.forget()


# A close tag standing inside its own opener: the close found first is not the block's.
NESTED = (("<<t>", "<t>"),)
# Another pair's tag written over this pair's close (`a</x>` over `</x>`), asked first.
OVERLAPPING = (("a</x>", "</q>"), ("<x>", "</x>"))
# A tag opening with whitespace may form where the whitespace before a block meets the answer; a
# wrapper's opener all whitespace may open before the block and hold it.
SPACED_TAG = (("<q", " x>"),)
SPACED_WRAPPER = (("\n\n", "</w>"),)


UNDECLARED = pytest.mark.parametrize(("pairs", "wrappers", "text"), [
    (NESTED, (), "<<t>ab"), (OVERLAPPING, (), "<x>ra</x>b"), (SPACED_TAG, (), " <think>r</think>x>"),
    ((), SPACED_WRAPPER, "\n\n<think>a</think>b")],
    ids=["close-in-opener", "overlapping-tag", "spaced-tag", "spaced-wrapper"])


@_examples
@given(data=st.data(), index=st.booleans())
@UNDECLARED
def test_undeclared_markup_splits_as_the_full_split_does(pairs: tuple, wrappers: tuple, text: str,
                                                         data: st.DataObject, index: bool) -> None:
    with declaring(pairs, wrappers) as markup:
        _agrees(data.draw(replies(markup)), index)


@UNDECLARED
def test_the_shape_undeclared_markup_breaks_splits_as_the_full_split_does(pairs: tuple, wrappers: tuple,
                                                                          text: str) -> None:
    with declaring(pairs, wrappers):
        _agrees(text, False)


@pytest.mark.parametrize(("open_tag", "close_tag"), _markup.collected().reasoning_tags)
@pytest.mark.parametrize("size", [0, SHORT])
def test_each_declared_pair_takes_the_shortcut_in_the_usual_shape(open_tag: str, close_tag: str, size: int) -> None:
    """The shortcut answers (not only agrees): every declared pair opening a reply, short and long."""
    answer = '[{"name": "f", "arguments": {"a": "' + "b" * size + '"}}]'
    text = f"\n {open_tag} I'll help you with that. {close_tag}{answer}"
    got = pipeline._one_leading_pair(text, Seen(text) if size else None)
    assert got == ("\n " + answer, "I'll help you with that.")
