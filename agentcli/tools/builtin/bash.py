"""bash: one shell command in its own process group, inside the workspace, with bounded output.

The whole group is killed on timeout, on cancellation and when the command ends (no
background process outlives its call). stdin is /dev/null, the environment is scrubbed
of secrets (also the agent's own, as /proc/$PPID/environ shows it), and with
`network = false` the command runs in an empty network namespace.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import time
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_int, arg_str
from agentcli.tools.isolation import (
    capability_drop_prefix,
    ensure_process_protected,
    probe_network_isolation,
    scrub_env,
)
from agentcli.tools.shell_rules import judge

MAX_TIMEOUT_S = 600
DRAIN_S = 2.0  # after the group is killed, how long to wait for the pipes to close


class _Capture:
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

    def render(self, budget: int, name: str) -> str:
        """The stream as text within `budget` bytes, with a note saying what was cut."""
        known = bytes(self.head) + bytes(self.tail)
        if self.total <= budget:
            return known.decode("utf-8", errors="replace")
        head_n = int(budget * 0.6)
        tail_n = budget - head_n
        first, last = known[:head_n], known[-tail_n:] if tail_n > 0 else b""
        omitted = self.total - len(first) - len(last)
        return (first.decode("utf-8", errors="replace")
                + f"\n[... {omitted} bytes of {name} omitted (of {self.total}); showing the first {len(first)} and "
                  f"last {len(last)}. Narrow the command, e.g. pipe through head, tail or grep ...]\n"
                + last.decode("utf-8", errors="replace"))


async def _pump(stream: asyncio.StreamReader | None, cap: _Capture) -> None:
    if stream is None:
        return
    while chunk := await stream.read(65536):
        cap.feed(chunk)


async def _exited(proc: asyncio.subprocess.Process, timeout: float) -> bool:
    """Wait for the shell itself to exit; False on timeout.

    Not `proc.wait()`: before Python 3.12 it also waits for the pipes to close, which a
    background child holding stdout would delay until the timeout.
    """
    deadline = time.monotonic() + timeout
    pause = 0.002
    while proc.returncode is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)
    return True


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class Bash(BuiltinTool):
    spec = Tool(
        name="bash",
        description=(
            "Run one bash command in the workspace and get its exit code, stdout and stderr.\n"
            "Use it when: you need to run tests, build, use git, or run a program; or for a file operation the "
            "file tools do not cover (moving or deleting files).\n"
            "Do not use it to read, search, list or edit files when read_file, search, list_files or edit_file "
            "can do it; they are safer and their output is easier to use. Edge cases: there is no input (stdin "
            "is empty), so interactive programs fail or hang until the timeout; every process the command starts "
            "is killed when it ends or times out; long output is cut in the middle with a note; secret environment "
            "variables are removed, and the network may be off by profile.\n"
            'Example: {"command": "python -m pytest tests/test_parser.py -x -q", "timeout_seconds": 120}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The bash command line to run."},
                "working_directory": {
                    "type": "string",
                    "description": "Directory to run in, relative to the workspace root (default: the root).",
                },
                "timeout_seconds": {
                    "type": "integer",
                    "description": "Seconds before the command and all its children are killed (default from "
                                   "the profile, 120 unless set).",
                    "minimum": 1,
                    "maximum": MAX_TIMEOUT_S,
                },
                "env": {
                    "type": "object",
                    "description": "Extra environment variables as name: value strings (secret-looking names "
                                   "are ignored).",
                    "additionalProperties": {"type": "string"},
                },
            },
            "required": ["command"],
            "additionalProperties": False,
        },
        tier=Tier.RUN,
        read_only=False,
        needs_approval=True,
        runs_commands=True,
    )

    def _cwd(self, args: dict[str, Any], ctx: ToolContext) -> str:
        wd = arg_str(args, "working_directory", ".")
        real = ctx.workspace.resolve(wd, write=False)
        if not real.is_dir():
            raise ToolFailure.of(ErrorCode.VALIDATION, f"working_directory {wd!r} is not a directory",
                                 "Pass a folder inside the workspace.")
        return str(real)

    def _env_arg(self, args: dict[str, Any]) -> dict[str, str]:
        env = args.get("env") or {}
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and k and "=" not in k and "\x00" not in k + v
            for k, v in env.items()
        ):
            raise ToolFailure.of(ErrorCode.VALIDATION, "env must map variable names to string values",
                                 'Pass env like {"DEBUG": "1"}.', argument="env")
        return env

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        command = arg_str(args, "command")
        if not command.strip():
            raise ToolFailure.of(ErrorCode.VALIDATION, "command is empty", "Pass the command line to run.")
        verdict = judge(command, ctx.bash)
        if verdict.decision == "deny":
            raise ToolFailure.of(ErrorCode.PERMISSION, f"the profile's shell rules deny this command: {verdict.reason}",
                                 "Do something else; this command will not be run.")
        cwd = self._cwd(args, ctx)
        timeout = arg_int(args, "timeout_seconds", None, lo=1, hi=MAX_TIMEOUT_S) or ctx.bash.timeout_seconds
        env, dropped = scrub_env(os.environ, self._env_arg(args), ctx.bash.env_allow)
        shell = shutil.which("bash") or "/bin/sh"
        argv: list[str] = [shell, "-c", command]
        if not ctx.bash.network:
            prefix, why = await asyncio.to_thread(probe_network_isolation)
            if prefix is None:
                raise ToolFailure.of(
                    ErrorCode.PERMISSION,
                    f"the profile turns the network off for bash, but network isolation is unavailable: {why}",
                    "Ask the user to set `network = true` under [profiles.NAME.bash], or to run where unshare works.",
                )
            argv = [*prefix, *argv]
        argv = [*await asyncio.to_thread(capability_drop_prefix), *argv]
        return await self._spawn(argv, cwd, env, float(timeout), ctx, dropped)

    async def _spawn(self, argv: list[str], cwd: str, env: dict[str, str], timeout: float,
                     ctx: ToolContext, dropped: list[str]) -> str:
        keep = max(1024, ctx.budget)
        out, err = _Capture(keep), _Capture(keep)
        ensure_process_protected()  # the shell must not read our keys from /proc/$PPID/environ
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True,
            )
        except OSError as exc:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"could not start the shell: {exc}") from None
        pumps = asyncio.gather(_pump(proc.stdout, out), _pump(proc.stderr, err))
        try:
            timed_out = not await _exited(proc, timeout)
        finally:
            _kill_group(proc.pid)  # also on cancellation: nothing the command started survives it
            if proc.returncode is None:
                try:
                    await asyncio.wait_for(proc.wait(), DRAIN_S)
                except asyncio.TimeoutError:
                    pass
            try:
                await asyncio.wait_for(asyncio.shield(pumps), DRAIN_S)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                pumps.cancel()
        elapsed = time.monotonic() - started
        body = self._render(proc.returncode, out, err, ctx, elapsed, cwd)
        if dropped and ctx.result_mode == "detailed":
            body += f"\n[environment: {len(dropped)} secret-looking variables were not passed to the shell]"
        if timed_out:
            raise ToolFailure.of(
                ErrorCode.TIMEOUT,
                f"the command did not finish within {timeout:g} s and was killed with all its child processes.\n"
                f"Output so far:\n{body}",
                "Run a faster or narrower command, run it in the background with a log file, or raise "
                "timeout_seconds.", timeout_seconds=timeout,
            )
        return body

    def _render(self, code: int | None, out: _Capture, err: _Capture, ctx: ToolContext,
                elapsed: float, cwd: str) -> str:
        budget = ctx.budget
        err_budget = min(err.total, budget // 3) if out.total + err.total > budget else err.total
        out_budget = max(0, budget - err_budget)
        parts = [f"exit code: {code}"]
        if ctx.result_mode == "detailed":
            parts.append(f"time: {elapsed:.2f}s, directory: {ctx.workspace.relative(cwd)}")
        if out.total:
            parts.append(out.render(out_budget, "stdout").rstrip("\n"))
        if err.total:
            parts.append("[stderr]\n" + err.render(err_budget, "stderr").rstrip("\n"))
        if not out.total and not err.total:
            parts.append("(no output)")
        return "\n".join(parts)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        command = args.get("command") if isinstance(args.get("command"), str) else ""
        wd = args.get("working_directory") or "."
        lines = [f"$ {command}", f"(in {wd})"]
        env = args.get("env")
        if isinstance(env, dict) and env:
            lines.append("env: " + ", ".join(f"{k}={v}" for k, v in list(env.items())[:10]))
        if not ctx.bash.network:
            lines.append("(network off)")
        return "\n".join(lines)


TOOL = Bash()
