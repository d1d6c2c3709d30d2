"""`agent chat` (and bare `agent`): an interactive session, new or continued, optionally with a first message."""

from __future__ import annotations

import sys
from pathlib import Path

from agentcli.core.errors import UsageError


def execute(profile: str | None = None, workspace: Path | None = None, tier: str | None = None,
            model: str | None = None, resume: str | None = None, continue_: bool = False,
            message: str | None = None) -> int:
    from agentcli.agent.build import open_session
    from agentcli.cli.commands.run import _saved, choose_approver, load
    from agentcli.ui.repl import run_repl

    if not sys.stdin.isatty():
        raise UsageError("agent chat needs a terminal",
                         hint='for scripts use: agent run "goal" --json (agent --help lists every command)')
    saved = None
    if resume or continue_:
        saved = _saved(resume, continue_, workspace)
        profile = profile or saved.meta.get("profile_ref") or saved.meta.get("profile")
        workspace = workspace or (Path(saved.meta["workspace"]) if saved.meta.get("workspace") else None)
        tier = tier or saved.meta.get("tier")
        model = model or saved.meta.get("model")
    prof = load(profile, workspace, model, None)
    approver, mode = choose_approver(False, None)
    session = open_session(prof, workspace, tier=tier, approve_mode=mode, interactive=True,
                           goal=saved.meta.get("goal") if saved else message,
                           session_id=saved.id if saved else None)
    if saved is not None:
        session.history, session.ledger = saved.history, saved.ledger
    return run_repl(session, approver, first=message)
