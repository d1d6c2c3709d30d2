"""`agent diff [SESSION]`: every file change a session made, as one unified diff.

With no session, the newest session of this folder that changed a file (an unrelated question
asked later does not hide it). Changes inside folders a snapshot only fingerprints (.git,
node_modules...) are summarised per folder, never left out; `--files` names every one.
Files git runs later (hooks) are flagged on stderr.
"""

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


def nothing_here(workspace: Path | None, what: str) -> int:
    """Say plainly that this folder has no recorded change (exit 1)."""
    from agentcli.agent.workspace import resolve_workspace

    sys.stderr.write(f"nothing to {what}: no agent session has changed a file in {resolve_workspace(workspace)}\n")
    return 1


def execute(session: str | None = None, workspace: Path | None = None, last: bool = False,
            files: bool = False) -> int:
    from agentcli.agent.checkpoints import BlobStore, blob_dir, net_changes, unified, visible_path
    from agentcli.agent.hookpaths import hook_files
    from agentcli.agent.store import load_session

    if session:
        saved = load_session(pick_session(session, workspace))
        changes = saved.ledger.changes
        if last:
            mark = saved.ledger.last_exchange()
            changes = [c for c in changes if c.exchange == mark]
    else:
        from agentcli.agent.rewind import points
        from agentcli.agent.workspace import resolve_workspace

        found = points(resolve_workspace(workspace))
        if not found:
            return nothing_here(workspace, "show")
        saved = found[0].session
        changes = found[0].changes if last else saved.ledger.changes
    root = Path(saved.workspace)
    net = net_changes(changes)
    if files:
        text = "".join(f"{_status(b, a, why)} {rel or '(the workspace)'}\n" for rel, (b, a, why) in net.items())
    else:
        text = unified(root, BlobStore(blob_dir(saved.path)), changes)
    if not text:
        sys.stderr.write(f"session {saved.id} changed no files\n")
        return 0
    sys.stderr.write(f"changes made by session {saved.id}{' (its last request)' if last else ''}\n")
    hooks = hook_files(root, list(net))
    if hooks:
        sys.stderr.write("warning: git runs these changed files (hooks) or takes its settings from them on your "
                         "next git command; read them first: " + ", ".join(visible_path(h) for h in hooks) + "\n")
    if sys.stdout.isatty():
        from rich.syntax import Syntax

        from agentcli.core.escape import visible
        from agentcli.ui.render import make_console

        make_console().print(Syntax(visible(text), "diff", theme="ansi_dark", word_wrap=True))
    else:
        sys.stdout.write(text)
    return 0


def _status(before: str | None, after: str | None, why: str) -> str:
    if why:
        return "?"  # content not kept: changed, created or removed
    return "A" if before is None else "D" if after is None else "M"
