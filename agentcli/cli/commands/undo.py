"""`agent undo`: put back the files of this folder's latest change, across its sessions, and drop
that request from its conversation. `--list` shows the points to go back to (1 = newest),
`--to N` goes back to before point N (undoing every newer one too). `agent undo SESSION`
undoes that session's last request. Refuses, changing nothing, when a file changed since."""

from __future__ import annotations

import sys
import time
from pathlib import Path


def execute(session: str | None = None, workspace: Path | None = None, list_: bool = False,
            to: int | None = None) -> int:
    from agentcli.agent.workspace import resolve_workspace

    if session:
        if list_ or to is not None:
            from agentcli.core.errors import UsageError

            raise UsageError("--list and --to choose among this folder's points; give no session with them")
        return _undo_session(session, workspace)
    from agentcli.agent.rewind import go_back, points
    from agentcli.cli.commands.diff import nothing_here

    root = resolve_workspace(workspace)
    found = points(root)
    if list_:
        return _list(found, root)
    if not found:
        return nothing_here(workspace, "undo")
    n = 1 if to is None else to
    if not 1 <= n <= len(found):
        from agentcli.core.errors import UsageError

        raise UsageError(f"--to {n}: this folder has {len(found)} point{'s' if len(found) != 1 else ''} to go back to",
                         hint="`agent undo --list` shows them, newest first (1)")
    chosen = found[:n]
    back = go_back(root, chosen)
    from agentcli.agent.store import Transcript

    for sid, keep in back.kept.items():
        saved = next(p.session for p in chosen if p.session.id == sid)
        transcript = Transcript(saved.path)
        try:
            transcript.write("truncate", keep=keep)
            transcript.write("undo", restored=back.report.restored, removed=back.report.removed)
        finally:
            transcript.close()
    what = "the latest change" if n == 1 else f"the {n} latest changes"
    _report(f"undid {what} in this folder (session {', '.join(back.kept)})", back.report.restored, back.report.removed,
            back.report.left)
    return 0


def _undo_session(session: str, workspace: Path | None) -> int:
    from agentcli.agent.checkpoints import BlobStore, blob_dir, undo
    from agentcli.agent.store import Transcript, load_session
    from agentcli.cli.commands.diff import pick_session

    saved = load_session(pick_session(session, workspace))
    root = Path(saved.workspace)
    report = undo(root, BlobStore(blob_dir(saved.path)), saved.ledger)
    transcript = Transcript(saved.path)
    try:
        transcript.write("truncate", keep=report.keep)
        transcript.write("undo", restored=report.restored, removed=report.removed)
    finally:
        transcript.close()
    _report(f"undid the last request of session {saved.id}", report.restored, report.removed, report.left)
    return 0


def _report(title: str, restored: list[str], removed: list[str], left: list[str]) -> None:
    from rich.text import Text

    from agentcli.agent.checkpoints import visible_path
    from agentcli.ui.render import make_console

    err = make_console(stderr=True)
    err.print(Text(title, style="green"))
    for rel in restored:
        err.print(Text("  restored ") + Text(visible_path(rel), style="bold"))
    for rel in removed:
        err.print(Text("  removed ") + Text(visible_path(rel), style="bold") + Text(" (the agent had created it)", style="dim"))
    if left:
        err.print(Text(f"  left as they are (inside folders whose files are listed, not copied): {len(left)} file"
                       f"{'s' if len(left) != 1 else ''}", style="yellow"))
        for rel in left[:20]:
            err.print(Text("    " + visible_path(rel), style="yellow"))
        if len(left) > 20:
            err.print(Text(f"    and {len(left) - 20} more (`agent diff --files` before undoing lists them)", style="yellow"))
    if not restored and not removed and not left:
        err.print(Text("  no files had changed; the request was dropped from the conversation", style="dim"))
    sys.stderr.flush()


def _list(found: list, root: Path) -> int:
    from agentcli.agent.checkpoints import visible_path

    if not found:
        sys.stdout.write(f"no points to go back to: no agent session has changed a file in {root}\n")
        return 0
    for i, p in enumerate(found, 1):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(p.time)) if p.time else "?"
        paths = p.paths
        files = ", ".join(visible_path(x) for x in paths[:3]) + (f" and {len(paths) - 3} more" if len(paths) > 3 else "")
        request = visible_path(p.request)[:60]
        sys.stdout.write(f"{i:3}  {when}  {p.session.id}  {request!r}  {len(paths)} file{'s' if len(paths) != 1 else ''}: {files}\n")
    sys.stdout.write("go back with `agent undo --to N` (undoes N and every newer point)\n")
    return 0
