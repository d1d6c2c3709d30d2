"""bash: one shell command, contained in the OS sandbox (`tools/bwrap.py`), with bounded output.

The command runs under bubblewrap: only the workspace writable, no network unless the
profile allows it, an environment built from an allow-list, and its own pid namespace,
so nothing it starts outlives the call (the timeout and cancellation kill the whole tree).
Where the sandbox cannot start, the loop never runs a command without a human's approval
(or the user's loud opt-out); such a command then runs with the older, weaker isolation:
an allow-listed environment and, with `network = false`, an empty network namespace.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_int, arg_str
from agentcli.tools.procio import Capture, end_group, pump

if TYPE_CHECKING:
    import asyncio

# The sandbox, the shell rules and asyncio are imported where a command runs, not here: listing the
# tools (`agent tools`, the tool table sent to a model) needs only the spec below.

MAX_TIMEOUT_S = 600
_NARROW = "Narrow the command, e.g. pipe through head, tail or grep"


async def _exited(proc: asyncio.subprocess.Process, timeout: float) -> bool:
    """Wait for the shell itself to exit; False on timeout.

    Not `proc.wait()`: before Python 3.12 it also waits for the pipes to close, which a
    background child holding stdout would delay until the timeout.
    """
    import asyncio

    deadline = time.monotonic() + timeout
    pause = 0.002
    while proc.returncode is None:
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        await asyncio.sleep(min(pause, left))
        pause = min(pause * 2, 0.05)
    return True


class Bash(BuiltinTool):
    spec = Tool(
        name="bash",
        description=(
            "Run one bash command in the workspace and get its exit code, stdout and stderr.\n"
            "Use it when: you need to run tests, build, or run a program; or for a file operation the file "
            "tools (move, copy, delete, make_dir) do not cover, such as permissions or archives.\n"
            "Do not use it to read, search, list or edit files when read_file, search, list_files or edit_file "
            "can do it; they are safer and their output is easier to use. Edge cases: there is no input (stdin "
            "is empty), so interactive programs fail or hang until the timeout; every process the command starts "
            "is killed when it ends or times out (for a server or watcher use background); long output is cut in "
            "the middle with a note; secret environment "
            "variables are removed, and the network is off unless the profile turns it on.\n"
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
                    "description": "Extra environment variables as NAME: value strings; plain names only. "
                                   "Names that change what programs run (PATH, LD_*, GIT_*, PYTHON*, BASH_ENV, "
                                   "EDITOR, ...) need the user's approval; secret-looking names are dropped.",
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
        sandboxed=True,
    )

    def _cwd(self, args: dict[str, Any], ctx: ToolContext) -> str:
        wd = arg_str(args, "working_directory", ".")
        real = ctx.workspace.resolve(wd, write=False)
        if not real.is_dir():
            raise ToolFailure.of(ErrorCode.VALIDATION, f"working_directory {wd!r} is not a directory",
                                 "Pass a folder inside the workspace.")
        return str(real)

    def _env_arg(self, args: dict[str, Any]) -> dict[str, str]:
        from agentcli.tools.sandbox_env import ENV_NAME

        env = args.get("env") or {}
        if not isinstance(env, dict) or not all(
            isinstance(k, str) and isinstance(v, str) and ENV_NAME.fullmatch(k) and "\x00" not in v
            for k, v in env.items()
        ):
            raise ToolFailure.of(ErrorCode.VALIDATION, "env must map plain variable names (letters, digits, _) "
                                 "to string values", 'Pass env like {"DEBUG": "1"}.', argument="env")
        return env

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        import asyncio

        from agentcli.tools import bwrap
        from agentcli.tools.sandbox_env import build_env
        from agentcli.tools.shell_rules import judge

        command = arg_str(args, "command")
        if not command.strip():
            raise ToolFailure.of(ErrorCode.VALIDATION, "command is empty", "Pass the command line to run.")
        extra = self._env_arg(args)
        verdict = judge(command, ctx.bash, env=extra)
        if verdict.decision == "deny":
            raise ToolFailure.of(ErrorCode.PERMISSION, f"the profile's shell rules deny this command: {verdict.reason}",
                                 "Do something else; this command will not be run.")
        cwd = self._cwd(args, ctx)
        timeout = float(arg_int(args, "timeout_seconds", None, lo=1, hi=MAX_TIMEOUT_S) or ctx.bash.timeout_seconds)
        env, dropped = build_env(os.environ, extra, env_allow=ctx.bash.env_allow, key_names=ctx.key_env)
        shell = shutil.which("bash") or "/bin/sh"
        state = await asyncio.to_thread(bwrap.status)
        if not state.available:
            argv = await self._uncontained(ctx, [shell, "-c", command])
            return await self._spawn(argv, cwd, env, timeout, ctx, dropped)
        root = str(ctx.workspace.root)
        refusal = bwrap.workspace_refusal(root)
        if refusal:
            raise ToolFailure.of(ErrorCode.PERMISSION, f"commands cannot run here: {refusal}",
                                 "Run agentcli in a project folder outside its own config, data and cache dirs.")
        with bwrap.sandbox_argv([shell, "-c", command], workspace=root, cwd=cwd, network=ctx.bash.network,
                                state=state, config=ctx.bash) as (argv, fds):
            return await self._spawn(argv, cwd, env, timeout, ctx, dropped, fds, bwrap.limits(timeout, config=ctx.bash))

    async def _uncontained(self, ctx: ToolContext, argv: list[str]) -> list[str]:
        """The weaker isolation for a human-approved command where the sandbox cannot start."""
        import asyncio

        from agentcli.tools.isolation import capability_drop_prefix, probe_network_isolation

        if not ctx.bash.network:
            prefix, why = await asyncio.to_thread(probe_network_isolation)
            if prefix is None:
                raise ToolFailure.of(
                    ErrorCode.PERMISSION,
                    f"the profile turns the network off for bash, but network isolation is unavailable: {why}",
                    "Ask the user to set `network = true` under [profiles.NAME.bash], or to install bubblewrap.",
                )
            argv = [*prefix, *argv]
        return [*await asyncio.to_thread(capability_drop_prefix), *argv]

    async def _spawn(self, argv: list[str], cwd: str, env: dict[str, str], timeout: float, ctx: ToolContext,
                     dropped: list[str], fds: tuple[int, ...] = (), preexec: Callable[[], None] | None = None) -> str:
        import asyncio

        from agentcli.tools.isolation import ensure_process_protected

        keep = max(1024, ctx.budget)
        out, err = Capture(keep), Capture(keep)
        ensure_process_protected()  # outside the sandbox, the shell must not read keys from /proc/$PPID/environ
        started = time.monotonic()
        try:
            proc = await asyncio.create_subprocess_exec(
                *argv, cwd=cwd, env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, start_new_session=True, pass_fds=fds, preexec_fn=preexec,
            )
        except OSError as exc:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"could not start the shell: {exc}") from None
        pumps = asyncio.gather(pump(proc.stdout, out), pump(proc.stderr, err))
        try:
            timed_out = not await _exited(proc, timeout)
        finally:
            await end_group(proc, pumps)  # also on cancellation: nothing the command started survives it
        elapsed = time.monotonic() - started
        body = self._render(proc.returncode, out, err, ctx, elapsed, cwd)
        if dropped and ctx.result_mode == "detailed":
            body += f"\n[environment: {len(dropped)} variables were not passed to the shell (keys or key values)]"
        if timed_out:
            raise ToolFailure.of(
                ErrorCode.TIMEOUT,
                f"the command did not finish within {timeout:g} s and was killed with all its child processes.\n"
                f"Output so far:\n{body}",
                "Run a faster or narrower command, or raise timeout_seconds. A program that must keep running "
                "(a server, a watcher) belongs in the background tool (action start): a `cmd &` here is killed "
                "when the call ends.", timeout_seconds=timeout,
            )
        return body

    def _render(self, code: int | None, out: Capture, err: Capture, ctx: ToolContext,
                elapsed: float, cwd: str) -> str:
        budget = ctx.budget
        err_budget = min(err.total, budget // 3) if out.total + err.total > budget else err.total
        out_budget = max(0, budget - err_budget)
        parts = [f"exit code: {code}"]
        if ctx.result_mode == "detailed":
            parts.append(f"time: {elapsed:.2f}s, directory: {ctx.workspace.relative(cwd)}")
        if out.total:
            parts.append(out.text(out_budget, "stdout", hint=_NARROW, head_share=0.6).rstrip("\n"))
        if err.total:
            parts.append("[stderr]\n" + err.text(err_budget, "stderr", hint=_NARROW, head_share=0.6).rstrip("\n"))
        if not out.total and not err.total:
            parts.append("(no output)")
        return "\n".join(parts)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        """The profile's shell rules on this command line (and its env): deny refuses, allow runs
        unasked, anything else asks. The OS sandbox contains it either way; this is the second layer."""
        from agentcli.tools.shell_rules import judge

        env = args.get("env")
        verdict = judge(str(args.get("command", "")), ctx.bash, env if isinstance(env, dict) else None)
        if verdict.decision == "deny":
            return Judgement.refuse(f"The shell rules refuse this command: {verdict.reason}",
                                    "Use a different command, or ask the user to change the profile's [bash] rules.")
        preview = self.preview(args, ctx)
        return Judgement.allow(preview) if verdict.decision == "allow" else Judgement.ask(preview)

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        command = args.get("command") if isinstance(args.get("command"), str) else ""
        wd = args.get("working_directory") or "."
        lines = [f"$ {command}", f"(in {wd})"]
        env = args.get("env")
        if isinstance(env, dict) and env:
            lines.append("env: " + ", ".join(f"{k}={v}" for k, v in list(env.items())[:10]))
        if not ctx.bash.network:
            lines.append("(network off)")
        from agentcli.tools import bwrap

        state = bwrap.status()
        if not state.available:
            lines.append(f"NOT SANDBOXED: {state.detail}; this command would run with your full permissions")
        return "\n".join(lines)


TOOL = Bash()
