"""Tables fitted to the terminal lose right-hand columns, never squeeze every cell to '…'."""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table

from agentcli.ui.fit import fit_table


def _table() -> Table:
    t = Table()
    for name in ("profile", "scenario", *(f"metric{i}" for i in range(12))):
        t.add_column(name, no_wrap=True)
    t.add_row("openai-native", "read_then_edit", *(f"{i * 11}.5%" for i in range(12)))
    return t


def test_fits_by_dropping_columns_from_the_right():
    for width in (60, 120):
        out = io.StringIO()
        console = Console(file=out, width=width, no_color=True)
        t = _table()
        dropped = fit_table(t, console)
        console.print(t)
        text = out.getvalue()
        assert dropped > 0 and "…" not in text and "openai-native" in text and "read_then_edit" in text
        assert max(len(line) for line in text.splitlines()) <= width
    wide = Console(file=io.StringIO(), width=400)
    assert fit_table(_table(), wide) == 0


def test_named_columns_go_first():
    console = Console(file=io.StringIO(), width=60, no_color=True)
    t = _table()
    fit_table(t, console, drop_first=("metric0",))
    assert [str(c.header) for c in t.columns][:3] == ["profile", "scenario", "metric1"]
