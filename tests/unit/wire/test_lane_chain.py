"""The lane in a chain of several dialects by its tokens (pipeline._chain_lane, Dialect.lane_tokens):
a reply whose first markup is a lane's token is read by the lane of the dialect the full path's chain
would give it to first, when no dialect that would take a turn before that one can read anything.

The property over every family's replies under auto is test_lane_every.py's; here, what the
registry cannot show today: stand-ins whose plain-word marker stands in a string value and reads a
call there, before the lane's dialect and after it, as an owner and not.
"""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects._base import Dialect
from agentcli.wire.types import Candidate, NativeParse, ParseContext
from tests.unit.wire.dialects import throwaway
from tests.unit.wire.test_lane import _full

WORD = "SAYS:"
# Jamba's usual reply, its string value holding the stand-in's word
REPLY = '<tool_calls>[{"name": "get_weather", "arguments": {"city": "SAYS: Paris"}}]</tool_calls>'


class _Says(Dialect):
    """Reads its plain word anywhere as a call of `said`: a stand-in for a dialect whose marker the
    mask leaves standing in a string (`Action:`, `functools`), and which reads a call there."""

    def __init__(self, name: str, owns: bool) -> None:
        self.name = name
        self.markers = (WORD,)
        self.owns = (WORD,) if owns else ()

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        at = text.find(WORD)
        if at < 0:
            return [], text
        return [Candidate("said", {}, WORD, self.name)], text[:at] + text[at + len(WORD):]


class _Nothing(Dialect):
    """A dialect with no markers (it looks anywhere) that reads `said` from any reply: the earlier
    dialect the lane must ask by running it."""

    name = "anywhere"

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        return [Candidate("said", {}, text, self.name)], ""


def registered() -> contextlib.AbstractContextManager[None]:
    """The stand-ins in the registry for the block, gone after (every table-built cache too)."""
    return throwaway.registered("throwaway_dialects.says", {
        "says": _Says("says", owns=False), "says_owner": _Says("says_owner", owns=True), "anywhere": _Nothing()})


def _lane_name(text: str, chain: tuple[str, ...]) -> str | None:
    got = pipeline._lane(NativeParse(text=text), ParseContext(), chain)
    return None if got is None else got[0][0].dialect


def test_under_auto_the_first_reader_of_a_shared_tag_reads_by_its_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """`<tool_calls>` opens Hunyuan's section and Jamba's: Hunyuan comes first in the chain, reads
    Jamba's reply in the full path, and does by its lane; xLAM's bare JSON list is xLAM's."""
    auto = tuple(dialects.DIALECTS)
    assert _lane_name(REPLY.replace("SAYS: ", ""), auto) == "hunyuan"
    xlam = '[{"name": "get_weather", "arguments": {"city": "Paris"}}]'
    for text in (REPLY.replace("SAYS: ", ""), xlam, "I will check. " + xlam):
        ctx = ParseContext()
        assert pipeline.finalize(NativeParse(text=text), ctx, auto) == _full(text, ctx, auto, monkeypatch)


@pytest.mark.parametrize(("chain", "lane"), [
    (("says", "hunyuan"), None),  # its word stands in the string: it reads first
    (("hunyuan", "says"), "hunyuan"),  # after the lane's dialect: the call is the whole reply
    (("hunyuan", "says_owner"), None),  # an owner reads first wherever it stands in the chain
    (("says_owner", "hunyuan"), None),
    (("anywhere", "hunyuan"), None),  # no markers: it reads the reply first
    (("hunyuan", "anywhere"), "hunyuan"),
])
def test_a_dialect_that_would_read_first_keeps_the_lane_away(chain: tuple[str, ...], lane: str | None,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    with registered():
        assert _lane_name(REPLY, chain) == lane
        ctx = ParseContext()
        got = pipeline.finalize(NativeParse(text=REPLY), ctx, chain)
        assert got == _full(REPLY, ctx, chain, monkeypatch)
        assert [c.name for c in got.tool_calls][-1] == "get_weather" or chain[0] == "anywhere"


_TOKENS = sorted({t for lane in pipeline._chain_lanes(tuple(dialects.DIALECTS)) for t in lane.opens})
_pieces = st.lists(st.one_of(st.sampled_from([*_TOKENS, "<", "[", "]", "{", "(", '"', "'", "`", "|", "\\", "◁"]),
                             st.text(alphabet="ab XY.,:\n名", max_size=6)), max_size=8).map("".join)


@settings(max_examples=400, deadline=None)
@given(text=_pieces, head=st.sampled_from([0, 1, 3, 8, pipeline._HEAD]),
       chain=st.sampled_from([tuple(dialects.DIALECTS), ("hermes", "hunyuan", "jamba"), ("xlam", "kimi_k3")]))
def test_the_first_markup_is_found_by_its_characters_as_by_reading_the_prose(text: str, head: int,
                                                                           chain: tuple[str, ...]) -> None:
    """Past the reply's head, _chain_lane finds where its plain prose ends by the places of the
    characters its lane tokens open with (a memchr each), not by reading all the prose: the same
    lane either way (heads of a few characters put the generated replies' prose past them)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pipeline, "_HEAD", head)
        got = pipeline._chain_lane(text, chain)
        mp.setattr(pipeline, "_lane_firsts", lambda chain: None)  # the prose read whole
        assert pipeline._chain_lane(text, chain) == got
