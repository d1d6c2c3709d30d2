"""`agent diff [SESSION]`: every file change a session made, as one unified diff."""

from __future__ import annotations

import sys
from pathlib import Path


def pick_session(ref: str | None, workspace: Path | None) -> Path:
    """An id (any unique prefix), else this workspace's latest session."""
    from agentcli.agent.catalog import find_session
    from agentcli.agent.workspace import resolve_workspace

    if ref:
        return find_session(ref)
    return find_session(None, workspace=resolve_workspace(workspace))


def execute(session: str | None = None, workspace: Path | None = None, last: bool = False) -> int:
    from agentcli.agent.checkpoints import BlobStore, blob_dir, unified
    from agentcli.agent.store import load_session

    saved = load_session(pick_session(session, workspace))
    changes = saved.ledger.changes
    if last:
        mark = saved.ledger.last_exchange()
        changes = [c for c in changes if c.exchange == mark]
    text = unified(Path(saved.workspace), BlobStore(blob_dir(saved.path)), changes)
    if not text:
        sys.stderr.write(f"session {saved.id} changed no files\n")
        return 0
    if sys.stdout.isatty():
        from rich.syntax import Syntax

        from agentcli.core.escape import visible
        from agentcli.ui.render import make_console

        make_console().print(Syntax(visible(text), "diff", theme="ansi_dark", word_wrap=True))
    else:
        sys.stdout.write(text)
    return 0
