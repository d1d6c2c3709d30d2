"""The terminal has one spinner owner: a new spinner replaces one nobody stopped, and
`stop_active()` (what prompts and cancels call) stops whichever is drawing."""

from __future__ import annotations

import io
import signal

from rich.console import Console
from rich.text import Text

from agentcli.ui import progress
from agentcli.ui.render import SUMMARY_LINES, summary_tail
from agentcli.ui.signals import Terminated, exit_code


def _terminal() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, width=80)


def test_a_new_spinner_replaces_an_abandoned_one_and_stop_active_stops_it():
    first, second = progress.Progress(_terminal()), progress.Progress(_terminal())
    try:
        first.show(Text("waiting for a"))
        assert progress._active is first
        second.show(Text("waiting for b"))  # `first` belonged to a cancelled turn: it must stop drawing
        assert progress._active is second and first._live is None and not first.active
        progress.stop_active()
        assert progress._active is None and second._live is None
        progress.stop_active()  # nothing drawing: still safe
    finally:
        first.stop()
        second.stop()


def test_no_spinner_off_a_terminal():
    quiet = progress.Progress(Console(file=io.StringIO(), force_terminal=False))
    quiet.show(Text("waiting"))
    assert quiet._live is None and progress._active is None


def test_summary_tail_is_bounded():
    assert summary_tail("one\ntwo\nthree") == ["two", "three"]
    lines = summary_tail("\n".join(f"line {i}" for i in range(50)))
    assert len(lines) == SUMMARY_LINES and lines[-1] == "… 46 more lines"
    assert summary_tail("x" * 10 + "\n" + "y" * 500)[0] == "y" * 100


def test_exit_codes_follow_the_signal():
    assert exit_code(KeyboardInterrupt()) == 130
    assert exit_code(Terminated(signal.SIGTERM)) == 143
    assert exit_code(Terminated(signal.SIGHUP)) == 129
