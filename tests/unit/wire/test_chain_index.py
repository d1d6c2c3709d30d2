"""The dialect chain is prepared once; per reply each of its distinct markers is asked once, and an
empty text asks nothing (counted work, not time)."""

from __future__ import annotations

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _seen


class _Counting:
    def __init__(self, text: str) -> None:
        self.text, self.asked = text, []

    def __contains__(self, marker: str) -> bool:
        self.asked.append(marker)
        return marker in self.text


def test_each_distinct_marker_is_asked_at_most_once_per_text():
    index = pipeline._chain_index(tuple(dialects.DIALECTS))
    seen = _Counting("plain prose about <b>nothing</b> in [particular] | or | other")
    assert index.present(seen) == frozenset()  # type: ignore[arg-type]
    markers = [m for m in seen.asked if len(m) > 1]
    assert sorted(markers) == sorted(set(markers))
    assert set(markers) <= set(index.markers)
    per_dialect = sum(len(index.marker_sets[n]) for n in index.names)
    assert len(index.markers) < per_dialect  # markers shared between dialects are asked once


def test_markers_whose_rarest_character_is_absent_are_not_asked():
    """Prose with no markup character asks one question per distinct rare character (a memchr
    each), and then only the markers written in letters (`functools`)."""
    index = pipeline._chain_index(tuple(dialects.DIALECTS))
    text = "plain prose about nothing in particular"
    seen = _Counting(text)
    assert index.present(seen) == frozenset()  # type: ignore[arg-type]
    markers = [m for m in seen.asked if len(m) > 1]
    assert all(_seen.key(m)[0] in text for m in markers)  # only words whose every character is prose's
    assert len(markers) < len(index.markers) // 4


def test_present_is_each_marker_asked_alone():
    """Grouping changes the work, never the answer (a reply holding a few markers, and the same
    reply past the size where the chain's marker index takes over)."""
    index = pipeline._chain_index(tuple(dialects.DIALECTS))
    for text in ('say <tool_call>{"name": "f"}</tool_call> and [TOOL_CALLS] or <|python_tag|> x',
                 "<｜tool▁calls▁begin｜> Action: functools[ <function=f> "):
        for t in (text, text + " filler" * 3000):
            assert index.present(pipeline._seen(t)) == frozenset(m for m in index.markers if m in t)


def test_the_index_is_built_once_per_chain(monkeypatch):
    pipeline._chain_index.cache_clear()
    built = []
    real = pipeline._ChainIndex.__init__

    def counting(self, names):  # noqa: ANN001, ANN202
        built.append(names)
        real(self, names)

    monkeypatch.setattr(pipeline._ChainIndex, "__init__", counting)
    for reply in ("hello", '<tool_call>{"name": "f", "arguments": {}}</tool_call>', "[f(a=1)]"):
        pipeline.parse_text(reply)
    assert len(built) == 1


def test_empty_text_reads_no_dialect(monkeypatch):
    def boom(names):  # noqa: ANN001, ANN202
        raise AssertionError("the chain was consulted for an empty text")

    monkeypatch.setattr(pipeline, "_chain_index", boom)
    parsed = pipeline.parse_text("")
    assert parsed.text == "" and not parsed.tool_calls


def test_an_owner_reads_first_when_its_wrapper_is_present():
    names = tuple(dialects.DIALECTS)
    index = pipeline._chain_index(names)
    owner, owns = next(iter(index.owns.items()))
    assert index.ordered(frozenset(owns))[0] == owner
    assert index.ordered(frozenset()) == index.names
