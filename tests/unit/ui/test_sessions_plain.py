"""`agent sessions` skips rich only where rich would write the same bytes: on a console without
styles (stdout no terminal) whose width fits, every listing the plain path writes is byte for byte
what the rich narrow layout writes; anything else goes through rich."""

from __future__ import annotations

import io
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.agent.catalog import SessionEntry
from agentcli.cli.commands import sessions as cmd
from agentcli.ui import console as console_mod

ascii_text = st.text(alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=120)
words = st.one_of(ascii_text, ascii_text, st.text(max_size=50),
                  st.text(alphabet="ab -·[]/\t\x07\u200b\u00e9\u4e2d", max_size=60))


@st.composite
def listings(draw):
    n = draw(st.integers(1, 3))
    out = []
    for i in range(n):
        meta = {"model": draw(st.one_of(st.text(alphabet="abc-:./", max_size=40), words)),
                "goal": draw(st.one_of(words, st.text(alphabet="ab c", min_size=60, max_size=200))), "workspace": draw(words)}
        stop = draw(st.one_of(st.none(), words))
        out.append(SessionEntry(f"20260101-00000{i}-abcdef", Path("x"), meta, {"stop": stop} if stop else None,
                                updated=draw(st.sampled_from([0.0, 1_700_000_000.0]))))
    return out


def _rich(sessions, show_ws: bool, width: int) -> str:
    buf = io.StringIO()
    con = console_mod._safe_console_class()(file=buf, width=width, highlight=False, soft_wrap=True, markup=False,
                                            emoji=False, force_terminal=False, color_system=None)
    cmd._narrow(con, sessions, show_ws=show_ws)
    return buf.getvalue()


@settings(max_examples=300, deadline=None)
@given(sessions=listings(), show_ws=st.booleans(), width=st.one_of(st.integers(1, cmd.WIDE - 1), st.integers(60, cmd.WIDE - 1)))
def test_plain_lines_are_what_the_rich_layout_writes(sessions, show_ws, width):
    lines = cmd._plain_lines(sessions, show_ws, width)
    if lines is not None:
        assert "".join(line + "\n" for line in lines) == _rich(sessions, show_ws, width)


def test_an_ordinary_listing_takes_the_plain_path_and_a_hostile_one_does_not():
    plain = [SessionEntry("20260101-000000-abcdef", Path("x"), {"model": "m", "goal": "g" * 200, "workspace": "/w"})]
    for width in (30, 80, cmd.WIDE - 1):  # the goal is cropped with an ellipsis, as rich crops it
        lines = cmd._plain_lines(plain, True, width)
        assert lines is not None and lines[-1].endswith("…")
        assert "".join(line + "\n" for line in lines) == _rich(plain, True, width)
    assert cmd._plain_lines(plain, True, 10) is None  # the first line would fold: rich decides
    odd = [SessionEntry("20260101-000000-abcdef", Path("x"), {"model": "m", "goal": "caf\u00e9"})]
    assert cmd._plain_lines(odd, False, 80) is None  # a character rich measures in cells


class _Out(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


def test_plain_width_follows_rich(monkeypatch):
    for name in ("TTY_COMPATIBLE", "FORCE_COLOR", "COLUMNS"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(sys, "stdout", _Out(tty=True))
    assert console_mod.plain_width() is None  # styles on: rich writes them
    monkeypatch.setattr(sys, "stdout", _Out(tty=False))
    monkeypatch.setenv("COLUMNS", "57")
    assert console_mod.plain_width() == 57
    assert console_mod.plain_width() == console_mod.make_console().width
    for name, value in (("COLUMNS", "0"), ("COLUMNS", "wide"), ("FORCE_COLOR", "1"), ("TTY_COMPATIBLE", "1"),
                        ("FORCE_COLOR", "")):
        with monkeypatch.context() as m:
            m.setenv(name, value)
            assert console_mod.plain_width() is None
