"""`agent run`: one goal through the loop, rendered live; `--continue`/`--resume` continue a session."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from agentcli.cli.profile_load import load, load_routed  # noqa: F401  (chat imports load from here)
from agentcli.core import aio
from agentcli.core.errors import UsageError
from agentcli.core.events import StopReason

APPROVE_MODES = ("ask", "edits", "all")
MAX_GOAL_BYTES = 1 << 20  # a goal read from stdin; more is a mistake (a file piped by accident)


def choose_approver(yes: bool, approve: str | None, unsandboxed: bool = False) -> tuple[Any, str]:
    from agentcli.agent.approval import PolicyApprover

    mode = "all" if yes else (approve or "ask")
    if mode not in APPROVE_MODES:
        raise UsageError(f"--approve {mode!r} is not one of {', '.join(APPROVE_MODES)}")
    if unsandboxed and mode != "all":
        raise UsageError("--dangerously-run-unsandboxed only changes what --yes approves",
                         hint="add --yes, or leave the flag out and approve each command yourself")
    if mode == "all":
        return PolicyApprover(approve_all=True, allow_uncontained=unsandboxed), mode
    if sys.stdin.isatty():
        from agentcli.ui.approve import TerminalApprover

        return TerminalApprover(), mode
    return PolicyApprover(approve_all=False), mode


def read_goal(goal: str | None, continuing: bool) -> str | None:
    """`-` reads the goal from stdin; so does no goal at all when stdin is a pipe (not when continuing)."""
    if goal != "-" and (goal or continuing or sys.stdin.isatty()):
        return goal
    data = sys.stdin.read(MAX_GOAL_BYTES + 1)
    if len(data.encode("utf-8", "surrogateescape")) > MAX_GOAL_BYTES:
        raise UsageError(f"the goal read from stdin is over {MAX_GOAL_BYTES} bytes",
                         hint="put long material in a file in the workspace and name it in the goal")
    if not data.strip():
        raise UsageError("no goal given (stdin was empty)", hint='echo "what you want done" | agent run -')
    return data.strip()


async def drive(session: Any, approver: Any, goal: str | None, render: Any, *, keep_open: bool = False) -> Any:
    """Run one exchange; returns the Done event. With `keep_open` the HTTP client and MCP servers
    stay up on the process's loop for the chat that follows (`run -i`)."""
    from agentcli.agent.loop import Agent

    done = None
    try:
        async with contextlib.aclosing(Agent(session, approver).run(goal)) as events:  # closed here, even on error
            async for event in events:
                render(event)
                done = event
    finally:
        if not keep_open:
            close = getattr(session.provider, "aclose", None)
            if close:
                await close()
            await session.close_tool_sources()  # MCP servers live on this event loop: stop them with it
    return done


def _saved(resume: str | None, continue_: bool, workspace: Path | None) -> Any:
    from agentcli.agent.store import find_session, load_session
    from agentcli.agent.workspace import resolve_workspace

    if continue_ and resume:
        raise UsageError("--continue and --resume both name a session", hint="use one of them")
    here = resolve_workspace(workspace)
    path = find_session(None, workspace=here) if continue_ or resume == "last" else find_session(resume)
    return load_session(path)


def _renderer(json_out: bool, quiet: bool) -> Any:
    if json_out and quiet:
        raise UsageError("--json and --quiet both choose the output", hint="use one of them")
    if json_out:
        from agentcli.ui.render import JsonRenderer

        return JsonRenderer()
    if quiet:
        from agentcli.ui.quiet import QuietRenderer

        return QuietRenderer()
    from agentcli.ui.render import TerminalRenderer

    return TerminalRenderer()


def _closed_pipe(session: Any) -> int:
    import os

    if session.transcript:
        session.transcript.close()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    os.close(devnull)
    return 141  # 128 + SIGPIPE, as a shell reports a pipeline member the reader left


def execute(
    goal: str | None = None, profile: str | None = None, workspace: Path | None = None, tier: str | None = None,
    yes: bool = False, approve: str | None = None, json_out: bool = False, resume: str | None = None,
    interactive: bool = False, max_turns: int | None = None, model: str | None = None, unsandboxed: bool = False,
    continue_: bool = False, quiet: bool = False,
) -> int:
    from agentcli.agent.build import open_session
    from agentcli.cli.errors import EXIT_CODES
    from agentcli.core.events import SessionStarted
    from agentcli.ui.header import facts
    from agentcli.ui.render import make_console

    render = _renderer(json_out, quiet)
    continuing = bool(resume or continue_)
    goal = read_goal(goal, continuing)
    approver, mode = choose_approver(yes, approve, unsandboxed)
    if unsandboxed:
        make_console(stderr=True).print("! --dangerously-run-unsandboxed: where the OS sandbox cannot "
                                        "start, shell commands run with your full permissions, unasked", style="bold red")
    saved = None
    start = None
    if continuing:
        saved = _saved(resume, continue_, workspace)
        profile = profile or saved.meta.get("profile_ref") or saved.meta.get("profile")
        workspace = workspace or (Path(saved.meta["workspace"]) if saved.meta.get("workspace") else None)
        start = saved.meta.get("tier")  # where the saved session was; --tier still caps it
        model = model or saved.meta.get("model")  # the session's model unless -m says otherwise
    elif not goal:
        raise UsageError("no goal given", hint='agent run "what you want done" --profile NAME')
    prof, rule = load_routed(profile, workspace, model, max_turns)
    if start and tier:
        from agentcli.core.types import Tier

        start = min(Tier.parse(start), Tier.parse(tier)).label
    # --tier is the cap; the run starts at the profile's start_tier and rises through the tier
    # checkpoint, unasked up to what --approve edits (walk) or --yes / --approve all (the cap) grant.
    session = open_session(
        prof, workspace, tier=start, cap=tier, goal=goal or (saved.meta.get("goal") if saved else None),
        approve_mode=mode, interactive=sys.stdin.isatty() and not yes,
        session_id=saved.id if saved else None,
    )
    if saved is not None:
        session.history, session.ledger = saved.history, saved.ledger
        if saved.skipped_lines:
            make_console(stderr=True).print(f"! skipped {saved.skipped_lines} torn line(s) in the transcript", style="yellow")
    start = facts(session, resumed=saved is not None)
    start["provider_rule"] = rule
    if not quiet:
        render(SessionStarted(start))
    elif start["warning"]:
        sys.stderr.write(f"agent: warning: {start['warning']}\n")
    try:
        chat_after = interactive and sys.stdin.isatty()
        done = aio.run(drive(session, approver, goal, render, keep_open=chat_after))
    except BrokenPipeError:  # `agent run --json | head -1`: the reader left; end quietly
        return _closed_pipe(session)
    except KeyboardInterrupt:
        if not session.ended:  # a second Ctrl-C can cut the loop's own cleanup short
            session.end(StopReason.INTERRUPTED, "interrupted")
        if session.transcript:
            session.transcript.close()
        sys.stderr.write(f"\nagent: interrupted; the transcript is saved. Continue with: agent run --resume {session.id}\n")
        return 130
    code = EXIT_CODES.get(done.stop, 1) if done else 1
    if chat_after:
        from agentcli.ui.repl import run_repl

        # Same process, same loop: the chat goes on with the run's HTTP client and MCP servers.
        return run_repl(session, approver)
    if session.transcript:
        session.transcript.close()
    return code
