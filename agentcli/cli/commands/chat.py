"""`agent chat`: an interactive session."""

from __future__ import annotations

import sys
from pathlib import Path

from agentcli.core.errors import UsageError


def execute(profile: str | None = None, workspace: Path | None = None, tier: str | None = None) -> int:
    from agentcli.agent.build import open_session
    from agentcli.cli.commands.run import choose_approver, load
    from agentcli.ui.repl import run_repl

    if not sys.stdin.isatty():
        raise UsageError("agent chat needs a terminal", hint='for scripts use: agent run "goal" --json')
    prof = load(profile, workspace, None, None)
    approver, mode = choose_approver(False, None)
    session = open_session(prof, workspace, tier=tier, approve_mode=mode, interactive=True)
    return run_repl(session, approver)
