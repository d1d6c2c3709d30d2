"""The doctor report as a terminal panel; every value from a profile, server or model id is shown as text."""

from __future__ import annotations

from typing import Any


def render(report: dict[str, Any]) -> None:
    from rich.console import Group
    from rich.panel import Panel
    from rich.table import Table
    from rich.text import Text

    from agentcli.core.escape import styled
    from agentcli.ui.console import make_console

    c = make_console()
    m = report["model"]
    head = Table.grid(padding=(0, 2))
    head.add_row("profile", styled(str(report["profile"]), "  ", (str(report["source"] or ""), "dim")))
    head.add_row("provider", styled(str(report["provider"]), "  ", (str(report["url"]), "dim")))
    if report.get("provider_rule"):
        head.add_row("", styled(("chosen by: " + str(report["provider_rule"]), "dim")))
    version = ".".join(map(str, m["version"])) or "?"
    size = m.get("size_label") or (f"{m['size']}B" if m.get("size") else "?")
    head.add_row("model", styled((str(m["id"]), "bold"), "  family ", (str(m["family"]), "cyan"),
                                 f" version {version} size {size}",
                                 f" variant {m['variant']}" if m.get("variant") else "",
                                 (" (custom)", "yellow") if m.get("custom") else ""))
    caps = Table("capability", "value", "from", box=None, pad_edge=False)
    for k, v in report["capabilities"].items():
        caps.add_row(styled(str(k)), styled(str(v)), styled((str(report["capability_sources"].get(k) or "default"), "dim")))
    f = report["formats"]
    wire = Table.grid(padding=(0, 2))
    wire.add_row("tools", styled((str(f["tools"]), "bold")))
    wire.add_row("definitions", styled(str(f["definition"])))
    wire.add_row("call parser", styled(" > ".join(f["call_parser"][:4]) + (" > …" if len(f["call_parser"]) > 4 else "")))
    wire.add_row("results", styled(str(f["result"])))
    if report.get("edit_tool"):
        e = report["edit_tool"]
        wire.add_row("edit tool", styled(str(e["tool"]), "  ", (f"from {e['from']}", "dim")))
    for note in f["notes"]:
        wire.add_row("", styled((str(note), "dim")))
    checks = Table.grid(padding=(0, 1))
    for ch in report["checks"]:
        mark = styled(("!", "yellow")) if ch["warning"] else (styled(("✓", "green")) if ch["ok"] else styled(("✗", "red")))
        checks.add_row(mark, styled(f"{ch['name']}:"), styled(str(ch["detail"])))
        if ch["hint"] and not ch["ok"]:
            checks.add_row("", "", styled((f"→ {ch['hint']}", "dim")))
    parts: list[Any] = [head, "", caps, "", wire, "", checks]
    if report["learned"]:
        parts += ["", styled("learned: " + ", ".join(f"{k}={v['value']} ({v['source']})" for k, v in report["learned"].items()))]
    for w in report["warnings"]:
        parts += ["", styled((str(w), "yellow"))]
    c.print(Panel(Group(*parts), title=Text("agent doctor"), expand=False))  # a str title is read as markup
