"""`agent chat` (and bare `agent`): an interactive session, new or continued, optionally with a first message."""

from __future__ import annotations

import sys
from pathlib import Path

from agentcli.core.errors import UsageError


def execute(profile: str | None = None, workspace: Path | None = None, tier: str | None = None,
            model: str | None = None, resume: str | None = None, continue_: bool = False,
            message: str | None = None) -> int:
    from agentcli.agent.build import open_session
    from agentcli.agent.resume import ResumeRequest, carried
    from agentcli.cli.commands.run import _warn_torn, choose_approver, load
    from agentcli.ui.repl import run_repl

    if not sys.stdin.isatty():
        raise UsageError("agent chat needs a terminal",
                         hint='for scripts use: agent run "goal" --json (agent --help lists every command)')
    request = ResumeRequest.of(resume, continue_)
    saved = request.load(workspace) if request is not None else None
    if saved is not None:
        profile, workspace, model = carried(saved, profile, workspace, model)
    prof = load(profile, workspace, model, None)
    approver, mode = choose_approver(False, None)
    # --tier here is where the chat starts; a resumed one starts where it had got to.
    session = open_session(prof, workspace, tier=tier, approve_mode=mode, interactive=True,
                           goal=None if saved is not None else message, resume=saved)
    _warn_torn(saved)
    return run_repl(session, approver, first=message)
