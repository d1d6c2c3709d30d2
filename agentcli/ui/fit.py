"""Fit a rich table to the terminal by leaving out its right-most columns, instead of letting
rich squeeze every cell to an ellipsis. Callers order columns by importance, left first."""

from __future__ import annotations

from typing import Any


def fit_table(table: Any, console: Any, keep: int = 2) -> int:
    """Drop right-most columns (never the first `keep`) until `table` fits `console.width`.
    Returns how many were dropped."""
    from rich.measure import Measurement

    dropped = 0
    while len(table.columns) > keep:
        table.expand = False
        width = Measurement.get(console, console.options, table).maximum
        if width <= console.width:
            break
        table.columns.pop()
        dropped += 1
    return dropped
