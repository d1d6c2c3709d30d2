"""What an approval prompt shows: the whole text, counted, with nothing hidden or silently cut.

A command can hide its payload behind a hundred blank lines, a bidi control, a tag character
or a Hangul filler; a long one scrolls its first line off the screen. Each block here states
its line and character counts and how many hidden characters were escaped, numbers its lines,
folds runs of blank lines into a counted marker, and, when it is still taller than the
screen, shows its head and tail around a "N more lines" marker. `expanded=True` shows all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from agentcli.ui.escape import hidden_count, styled, visible

BLANK_RUN = 3  # this many blank lines in a row or more are folded into one counted marker
LINE_CHARS = 400  # a longer line is cut with a count of the rest (all of it when expanded)
INLINE_CHARS = 120  # string arguments up to this long, without newlines, stay in the JSON summary


@dataclass(slots=True)
class Block:
    """One titled text shown in full or summarised."""

    title: str
    text: str


def blocks_for(arguments: dict[str, Any], preview: str) -> list[Block]:
    """Short arguments as one JSON line; each long or multi-line string argument and the
    preview as a block of its own."""
    short: dict[str, Any] = {}
    out: list[Block] = []
    for key, value in arguments.items():
        if isinstance(value, str) and ("\n" in value or "\r" in value or len(value) > INLINE_CHARS):
            out.append(Block(f"argument {key}", value))
        else:
            short[key] = value
    if short:
        text = json.dumps(short, ensure_ascii=False, default=str)
        out.insert(0, Block("arguments", text))
    if preview:
        out.append(Block("preview", preview))
    return out


Row = tuple[int, int, bool, str]  # first line, last line, is a marker, shown text


def _rows(block: Block, expanded: bool) -> list[Row]:
    """One row per line, blank runs folded into a marker row unless expanded."""
    lines = block.text.replace("\r\n", "\n").split("\n")
    rows: list[Row] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j - i >= BLANK_RUN and not expanded:
            rows.append((i + 1, j, True, f"⋮ {j - i} blank lines ({i + 1}-{j})"))
            i = j
            continue
        line = lines[i]
        shown = visible(line, strict=True).replace("\r", "\\r")
        if len(shown) > LINE_CHARS and not expanded:
            shown = shown[:LINE_CHARS] + f" … (+{len(shown) - LINE_CHARS} characters)"
        rows.append((i + 1, i + 1, False, shown))
        i += 1
    return rows


def render_block(block: Block, *, max_rows: int, expanded: bool = False) -> list[Any]:
    """rich Text lines for one block: a counted header, numbered lines, head/tail summary."""
    lines = block.text.replace("\r\n", "\n").split("\n")
    hidden = hidden_count(block.text)
    head = f"{block.title}: {len(lines)} line{'s' * (len(lines) != 1)}, {len(block.text)} characters"
    if hidden:
        head += f", {hidden} hidden or confusable character{'s' * (hidden != 1)} shown as escapes"
    out: list[Any] = [styled((head, "bold yellow" if hidden or len(lines) > 1 else "bold"))]
    rows = _rows(block, expanded)
    if not expanded and len(rows) > max_rows:
        keep_tail = max(1, max_rows // 4)
        keep_head = max(1, max_rows - keep_tail - 1)
        first, last = rows[keep_head][0], rows[len(rows) - keep_tail - 1][1]
        cut = last - first + 1
        marker = (first, last, True, f"⋮ {cut} more lines ({first}-{last}; press v to view all)")
        rows = rows[:keep_head] + [marker] + rows[len(rows) - keep_tail:]
    width = len(str(len(lines)))
    for number, _, is_marker, text in rows:
        if is_marker:
            out.append(styled((" " * width + "   " + text, "bold magenta")))
        else:
            out.append(styled((f"{number:>{width}} │ ", "dim"), text))
    return out


def screen_rows(console: Any) -> int:
    """Rows a block may use: the terminal's height less room for the prompt, at least 12."""
    height = getattr(getattr(console, "size", None), "height", 0) or 24
    return max(12, height - 12)
