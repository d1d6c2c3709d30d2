"""`agent sessions [--all]`: what can be continued, newest first, for this workspace by default."""

from __future__ import annotations

import json
import time
from pathlib import Path


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else ""


def execute(json_out: bool = False, all_: bool = False, workspace: Path | None = None) -> int:
    from agentcli.agent.build import resolve_workspace
    from agentcli.agent.store import list_sessions

    ws = None if all_ else resolve_workspace(workspace)
    sessions = list_sessions(ws)
    if json_out:
        print(json.dumps([{
            "id": s.id, "path": str(s.path), "started": s.started, "updated": s.updated, "workspace": s.workspace,
            "goal": s.meta.get("goal"), "model": s.meta.get("model"), "provider": s.meta.get("provider"),
            "profile": s.meta.get("profile"), "stop": (s.end or {}).get("stop"),
        } for s in sessions], ensure_ascii=False))
        return 0
    from rich.table import Table
    from rich.text import Text

    from agentcli.ui.escape import visible
    from agentcli.ui.render import make_console

    console = make_console()
    if not sessions:
        where = "" if ws is None else f" for {ws}"
        console.print(Text(f"no sessions{where} yet" + ("" if ws is None else " (--all lists every workspace)")))
        return 0
    table = Table(box=None, pad_edge=False)
    table.add_column("id", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    if ws is None:
        table.add_column("workspace", overflow="fold", ratio=1)
    table.add_column("model", overflow="fold")
    table.add_column("goal", overflow="ellipsis", no_wrap=True, ratio=2)
    table.add_column("ended", no_wrap=True)
    for s in sessions:
        goal = visible(str(s.meta.get("goal") or ""), keep_newlines=False)
        stop = (s.end or {}).get("stop")
        row = [Text(s.id), Text(_when(s.updated))]
        if ws is None:
            row.append(Text(visible(s.workspace)))
        row += [Text(visible(str(s.meta.get("model") or ""))), Text(goal),
                Text(str(stop)) if stop else Text("interrupted", style="yellow")]
        table.add_row(*row)
    console.print(table)
    if ws is not None:
        console.print(Text(f"sessions for {ws}; continue the latest with `agent run -c`", style="dim"))
    return 0
