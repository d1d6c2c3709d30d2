"""What shows while nothing else does: a spinner with elapsed seconds while the model thinks
or a tool runs, and a countdown before a retry. Terminal only: a pipe, a file and `--json`
get none of it (they see the same events as lines instead).

Every label is a rich `Text` built from parts, never a markup string: model names and tool
arguments are untrusted.

One terminal, one spinner: the live line is drawn by a thread, so a spinner nobody stops keeps
drawing over whatever comes next (a prompt, a cancelled turn's successor, the shell after Ctrl-C).
The module keeps the one active `Progress`; `stop_active()` is what every prompt, checkpoint and
cancel calls before it writes, whoever started the spinner.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text


class _Ticker:
    """A renderable re-drawn on every refresh: the label plus live seconds."""

    def __init__(self, label: Text, clock: Callable[[], float], until: float | None) -> None:
        self.label = label
        self.clock = clock
        self.started = clock()
        self.until = until

    def text(self) -> Text:
        now = self.clock()
        out = self.label.copy()
        if self.until is not None and now < self.until:
            out.append(f" · retrying in {self.until - now:.0f} s", style="yellow")
        elif self.until is not None:
            out.append(f" · retried, waiting {now - self.until:.0f} s", style="dim")
        else:
            out.append(f" · {now - self.started:.0f} s", style="dim")
        return out

    def __rich__(self) -> Text:
        return self.text()


_active: Progress | None = None  # the one spinner on the terminal, if any


def stop_active() -> None:
    """Stop whatever spinner is drawing, so the next line written (a prompt, a message) is not
    drawn over. Safe to call any time, from the main thread."""
    if _active is not None:
        _active.stop()


class Progress:
    """One live status line on a console; a no-op when that console is not a terminal."""

    def __init__(self, console: Any, clock: Callable[[], float] = time.monotonic) -> None:
        self.console = console
        self.clock = clock
        self.enabled = bool(getattr(console, "is_terminal", False))
        self._live: Any = None
        self.ticker: _Ticker | None = None

    def show(self, label: Text, *, countdown_s: float | None = None) -> None:
        """Show `label` with elapsed seconds, or with a countdown of `countdown_s` seconds."""
        until = self.clock() + countdown_s if countdown_s is not None else None
        self.ticker = _Ticker(label, self.clock, until)
        if not self.enabled:
            return
        from rich.spinner import Spinner

        global _active
        spinner = Spinner("dots", text=self.ticker, style="cyan")
        if self._live is None:
            from rich.live import Live

            if _active is not None and _active is not self:
                _active.stop()  # a renderer that was never closed (a cancelled turn) gives way
            self._live = Live(spinner, console=self.console, refresh_per_second=8, transient=True)
            self._live.start()
            _active = self
        else:
            self._live.update(spinner, refresh=True)

    def stop(self) -> None:
        global _active
        self.ticker = None
        if _active is self:
            _active = None
        if self._live is not None:
            live, self._live = self._live, None
            try:
                live.stop()
            except OSError:  # the terminal is gone (SIGHUP): there is nothing left to clear
                pass

    @property
    def active(self) -> bool:
        return self.ticker is not None


def waiting_label(model: str) -> Text:
    return Text("waiting for ") + Text(model, style="bold")


def tools_label(labels: list[str]) -> Text:
    return Text("running ") + Text(" · ".join(labels), style="bold")


def retry_label(reason: str, attempt: int) -> Text:
    return Text(reason, style="yellow") + Text(f" (attempt {attempt})", style="dim")
