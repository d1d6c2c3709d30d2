"""On a long reply the chain asks each dialect's markers (and each owner's wrapper) as it comes to
that dialect, not every marker up front (issue 29): the dialect that reads the call leaves a short
rest, and the later ones ask theirs of that rest. The gate turns down only what the full question
does: on generated replies (every dialect's markers and wrappers, inside string values and out,
full-width and ASCII spellings, fences, real calls of every dialect) the lazy chain tries the same
dialects in the same order and returns the same calls and text as the chain asking every marker
first. The work is counted (the whole-text scans of absent markers), never timed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _markup, _seen
from agentcli.wire.types import ParseContext

NAMES = tuple(dialects.DIALECTS)
INDEX = pipeline._chain_index(NAMES)
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dialects"


def _fixture_texts() -> list[str]:
    out = []
    for name in NAMES:
        path = FIXTURES / f"{name}.json"
        if path.exists():
            out.extend(c["text"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"][:3])
    return out


CALLS = _fixture_texts()
MARKUP = sorted({*INDEX.markers, *(m for o in INDEX.owns.values() for m in o),
                 *(m.replace("｜", "|") for m in INDEX.markers), *(m.replace("|", "｜") for m in INDEX.markers)})
PIECES = [*MARKUP, "```", "```json\n", "~~~", "\n", " ", '"', "{", "}", "[", "]", "lorem ipsum ", "｜", "▁", "<", ">", "|"]
piece_texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)
# A marker quoted in a string value, as a call's argument may hold one.
quoted = st.tuples(st.sampled_from(MARKUP), piece_texts).map(lambda t: json.dumps({"text": f"a {t[0]} {t[1]}"}))
parts = st.one_of(st.sampled_from(CALLS), piece_texts, quoted)
FILLER = "lorem ipsum dolor sit amet "
# Past the size where the chain's marker index (a Seen) takes over: the filler grows a call's
# argument or stands between parts, as a long reply's prose would.
long_replies = st.tuples(st.lists(parts, min_size=1, max_size=4), st.integers(0, 3), st.integers(330, 700)).map(
    lambda t: "".join(t[0][: t[1]]) + FILLER * t[2] + "".join(t[0][t[1]:]))
grown_calls = st.tuples(st.sampled_from(CALLS), st.integers(330, 700), piece_texts).map(
    lambda t: t[0].replace("San Francisco", "San Francisco" + FILLER * t[1], 1) + t[2])
replies = st.one_of(long_replies, grown_calls).filter(lambda t: len(t) >= pipeline._SEEN_FROM)
contexts = st.sampled_from([None, ParseContext(), ParseContext.of([Tool("get_weather", "", {"type": "object"}),
                                                                   Tool("get_current_temperature", "", {"type": "object"})])])


def _run(text: str, ctx: ParseContext | None, seen: Any) -> tuple[list[str], Any]:
    """(the dialects that read, in order; the chain's calls, rest and cap)."""
    tried: list[str] = []
    real = pipeline._parse_within

    def recording(d, *args):  # noqa: ANN001, ANN002, ANN202
        tried.append(d.name)
        return real(d, *args)

    pipeline._parse_within = recording  # type: ignore[assignment]
    try:
        found, rest, capped = pipeline._run_dialects(text, NAMES, ctx, 64, seen)
    finally:
        pipeline._parse_within = real  # type: ignore[assignment]
    return tried, ([(c.name, c.arguments, c.raw, c.dialect, c.error) for c in found], rest, capped)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies, ctx=contexts)
def test_the_lazy_chain_tries_and_reads_what_the_eager_one_does(text: str, ctx: ParseContext | None) -> None:
    """The reply handed as a plain string takes the eager path (every marker asked first); as its
    Seen index, the lazy one."""
    assert _run(text, ctx, _seen.Seen(text)) == _run(text, ctx, text)


def test_a_long_call_asks_the_other_dialects_of_its_short_rest(monkeypatch: Any) -> None:
    """A DeepSeek call with a 100 KB argument: of the chain's ~90 markers only those of the dialects
    tried before the call was read are asked of the whole reply (the rest are asked of what it
    left), so far fewer key characters are looked for across the reply than the chain holds."""
    text = ("<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"get_weather\">\n<｜DSML｜parameter name=\"city\" "
            "string=\"true\">" + FILLER * 4000 + "</｜DSML｜parameter>\n</｜DSML｜invoke>\n</｜DSML｜function_calls>")
    asked: list[str] = []
    real = _seen.Seen._stretches

    def counting(self, ch):  # noqa: ANN001, ANN202
        if len(self.text) > 100_000 and ch not in self._at:
            asked.append(ch)
        return real(self, ch)

    monkeypatch.setattr(_seen.Seen, "_stretches", counting)
    found, rest, _ = pipeline._run_dialects(text, NAMES, None, 64, _seen.Seen(text))
    assert [c.dialect for c in found] == ["deepseek_v32"] and not rest.strip()
    assert len(asked) <= len(INDEX.groups) // 2, asked


ASKED = [*MARKUP, "<", ">", "|", "｜", "think>", "</tool_call>", "lorem", "\n{", '"name"']


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(replies, st.tuples(piece_texts, st.integers(0, 700), piece_texts).map(
    lambda t: t[0] + FILLER * t[1] + t[2])), order=st.permutations(ASKED))
def test_a_marker_is_found_by_any_known_character_it_holds(text: str, order: list[str]) -> None:
    """Seen answers a marker by the places of a character already found for another (a tag's `<`)
    when they are few: in any order of questions, every answer is the plain search's."""
    seen = _seen.Seen(text)
    for m in order:
        assert (m in seen) == (m in text), m


def test_tags_sharing_a_character_cost_one_scan_of_a_long_reply(monkeypatch: Any) -> None:
    """Once `<` is placed (two clusters of tags around a 100 KB argument), the full-width and ASCII
    special tokens are answered from those places: no other character is looked for."""
    text = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"f\">" + FILLER * 4000 + "</｜DSML｜invoke>\n</｜DSML｜function_calls>"
    looked: list[str] = []
    real = _seen.Seen._stretches

    def counting(self, ch):  # noqa: ANN001, ANN202
        if ch not in self._at:
            looked.append(ch)
        return real(self, ch)

    monkeypatch.setattr(_seen.Seen, "_stretches", counting)
    seen = _seen.Seen(text)
    assert "<function_call>" not in seen
    tokens = [m for m in MARKUP if m.startswith("<") and ("｜" in m or "|" in m)]
    assert [m for m in tokens if m in seen] == [m for m in tokens if m in text]
    assert looked == ["<"]


dense = st.tuples(piece_texts, st.integers(0, 700), st.integers(1, 40), piece_texts).map(
    lambda t: t[0] + (FILLER * t[1] + "a < b ") * t[2] + t[3])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=st.one_of(replies, dense))
def test_the_tags_are_asked_at_once_from_the_places_of_their_bracket(text: str) -> None:
    """`present_tags` (every marker holding `<`, asked of the text around that character's places,
    or group by group where it stands densely) answers as the plain search does; the text's index
    learns those answers, and every later question about a tag (a wrapper's) answers as `in`."""
    seen = _seen.Seen(text)
    assert INDEX.present_tags(seen) == frozenset(m for m in INDEX.tags if m in text)
    wrappers = [o for o, _ in _markup.collected().call_wrappers]
    assert [m in seen for m in (*INDEX.tags, *wrappers, "<", "<a")] == [m in text for m in (*INDEX.tags, *wrappers, "<", "<a")]


def test_a_wrapper_asked_after_the_tags_costs_no_search(monkeypatch) -> None:
    """Counted work: once the chain has asked its tags of a long reply, the call wrappers a generic
    dialect's call is checked against (`_inside_wrappers`) are answered from those answers."""
    text = "I will read it.\n<read_file>\n<path>" + FILLER * 300 + "</path>\n</read_file> <tool_call>"
    seen = _seen.Seen(text)
    INDEX.present_tags(seen)
    looked: list[str] = []
    monkeypatch.setattr(_seen.Seen, "_stretches", lambda self, ch: looked.append(ch))
    wrappers = [o for o, _ in _markup.collected().call_wrappers]
    assert [o for o in wrappers if o in seen] == ["<tool_call>"] and looked == []
