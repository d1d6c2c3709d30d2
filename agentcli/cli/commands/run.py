"""`agent run`: one goal through the loop, rendered live; `--resume` continues a session."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from agentcli.core.errors import UsageError

APPROVE_MODES = ("ask", "edits", "all")


def load(profile_ref: str | None, workspace: Path | None, model: str | None, max_turns: int | None) -> Any:
    """Load a profile, print its warnings, apply command-line overrides."""
    from agentcli.config import load_profile
    from agentcli.ui.escape import styled
    from agentcli.ui.render import make_console

    loaded = load_profile(profile_ref, workspace=workspace, interactive=sys.stdin.isatty())
    err = make_console(stderr=True)
    for w in loaded.warnings:
        err.print(styled(("! ", "yellow"), (str(w), "yellow")))
    profile = loaded.profile
    if model:
        profile.model = model
    if max_turns:
        profile.limits.max_turns = max_turns
    return profile


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


async def drive(session: Any, approver: Any, goal: str | None, render: Any) -> Any:
    """Run one exchange; returns the Done event."""
    from agentcli.agent.loop import Agent

    done = None
    try:
        async for event in Agent(session, approver).run(goal):
            render(event)
            done = event
    finally:
        close = getattr(session.provider, "aclose", None)
        if close:
            await close()
        await session.close_tool_sources()  # MCP servers live on this event loop: stop them with it
    return done


def execute(
    goal: str | None = None, profile: str | None = None, workspace: Path | None = None, tier: str | None = None,
    yes: bool = False, approve: str | None = None, json_out: bool = False, resume: str | None = None,
    interactive: bool = False, max_turns: int | None = None, model: str | None = None, unsandboxed: bool = False,
) -> int:
    from agentcli.agent.build import open_session
    from agentcli.cli.errors import EXIT_CODES
    from agentcli.ui.render import JsonRenderer, TerminalRenderer, make_console

    approver, mode = choose_approver(yes, approve, unsandboxed)
    if unsandboxed:
        make_console(stderr=True).print("! --dangerously-run-unsandboxed: where the OS sandbox cannot "
                                        "start, shell commands run with your full permissions, unasked", style="bold red")
    saved = None
    if resume is not None:
        from agentcli.agent.store import find_session, load_session

        saved = load_session(find_session(resume))
        profile = profile or saved.meta.get("profile_ref") or saved.meta.get("profile")
        workspace = workspace or (Path(saved.meta["workspace"]) if saved.meta.get("workspace") else None)
        tier = tier or saved.meta.get("tier")
    elif not goal:
        raise UsageError("no goal given", hint='agent run "what you want done" --profile NAME')
    prof = load(profile, workspace, model, max_turns)
    session = open_session(
        prof, workspace, tier=tier, goal=goal or (saved.meta.get("goal") if saved else None),
        approve_mode=mode, interactive=sys.stdin.isatty() and not yes,
        session_id=saved.id if saved else None,
    )
    if yes and tier:
        session.max_tier = min(session.max_tier, session.tier)  # --yes never raises the tier above --tier
    if saved is not None:
        session.history = saved.history
        if saved.skipped_lines:
            make_console(stderr=True).print(f"! skipped {saved.skipped_lines} torn line(s) in the transcript", style="yellow")
    render = JsonRenderer() if json_out else TerminalRenderer()
    try:
        done = asyncio.run(drive(session, approver, goal, render))
    except KeyboardInterrupt:
        if session.transcript:
            session.transcript.close()
        sys.stderr.write(f"\nagent: interrupted; the transcript is saved. Resume with: agent run --resume {session.id}\n")
        return 130
    code = EXIT_CODES.get(done.stop, 1) if done else 1
    if interactive and sys.stdin.isatty():
        from agentcli.providers import create
        from agentcli.ui.repl import run_repl

        # The run's event loop is gone and its HTTP client closed with it: the chat gets a fresh one.
        session.provider = create(session.profile)
        return run_repl(session, approver)
    if session.transcript:
        session.transcript.close()
    return code
