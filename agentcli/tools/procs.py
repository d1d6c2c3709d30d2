"""Background processes for one session: started in the OS sandbox, logged to a bounded buffer,
listed, tailed and stopped; every one of them is stopped when the session closes.

Contained exactly like a bash command (the public entry points of `tools/bwrap.py`: its
mounts, namespaces, seccomp filter and resource limits, with `--die-with-parent`), but it
outlives the call that started it. Where the sandbox cannot start, nothing is started (a
long-running program outside it would run unwatched). Output (stdout and stderr together)
is kept as the last `LOG_KEEP` bytes; the total is counted.
"""

from __future__ import annotations

import asyncio
import os
import signal
import time
from dataclasses import field

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.record import record

LOG_KEEP = 256 * 1024
MAX_PROCESSES = 8
CPU_SECONDS = 3600.0  # CPU time a background process may use (a dev server idles most of the time)
STOP_GRACE_S = 3.0


@record
class Background:
    """One process: its id, command, the kept tail of its output, and how it ended."""

    id: str
    command: str
    proc: asyncio.subprocess.Process
    started: float = field(default_factory=time.monotonic)
    log: bytearray = field(default_factory=bytearray)
    total: int = 0
    stopped_by_us: bool = False
    pump: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self.proc.returncode is None

    def feed(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self.log += chunk
        if len(self.log) > LOG_KEEP:
            del self.log[: len(self.log) - LOG_KEEP]

    def state(self) -> str:
        if self.running:
            return f"running for {time.monotonic() - self.started:.0f} s"
        how = "stopped" if self.stopped_by_us else "exited"
        return f"{how} (exit code {self.proc.returncode})"

    def tail(self, lines: int, budget: int) -> str:
        text = self.log.decode("utf-8", errors="replace")
        cut = "\n".join(text.splitlines()[-lines:])
        data = cut.encode("utf-8")
        if len(data) > budget:
            cut = data[-budget:].decode("utf-8", errors="ignore")
        older = self.total - len(cut.encode("utf-8"))
        return (f"[... {older} earlier bytes not shown ...]\n" if older > 0 else "") + (cut or "(no output yet)")


class ProcessTable:
    """The session's background processes (kept on the tool context; closed with the session)."""

    def __init__(self) -> None:
        self.procs: dict[str, Background] = {}
        self._next = 1

    def get(self, pid: str) -> Background:
        bg = self.procs.get(pid)
        if bg is None:
            known = ", ".join(self.procs) or "none"
            raise ToolFailure.of(ErrorCode.NOT_FOUND, f"there is no background process {pid!r} (started: {known})",
                                 "Use the id that start returned, or action status to list them.")
        return bg

    async def start(self, argv: list[str], *, command: str, cwd: str, env: dict[str, str],
                    fds: tuple[int, ...], preexec: object) -> Background:
        if sum(p.running for p in self.procs.values()) >= MAX_PROCESSES:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"{MAX_PROCESSES} background processes are already running",
                                 "Stop one first (action stop).")
        proc = await asyncio.create_subprocess_exec(
            *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True, pass_fds=fds,
            preexec_fn=preexec,  # type: ignore[arg-type]
        )
        bg = Background(f"bg{self._next}", command, proc)
        self._next += 1
        bg.pump = asyncio.ensure_future(self._pump(bg))
        self.procs[bg.id] = bg
        return bg

    @staticmethod
    async def _pump(bg: Background) -> None:
        stream = bg.proc.stdout
        if stream is None:
            return
        while chunk := await stream.read(65536):
            bg.feed(chunk)

    async def stop(self, bg: Background) -> None:
        """SIGTERM to the group, then SIGKILL after a grace period; the sandbox ends with bwrap."""
        if bg.running:
            bg.stopped_by_us = True
            _signal(bg.proc.pid, signal.SIGTERM)
            try:
                await asyncio.wait_for(bg.proc.wait(), STOP_GRACE_S)
            except TimeoutError:
                pass
        _signal(bg.proc.pid, signal.SIGKILL)
        if bg.running:
            try:
                await asyncio.wait_for(bg.proc.wait(), STOP_GRACE_S)
            except TimeoutError:
                pass
        if bg.pump is not None:
            try:
                await asyncio.wait_for(asyncio.shield(bg.pump), 1.0)
            except (TimeoutError, asyncio.CancelledError):
                bg.pump.cancel()

    def summary(self) -> list[str]:
        """One line per process, for the run summary."""
        return [f"{bg.id}: {bg.command[:80]} ({bg.state()})" for bg in self.procs.values()]

    async def aclose(self) -> None:
        """Stop every process (the session is closing)."""
        for bg in list(self.procs.values()):
            await self.stop(bg)

    def close_now(self) -> None:
        """Kill every process at once, without an event loop (interpreter exit)."""
        for bg in self.procs.values():
            if bg.running:
                _signal(bg.proc.pid, signal.SIGKILL)


def _signal(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass
