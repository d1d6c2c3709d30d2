"""`agent undo [SESSION]`: put back the files the last request of a session changed, and drop
that request from the conversation. Refuses, changing nothing, when a file changed since."""

from __future__ import annotations

import sys
from pathlib import Path


def execute(session: str | None = None, workspace: Path | None = None) -> int:
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
    from rich.text import Text

    from agentcli.ui.render import make_console

    err = make_console(stderr=True)
    line = Text(f"undid the last request of session {saved.id}", style="green")
    err.print(line)
    for rel in report.restored:
        err.print(Text("  restored ") + Text(rel, style="bold"))
    for rel in report.removed:
        err.print(Text("  removed ") + Text(rel, style="bold") + Text(" (the agent had created it)", style="dim"))
    if not report.restored and not report.removed:
        err.print(Text("  no files had changed; the request was dropped from the conversation", style="dim"))
    sys.stderr.flush()
    return 0
