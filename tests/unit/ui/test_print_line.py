"""`print_line` skips rich only where rich would write the line unchanged: for any string, its output
is byte for byte what the console writes, on a terminal (colour on) or not."""

from __future__ import annotations

import contextlib
import io

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.text import Text

from agentcli.ui import console as console_mod


def _rich(text: str, terminal: bool) -> str:
    buf = io.StringIO()
    con = console_mod._safe_console_class()(
        file=buf, width=12, highlight=False, soft_wrap=True, markup=False, emoji=False,
        force_terminal=terminal, color_system="truecolor" if terminal else None,
    )
    con.print(Text(text))
    return buf.getvalue()


def _plain(text: str, monkeypatch) -> str:
    buf = io.StringIO()
    with monkeypatch.context() as m:
        m.setattr(console_mod, "make_console", lambda stderr=False: console_mod._safe_console_class()(
            file=buf, width=12, highlight=False, soft_wrap=True, markup=False, emoji=False))
        with contextlib.redirect_stdout(buf):
            console_mod.print_line(text)
    return buf.getvalue()


lines = st.one_of(st.text(max_size=60), st.text(alphabet="ab \t\x07\r\u200b\u00e9\u4e2d:[]/", max_size=40))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=lines)
def test_print_line_writes_what_the_console_writes(text, monkeypatch):
    out = _plain(text, monkeypatch)
    assert out == _rich(text, terminal=False)
    assert out == _rich(text, terminal=True)


def test_a_line_rich_would_change_still_goes_through_rich(monkeypatch):
    assert _plain("a\tb", monkeypatch) == _rich("a\tb", terminal=False) != "a\tb\n"
