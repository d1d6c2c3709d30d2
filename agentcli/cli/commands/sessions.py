"""`agent sessions [--all]`: what can be continued, newest first, for this workspace by default."""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from agentcli.agent.catalog import SessionEntry


def _when(t: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M", time.localtime(t)) if t else ""


WIDE = 110  # below this, one session takes two lines instead of a cropped table row


def _cells(s: SessionEntry) -> dict[str, Text]:
    from rich.text import Text

    from agentcli.core.escape import visible

    stop = (s.end or {}).get("stop")
    return {
        "id": Text(s.id, style="bold"), "updated": Text(_when(s.updated)),
        "model": Text(visible(str(s.meta.get("model") or ""), keep_newlines=False)),
        "workspace": Text(visible(s.workspace, keep_newlines=False), style="dim"),
        "goal": Text(visible(str(s.meta.get("goal") or ""), keep_newlines=False)),
        "ended": Text(str(stop)) if stop else Text("interrupted", style="yellow"),
    }


def _wide(console: Console, sessions: list[SessionEntry], show_ws: bool) -> None:
    from rich.table import Table

    table = Table(box=None, pad_edge=False)
    names = ["id", "updated", "model", *(["workspace"] if show_ws else []), "goal", "ended"]
    for name in names:
        table.add_column(name, no_wrap=True, overflow="ellipsis" if name in ("goal", "workspace") else "fold",
                         min_width=len(sessions[0].id) if name == "id" else None)
    for s in sessions:
        cells = _cells(s)
        table.add_row(*(cells[n] for n in names))
    console.print(table, soft_wrap=False)


def _narrow(console: Console, sessions: list[SessionEntry], show_ws: bool) -> None:
    """Full id, time and model on the first line; how it ended, the goal (and folder) indented below."""
    from rich.text import Text

    for s in sessions:
        c = _cells(s)
        console.print(Text.assemble(c["id"], "  ", c["updated"], "  ", c["model"]), soft_wrap=False, overflow="fold")
        if show_ws:
            console.print(Text("  ") + c["workspace"], soft_wrap=False, overflow="ellipsis", no_wrap=True)
        console.print(Text.assemble("  ", c["ended"], " · ", c["goal"]), soft_wrap=False, overflow="ellipsis",
                      no_wrap=True)


def _plain_lines(sessions: list[SessionEntry], show_ws: bool, width: int) -> list[str] | None:
    """What `_narrow` prints on a console without styles, built without rich; None when a line
    needs rich (a character that is not printable ASCII, a first line that would fold)."""
    from agentcli.core.escape import visible
    from agentcli.ui.console import is_plain

    def crop(text: str) -> str:  # rich's overflow="ellipsis" on a line that may not wrap
        return text if len(text) <= width else text[:max(width - 1, 0)] + "…"

    lines = []
    for s in sessions:
        stop = (s.end or {}).get("stop")
        model = visible(str(s.meta.get("model") or ""), keep_newlines=False)
        goal = visible(str(s.meta.get("goal") or ""), keep_newlines=False)
        ended = str(stop) if stop else "interrupted"
        first = f"{s.id}  {_when(s.updated)}  {model}"
        if not all(map(is_plain, (first, goal, ended))) or len(first) > width:
            return None
        lines.append(first)
        if show_ws:
            folder = visible(s.workspace, keep_newlines=False)
            if not is_plain(folder):
                return None
            lines.append(crop("  " + folder))
        lines.append(crop(f"  {ended} · {goal}"))
    return lines


def execute(json_out: bool = False, all_: bool = False, workspace: Path | None = None) -> int:
    from agentcli.agent.catalog import list_sessions
    from agentcli.agent.workspace import resolve_workspace

    ws = None if all_ else resolve_workspace(workspace)
    sessions = list_sessions(ws)
    if json_out:
        from agentcli.core import jsonsafe

        print(jsonsafe.dumps([{
            "id": s.id, "path": str(s.path), "started": s.started, "updated": s.updated, "workspace": s.workspace,
            "goal": s.meta.get("goal"), "model": s.meta.get("model"), "provider": s.meta.get("provider"),
            "profile": s.meta.get("profile"), "stop": (s.end or {}).get("stop"),
        } for s in sessions], ensure_ascii=False))
        return 0
    if not sessions:
        from agentcli.ui.console import print_line

        where = "" if ws is None else f" for {ws}"
        print_line(f"no sessions{where} yet" + ("" if ws is None else " (--all lists every workspace)"))
        return 0
    from agentcli.ui.console import is_plain, plain_width

    footer = "" if ws is None else f"sessions for {ws}; continue the latest with `agent run -c`"
    width = plain_width()
    if width is not None and width < WIDE and is_plain(footer or "-"):
        lines = _plain_lines(sessions, ws is None, width)
        if lines is not None:  # no styles, nothing to fold: the bytes rich would write, without rich
            import sys

            sys.stdout.write("".join(line + "\n" for line in [*lines, *([footer] if footer else [])]))
            return 0
    from rich.text import Text

    from agentcli.ui.console import make_console

    console = make_console()
    if console.width < WIDE:
        _narrow(console, sessions, show_ws=ws is None)
    else:
        _wide(console, sessions, show_ws=ws is None)
    if ws is not None:
        console.print(Text(footer, style="dim"))
    return 0
