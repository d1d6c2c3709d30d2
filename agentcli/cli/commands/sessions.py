"""`agent sessions`: what can be resumed."""

from __future__ import annotations

import json


def execute(json_out: bool = False) -> int:
    from agentcli.agent.store import list_sessions

    sessions = list_sessions()
    if json_out:
        print(json.dumps([{"id": s.id, "path": str(s.path), "goal": s.meta.get("goal"), "model": s.meta.get("model"),
                            "profile": s.meta.get("profile"), "stop": (s.end or {}).get("stop")} for s in sessions]))
        return 0
    from rich.table import Table

    from agentcli.ui.escape import styled
    from agentcli.ui.render import make_console

    if not sessions:
        make_console().print("no sessions yet")
        return 0
    table = Table("id", "profile", "model", "goal", "ended", box=None)
    for s in sessions:
        goal = str(s.meta.get("goal") or "")[:50]
        stop = (s.end or {}).get("stop")
        table.add_row(styled(str(s.id)), styled(str(s.meta.get("profile", ""))), styled(str(s.meta.get("model", ""))),
                      styled(goal), styled(str(stop)) if stop else styled(("interrupted", "yellow")))
    make_console().print(table)
    return 0
