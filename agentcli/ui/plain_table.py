"""A listing table's bytes for a console without styles, built without importing rich.

`agent tools` prints a rich `Table` (default heavy-head box, a left-justified title, every column
folding, sections between tiers). Piped, rich writes no styles, and the bytes depend only on the
cell strings and the width; loading rich and laying the table out is most of what the command
costs. `plain_table` computes the same bytes with rich's own layout rules (column measurement,
collapse, word wrap with folding, cell padding), restricted to what it can model exactly: cells
and title of printable ASCII (one cell per character, nothing for rich to escape or expand), a
UTF-8 stdout (rich draws an ASCII box elsewhere) and columns at least three cells wide. For
anything else it answers None and the caller draws with rich, as on a terminal. The tests compare
it with rich's own rendering over generated tables.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from agentcli.ui.console import is_plain

# rich.box.HEAVY_HEAD, the Table default: top, head row, head/body rule, body row, section rule, bottom.
_TOP = ("┏", "━", "┳", "┓")
_HEAD = ("┃", "┃", "┃")
_HEAD_RULE = ("┡", "━", "╇", "┩")
_BODY = ("│", "│", "│")
_SECTION = ("├", "─", "┼", "┤")
_BOTTOM = ("└", "─", "┴", "┘")
_PAD = 2  # the default cell padding: one space either side
_MIN_CELL = 3  # the narrowest column modelled here: the padding and one cell of text
_WORD = re.compile(r" *[^ ]+ *")  # rich._wrap.re_word on text whose only whitespace is the space


def _ratio_reduce(total: int, ratios: list[int], maximums: list[int], values: list[int]) -> list[int]:
    """rich._ratio.ratio_reduce, the same arithmetic (float division and round())."""
    ratios = [ratio if most else 0 for ratio, most in zip(ratios, maximums)]
    total_ratio = sum(ratios)
    if not total_ratio:
        return values[:]
    remaining = total
    result = []
    for ratio, most, value in zip(ratios, maximums, values):
        if ratio and total_ratio > 0:
            given = min(most, round(ratio * remaining / total_ratio))
            result.append(value - given)
            remaining -= given
            total_ratio -= ratio
        else:
            result.append(value)
    return result


def _collapse(widths: list[int], max_width: int) -> list[int]:
    """rich's Table._collapse_widths with every column wrappable: shave the widest columns first."""
    total = sum(widths)
    excess = total - max_width
    while total and excess > 0:
        widest = max(widths)
        second = max(w if w != widest else 0 for w in widths)
        difference = widest - second
        ratios = [1 if w == widest else 0 for w in widths]
        if not difference:
            break
        widths = _ratio_reduce(excess, ratios, [min(excess, difference)] * len(widths), widths)
        total = sum(widths)
        excess = total - max_width
    return widths


def _measure(text: str, max_width: int) -> int:
    """The widest a padded cell of `text` can be, as rich's Measurement.get of Padding(Text) says
    (only the maximum decides a column's width when nothing sets min_width or expand)."""
    return min(len(text) + _PAD, max_width)


def _column_widths(columns: list[list[str]], max_width: int) -> list[int]:
    """rich's Table._calculate_column_widths for flexible columns, no expand, no min_width."""
    widths = [max(_measure(t, max_width) for t in col) or 1 for col in columns]
    if sum(widths) > max_width:
        widths = _collapse(widths, max_width)
        if sum(widths) > max_width:
            widths = _ratio_reduce(sum(widths) - max_width, [1] * len(widths), widths, widths)
        widths = [max(_measure(t, w) for t in col) if w >= 1 else 0 for w, col in zip(widths, columns)]
    return widths


def _lines(text: str, width: int) -> list[str]:
    """`text` wrapped to `width` as rich's Text.wrap does with overflow="fold" and left justify:
    divide_line's break offsets (words keep their trailing spaces; a word longer than the width
    is chopped), each piece cropped or padded to the width."""
    breaks = []
    offset = 0
    for match in _WORD.finditer(text):
        start, word = match.start(), match.group()
        length = len(word.rstrip())
        if width - offset >= length:
            offset += len(word)
        elif length > width:
            chunks = [word[i:i + width] for i in range(0, len(word), width)]
            for chunk in chunks[:-1]:
                if start:
                    breaks.append(start)
                start += len(chunk)
            if start:
                breaks.append(start)
            offset = len(chunks[-1])
        elif offset and start:
            breaks.append(start)
            offset = len(word)
    cuts = [0, *breaks, len(text)]
    out = []
    for a, b in zip(cuts, cuts[1:]):
        piece = text[a:b]  # its words fit: only trailing spaces run past the width (rich strips those)
        out.append(piece[:width] if len(piece) > width else piece.ljust(width))
    return out


def _cell(text: str, width: int) -> list[str]:
    """A cell's lines: Padding(Text) sized to its text (at most the column), then to the column."""
    inner = min(len(text), width - _PAD)
    return [f" {line} ".ljust(width) for line in _lines(text, inner)]


def _rule(parts: tuple[str, str, str, str], widths: list[int]) -> str:
    left, fill, divider, right = parts
    return left + divider.join(fill * w for w in widths) + right


def plain_table(title: str, headers: Sequence[str], rows: Sequence[Sequence[str]], ends: Sequence[bool],
                width: int, encoding: str) -> str | None:
    """The bytes a style-less console `width` cells wide writes for `Table(title=title,
    title_justify="left")` with `headers` as folding columns and `rows` (`ends[i]`: a section
    ends after row i), printed with soft wrap; None when rich must draw it (see the module doc)."""
    cells = [title, *headers, *(c for row in rows for c in row)]
    n = len(headers)
    if not encoding.lower().startswith("utf") or not n or not all(map(is_plain, filter(None, cells))):
        return None
    if any(len(row) != n for row in rows):
        return None
    max_width = width - (n + 1)  # the two edges and n-1 dividers
    if max_width < 1:
        return None
    columns = [[h, *(row[i] for row in rows)] for i, h in enumerate(headers)]
    widths = _column_widths(columns, max_width)
    if min(widths) < _MIN_CELL:
        return None
    out = [title, _rule(_TOP, widths)] if title else [_rule(_TOP, widths)]  # rich draws no empty title
    for index, row in enumerate([headers, *rows]):
        head = index == 0
        cell_lines = [_cell(text, w) for text, w in zip(row, widths)]
        height = max(map(len, cell_lines))
        for lines, w in zip(cell_lines, widths):
            blank = [" " * w] * (height - len(lines))
            lines[:] = blank + lines if head else lines + blank  # the header sits on the rule below it
        left, divider, right = _HEAD if head else _BODY
        out.extend(left + divider.join(parts) + right for parts in zip(*cell_lines))
        if head:
            out.append(_rule(_HEAD_RULE, widths))
        elif ends[index - 1] and index < len(rows):
            out.append(_rule(_SECTION, widths))
    out.append(_rule(_BOTTOM, widths))
    return "".join(line + "\n" for line in out)
