"""SIGTERM and SIGHUP end a run the way Ctrl-C does.

`timeout`, a CI cancel and a closed terminal send these, not SIGINT. Left at their defaults they
kill the process on the spot: no end record in the transcript, no resume hint, and the MCP servers
it started left running. Here each raises `Terminated`, a KeyboardInterrupt, so every path that
already cleans up after Ctrl-C (cancel the task, close the provider and the MCP servers, save the
session, say how to resume) does so for them too; the exit code is still 128 + the signal.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType

ENDING = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """The process was asked to end by `signum` (SIGTERM, SIGHUP)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def exit_code(exc: BaseException) -> int:
    """128 + the signal that ended the process: 130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP."""
    return 128 + (exc.signum if isinstance(exc, Terminated) else signal.SIGINT)


def _raise(signum: int, frame: FrameType | None) -> None:
    for sig in ENDING:  # a second signal must not cut the clean-up of the first short
        signal.signal(sig, signal.SIG_IGN)
    raise Terminated(signum)


@contextlib.contextmanager
def ending_signals() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise `Terminated`; the previous handlers come back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # A signal already ignored stays ignored (`nohup agent run ...` means: survive the hang-up).
    previous = {sig: signal.signal(sig, _raise) for sig in ENDING if signal.getsignal(sig) is signal.SIG_DFL}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
