"""background: start a long-running command (a dev server, a watcher) and come back to it.

`start` returns an id; `status` lists the processes (or one), `logs` tails one's output, `stop`
ends it. Contained and judged like bash (the OS sandbox, the profile's shell rules); every
process is stopped when the session ends and listed in the run summary (`tools/procs.py`).
"""

from __future__ import annotations

import os
import shutil
from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_int, arg_str

ACTIONS = ("start", "status", "logs", "stop")
STARTUP_S = 0.5  # how long start watches for an immediate failure before it returns


class BackgroundTool(BuiltinTool):
    spec = Tool(
        name="background",
        description=(
            "Run a command in the background and manage it: start returns an id; status lists the processes, "
            "logs shows the last lines of one's output, stop ends it.\n"
            "Use it when: a program must keep running while you do other things (a dev server to test against, "
            "a file watcher, a long build whose log you check later).\n"
            "Do not use it for commands that finish on their own (use bash). Edge cases: it runs in the same "
            "sandbox as bash (workspace only, network as the profile says); processes are stopped when the session "
            "ends; output keeps the last 256 KB.\n"
            'Example: {"action": "start", "command": "python3 -m http.server 8000"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(ACTIONS), "description": "start, status, logs or stop."},
                "command": {"type": "string", "description": "start: the bash command line to run."},
                "id": {"type": "string", "description": "status, logs, stop: the id start returned (bg1, ...)."},
                "lines": {"type": "integer", "minimum": 1, "maximum": 500,
                          "description": "logs: how many of the last lines to show (default 50)."},
                "working_directory": {"type": "string",
                                      "description": "start: folder to run in, relative to the workspace root."},
            },
            "required": ["action"],
            "additionalProperties": False,
        },
        tier=Tier.RUN,
        read_only=False,
        needs_approval=True,
        runs_commands=True,
        sandboxed=True,
    )
    changes_files = False  # what a server writes later is not recorded for undo; the approval says so

    @staticmethod
    def _table(ctx: ToolContext) -> Any:
        from agentcli.tools.procs import ProcessTable

        return ctx.kept("background.processes", ProcessTable)

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        action = arg_str(args, "action", choices=ACTIONS)
        if action != "start":
            return Judgement.allow()
        from agentcli.tools.builtin.bash import TOOL as BASH

        command = arg_str(args, "command")
        verdict = BASH.judge({"command": command, "working_directory": args.get("working_directory")}, ctx)
        note = "\n(runs in the background until stopped or the session ends; changes it makes are not undoable)"
        return Judgement(verdict.decision, verdict.preview + note if verdict.preview else "", verdict.reason,
                         verdict.hint)

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        action = arg_str(args, "action", choices=ACTIONS)
        table = self._table(ctx)
        if action == "start":
            return await self._start(args, ctx, table)
        if action == "status":
            if args.get("id") is None:
                return "\n".join(table.summary()) or "No background processes."
            bg = table.get(arg_str(args, "id"))
            return f"{bg.id}: {bg.command}\n{bg.state()}, {bg.total} bytes of output"
        bg = table.get(arg_str(args, "id"))
        if action == "logs":
            lines = arg_int(args, "lines", 50, lo=1, hi=500)
            return f"{bg.id} ({bg.state()}):\n" + bg.tail(lines, ctx.budget)
        await table.stop(bg)
        return f"Stopped {bg.id} ({bg.state()}). Last output:\n" + bg.tail(10, max(200, ctx.budget // 4))

    async def _start(self, args: dict[str, Any], ctx: ToolContext, table: Any) -> str:
        import asyncio

        from agentcli.tools import bwrap
        from agentcli.tools.builtin.bash import TOOL as BASH
        from agentcli.tools.procs import CPU_SECONDS
        from agentcli.tools.sandbox_env import build_env
        from agentcli.tools.shell_rules import judge

        command = arg_str(args, "command")
        if not command.strip():
            raise ToolFailure.of(ErrorCode.VALIDATION, "command is empty", "Pass the command line to run.")
        if judge(command, ctx.bash).decision == "deny":
            raise ToolFailure.of(ErrorCode.PERMISSION, "the profile's shell rules deny this command",
                                 "Do something else; this command will not be run.")
        state = await asyncio.to_thread(bwrap.status)
        if not state.available:
            raise ToolFailure.of(ErrorCode.PERMISSION, f"background processes need the OS sandbox, which cannot start "
                                 f"here ({state.detail})", "Run the command with bash instead, or see `agent doctor`.")
        root = str(ctx.workspace.root)
        refusal = bwrap.workspace_refusal(root)
        if refusal:
            raise ToolFailure.of(ErrorCode.PERMISSION, f"commands cannot run here: {refusal}",
                                 "Run agentcli in a project folder outside its own config, data and cache dirs.")
        cwd = BASH._cwd(args, ctx)
        env, _dropped = build_env(os.environ, None, env_allow=ctx.bash.env_allow, key_names=ctx.key_env)
        shell = shutil.which("bash") or "/bin/sh"
        with bwrap.sandbox_argv([shell, "-c", command], workspace=root, cwd=cwd, network=ctx.bash.network,
                                state=state, config=ctx.bash) as (argv, fds):
            bg = await table.start(argv, command=command, cwd=cwd, env=env, fds=fds,
                                   preexec=bwrap.limits(CPU_SECONDS, config=ctx.bash))
        try:
            await asyncio.wait_for(bg.proc.wait(), STARTUP_S)
        except TimeoutError:
            return (f"Started {bg.id}: {command}\nIt is running; check it with action logs or status (id {bg.id}), "
                    f"end it with action stop.")
        await asyncio.sleep(0.05)  # let the pump take the last output
        return f"{bg.id} ended at once ({bg.state()}). Output:\n" + bg.tail(50, ctx.budget)


TOOL = BackgroundTool()
