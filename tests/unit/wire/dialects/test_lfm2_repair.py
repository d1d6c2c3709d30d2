"""LFM2's slip repair reads a string's text in slices, not character by character: the same output
as the per-character walk it replaced, for any source (hypothesis), and a count of the steps it takes."""

from __future__ import annotations

import sys
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import lfm2


def _reference(src: str) -> str:
    """The per-character walk the repair was first written as (the behaviour to keep)."""
    out: list[str] = []
    quote = ""
    i, n = 0, len(src)
    while i < n:
        ch = src[i]
        if quote:
            if ch == "\\" and i + 1 < n:
                out.append(src[i : i + 2])
                i += 2
                continue
            if ch == quote:
                quote = ""
            out.append({"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x00": "\\x00"}.get(ch, ch))
            i += 1
            continue
        if ch in "'\"":
            quote = ch
        elif ch.isdigit() and (i == 0 or not (src[i - 1].isalnum() or src[i - 1] in "._")):
            j = i
            while j < n and src[j].isdigit():
                j += 1
            digits = src[i:j]
            follower = src[j] if j < n else ""
            if len(digits) > 1 and digits[0] == "0" and digits.strip("0") and follower not in ".eEjJxXoObB":
                out.append(str(int(digits)))
                i = j
                continue
            out.append(digits)
            i = j
            continue
        out.append(ch)
        i += 1
    return "".join(out)


_PIECES = st.sampled_from(["'", '"', "\\", "\n", "\r", "\t", "\x00", "0", "007", "12", "0.5", "0x1", ".", "_",
                           "a", "f(", ")", "=", ",", "[", "]", " ", "é", "x=", "lorem ipsum"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_PIECES, max_size=40).map("".join))
def test_the_repair_is_the_per_character_walk(src: str) -> None:
    assert lfm2._repair(src) == _reference(src)


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=60))
def test_the_repair_is_the_per_character_walk_on_any_ascii(src: str) -> None:
    assert lfm2._repair(src) == _reference(src)


def _calls(fn: Callable[[str], str], src: str) -> int:
    """Function calls (Python and builtin) made while `fn` runs on `src`."""
    made = [0]

    def on_event(frame, event, arg) -> None:  # noqa: ANN001
        if event in ("call", "c_call"):
            made[0] += 1

    sys.setprofile(on_event)
    try:
        fn(src)
    finally:
        sys.setprofile(None)
    return made[0]


def test_a_long_string_argument_is_read_in_few_steps() -> None:
    """Calls per repair: a few per string and per control character in it, not a few per character
    of its text (a 100 KB argument once took ~300k calls)."""
    body = "lorem ipsum dolor sit amet\n" * 400
    src = f"[write(path='a.txt', text='{body}')]"
    assert lfm2._repair(src) == _reference(src)
    assert _calls(lfm2._repair, src) <= 8 * body.count("\n") + 200
    assert _calls(_reference, src) > 8 * body.count("\n") + 200  # the count tells the two walks apart


def test_a_well_formed_list_is_never_repaired(monkeypatch) -> None:
    """The repair runs only when the list does not read as written."""
    calls = [0]
    real = lfm2._repair
    monkeypatch.setattr(lfm2, "_repair", lambda src: calls.__setitem__(0, calls[0] + 1) or real(src))
    assert lfm2.parse_block("[get_weather(city='Paris')]") == [("get_weather", {"city": "Paris"})]
    assert calls[0] == 0
    assert lfm2.parse_block("[get_weather(city='Pa\nris')]") == [("get_weather", {"city": "Pa\nris"})]
    assert calls[0] == 1
