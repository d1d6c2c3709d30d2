"""The chain's shortcuts on a long reply (issue 29) give the answers of the plain passes they stand
in for: a dialect handing back an equal copy of the text took out none of its tags, and the call
wrappers around a markerless dialect's calls are found from the reply's marker index (its places)
as from a search per wrapper. Generated inputs hold the markup inside string values, broken JSON
and nested quotes; the work is counted, never timed."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup, _seen
from agentcli.wire.types import Candidate

_examples = settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
WRAPPERS = [t for pair in _markup.collected().call_wrappers for t in pair]
PIECES = [*WRAPPERS, "<tool_call>", '{"name": "f", "arguments": {"a": "', '"}}', '\\"', '"', "{", "}", "[", "]",
          "<", ">", "|", "\n", " ", "x", "lorem ipsum ", "｜", "▁", '"</tool_call>"', "[f(a='<invoke')]"]
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)
long_texts = st.tuples(texts, st.integers(1, 3), texts).map(lambda t: t[0] + "lorem ipsum " * (700 * t[1]) + t[2])
any_text = st.one_of(texts, long_texts)


def _counted_drop(name: str, text: str, rest: str) -> bool:
    return any(rest.count(t) < text.count(t) for t in pipeline._plain_tags(name))


@_examples
@given(st.sampled_from(["hermes", "tool_use_tag", "dots", "olmo3", "claude_xml"]), any_text, any_text)
def test_drops_tags_is_the_count_of_each_tag(name: str, text: str, other: str) -> None:
    for rest in (text, str(list(text) and "".join(list(text))), other, text.replace("<tool_call>", "", 1)):
        assert pipeline._drops_tags(name, text, rest) == _counted_drop(name, text, rest)


@_examples
@given(any_text)
def test_call_spans_from_the_index_are_the_searched_ones(text: str) -> None:
    assert pipeline._CallSpans(text, _seen.Seen(text)).spans == pipeline._CallSpans(text).spans


@_examples
@given(any_text, st.lists(st.integers(0, 10_000), max_size=4))
def test_wrapped_calls_from_the_index_are_the_searched_ones(text: str, cuts: list[int]) -> None:
    cands = []
    for at in sorted(cuts):
        at = min(at, len(text))
        raw = text[at: at + 12]
        cands.append(Candidate("f", "{}", raw, "pythonic"))
    want = pipeline._inside_wrappers(text, cands)
    got = pipeline._inside_wrappers(text, cands, _seen.Seen(text))
    assert [id(c) for c in got] == [id(c) for c in want]


def test_an_equal_copy_is_not_counted(monkeypatch) -> None:
    """A 100 KB reply a dialect handed back as an equal copy: no tag is counted in either."""
    text = "<tool_call>\n<function=f>\n" + "lorem ipsum " * 9000 + "\n</function>\n</tool_call>"
    copy = "".join([text[:10], text[10:]])
    assert copy is not text
    counted: list[str] = []

    class Counting(str):
        def count(self, *a):  # type: ignore[override]
            counted.append(a[0])
            return str.count(self, *a)

    assert not pipeline._drops_tags("hermes", Counting(text), Counting(copy))
    assert counted == []
