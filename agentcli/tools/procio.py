"""Run one program with bounded time and output, never through a shell.

For tools that run a fixed program agentcli chose (git), not a model's command line: the argv
is built by the tool, stdin is empty, the whole process group dies at the deadline or on
cancellation, and stdout/stderr keep their first and last bytes within a budget.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Mapping
from typing import Any

from agentcli.core.record import record

DRAIN_S = 2.0


class Capture:
    """Keeps the first and last `keep` bytes of a stream and counts the rest."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        room = self.keep - len(self.head)
        if room > 0:
            self.head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self.tail += chunk
            if len(self.tail) > self.keep:
                del self.tail[: len(self.tail) - self.keep]

    def text(self, budget: int, what: str, *, hint: str = "Narrow the request", head_share: float = 0.7) -> str:
        """The stream as text within `budget` bytes (`head_share` of it from the start), with a note
        saying what was cut and `hint` on how to get less."""
        known = bytes(self.head) + bytes(self.tail)
        if self.total <= budget:
            return known.decode("utf-8", errors="replace")
        head_n = int(budget * head_share)
        tail_n = budget - head_n
        first, last = known[:head_n], known[-tail_n:] if tail_n > 0 else b""
        omitted = self.total - len(first) - len(last)
        return (first.decode("utf-8", errors="replace")
                + f"\n[... {omitted} bytes of {what} omitted (of {self.total}); showing the first {len(first)} and "
                  f"last {len(last)}. {hint} ...]\n"
                + last.decode("utf-8", errors="replace"))


async def pump(stream: Any, cap: Capture) -> None:
    """Feed everything `stream` (an asyncio.StreamReader, or None) delivers into `cap`."""
    if stream is not None:
        while chunk := await stream.read(65536):
            cap.feed(chunk)


async def end_group(proc: Any, pumps: Any) -> None:
    """Kill the process group a command started (nothing it spawned survives, also on
    cancellation), wait for the process, and let its pipes drain, each bounded by DRAIN_S."""
    import asyncio

    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if proc.returncode is None:
        try:
            await asyncio.wait_for(proc.wait(), DRAIN_S)
        except TimeoutError:
            pass
    try:
        await asyncio.wait_for(asyncio.shield(pumps), DRAIN_S)
    except (TimeoutError, asyncio.CancelledError):
        pumps.cancel()


@record
class Finished:
    code: int | None
    out: Capture
    err: Capture
    timed_out: bool


async def run_program(argv: list[str], *, cwd: str, env: Mapping[str, str], timeout: float, keep: int) -> Finished:
    """Run `argv` to its end or the deadline; its process group is killed either way."""
    import asyncio

    out, err = Capture(keep), Capture(keep)
    proc = await asyncio.create_subprocess_exec(
        *argv, cwd=cwd, env=dict(env), stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, start_new_session=True,
    )
    pumps = asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err))
    timed_out = False
    try:
        await asyncio.wait_for(proc.wait(), timeout)
    except TimeoutError:
        timed_out = True
    finally:
        await end_group(proc, pumps)
    return Finished(proc.returncode, out, err, timed_out)


def run_program_sync(argv: list[str], *, cwd: str, env: Mapping[str, str], timeout: float, keep: int) -> tuple[int | None, str]:
    """(exit code, the first `keep` bytes of stdout) for a short call made while judging (a preview);
    killed at the deadline, stderr dropped."""
    import subprocess
    import threading

    proc = subprocess.Popen(argv, cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    timer = threading.Timer(timeout, lambda: _kill(proc.pid))
    timer.start()
    try:
        assert proc.stdout is not None
        data = proc.stdout.read(keep)
        _kill(proc.pid)
        code = proc.wait()
    finally:
        timer.cancel()
        if proc.stdout is not None:
            proc.stdout.close()
    return code, data.decode("utf-8", errors="replace")


def _kill(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
