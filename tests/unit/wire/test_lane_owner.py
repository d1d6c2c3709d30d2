"""The lane in a chain of several dialects by ownership (pipeline._owner_lane, Dialect.lane_tokens):
a reply whose first markup is a lane dialect's token is read by that lane, its words left read by
the others, and the response is the full path's.

Kimi K3's usual replies are drawn with prose holding every plain-word marker any dialect declares
(`**Tool Call:**`, `Action:`, `functools`, `call:`...), under chains that put each dialect owning
such markup before K3 and after it, and the whole registry in its order and with K3 last.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.types import NativeParse, ParseContext
from tests.unit.wire.test_lane_k3 import K3, _ctx, _full, _reply


def _plain_words() -> list[str]:
    """Every marker or owned markup of any dialect that plain prose may hold (no markup character)."""
    found = set()
    for name in dialects.DIALECTS:
        row = dialects.declared(name)
        found |= {m for m in (*row.markers, *row.owns) if pipeline._PLAIN.fullmatch(m)}
    return sorted(found)


WORDS = _plain_words()
# The dialects owning markup that may stand in a reply K3's lane takes (see _owner_lanes), and some others.
OWNERS = tuple(sorted({n for n in dialects.DIALECTS if any(
    not m.startswith("<") for m in dialects.declared(n).owns)})) + ("hermes", "deepseek_v3", "json_block")
_ALL = tuple(dialects.DIALECTS)


def _chains() -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [_ALL, (*[n for n in _ALL if n != K3], K3)]
    for other in OWNERS:
        out += [(other, K3), (K3, other), (other, K3, "json_block", "pythonic")]
    return out


CHAINS = _chains()
_words = st.lists(st.one_of(st.sampled_from(WORDS), st.text(alphabet="abc XYZ.,:;!?\n-_*=/", max_size=8)),
                  max_size=4).map("".join)


@st.composite
def _worded(draw: st.DrawFn) -> str:
    """A usual K3 reply with plain-word markers in the prose before it and after it."""
    return draw(_words) + draw(_reply(True)) + draw(_words)


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(data=st.data())
def test_the_owner_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    text = data.draw(st.one_of(_worded(), _reply(True), _reply(False)))
    ctx, chain = _ctx(data.draw), data.draw(st.sampled_from(CHAINS))
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@pytest.mark.parametrize("chain", [_ALL, (*[n for n in _ALL if n != K3], K3), ("hermes", K3)])
def test_the_usual_reply_takes_the_lane_in_a_chain(chain: tuple[str, ...]) -> None:
    text = ("Let me run it.<|open|>tools<|sep|><|open|>call tool=\"python\" index=\"1\"<|sep|>"
            "<|open|>argument key=\"code\" type=\"string\"<|sep|>print(1)<|close|>argument<|sep|>"
            "<|close|>call<|sep|><|close|>tools<|sep|>")
    got = pipeline._lane(NativeParse(text=text), ParseContext(), chain)
    assert got is not None and [c.name for c in got[0]] == ["python"] and got[1] == "Let me run it."


def test_an_earlier_owner_whose_markup_stands_in_the_reply_reads_first() -> None:
    """`**Tool Call:**` is RWKV's: in a chain that puts RWKV first, a reply holding it is left to
    the full path (RWKV reads before K3 there); with K3 first the lane reads it."""
    text = ("**Tool Call:** below<|open|>tools<|sep|><|open|>call tool=\"python\" index=\"1\"<|sep|>"
            "<|close|>call<|sep|><|close|>tools<|sep|>")
    assert "**Tool Call:**" in dialects.declared("rwkv").owns
    assert pipeline._lane(NativeParse(text=text), ParseContext(), ("rwkv", K3)) is None
    assert pipeline._lane(NativeParse(text=text), ParseContext(), (K3, "rwkv")) is not None


def test_words_left_that_another_dialect_would_change_send_the_reply_the_full_way(monkeypatch: pytest.MonkeyPatch) -> None:
    """The others read the words the lane leaves, as after the owner's turn: when they would find a
    call or change those words, the lane's answer is not taken (no registered dialect does so with
    plain words today; a stand-in that does checks the guard)."""
    text = ("Let me run it.<|open|>tools<|sep|><|open|>call tool=\"python\" index=\"1\"<|sep|>"
            "<|close|>call<|sep|><|close|>tools<|sep|>")
    assert pipeline._lane(NativeParse(text=text), ParseContext(), _ALL) is not None
    real = pipeline._run_dialects
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_run_dialects", lambda t, *a, **k: ([], t.upper(), False) if t == "Let me run it." else real(t, *a, **k))
        assert pipeline._lane(NativeParse(text=text), ParseContext(), _ALL) is None
