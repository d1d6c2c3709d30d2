"""Fit a rich table to the terminal by leaving out its right-most columns, instead of letting
rich squeeze every cell to an ellipsis. Callers order columns by importance, left first."""

from __future__ import annotations

from typing import Any


def fit_table(table: Any, console: Any, keep: int = 2, drop_first: tuple[str, ...] = ()) -> int:
    """Drop the columns named in `drop_first`, then right-most ones (never the first `keep`),
    until `table` fits `console.width`. Returns how many were dropped."""
    from rich.measure import Measurement

    dropped = 0
    wide = console.options.update_width(1_000_000)  # measure the natural width, not one clamped to the console
    while len(table.columns) > keep:
        table.expand = False
        width = Measurement.get(console, wide, table).maximum
        if width <= console.width:
            break
        early = [i for i, c in enumerate(table.columns) if str(c.header) in drop_first and i >= keep]
        table.columns.pop(early[0] if early else -1)
        dropped += 1
    return dropped
