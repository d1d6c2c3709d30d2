"""The one console constructor for people-facing output, apart from the event renderer so a listing
command (sessions, tools, parse) can print without importing the event types."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text


def make_console(stderr: bool = False) -> Console:
    """A console for untrusted text: markup and emoji codes off, and every plain string it renders
    (print arguments, table cells, titles) made visible at this one boundary (see core.escape)."""
    return _safe_console_class()(stderr=stderr, highlight=False, soft_wrap=True, markup=False, emoji=False)


@functools.cache
def _safe_console_class() -> type[Console]:
    from rich.console import Console

    from agentcli.core.escape import visible  # with rich: a plain line or table needs no escaping

    class SafeConsole(Console):
        """Console whose str -> Text step escapes hidden characters; Text objects pass as built."""

        def render_str(self, text: str, **kwargs: Any) -> Text:
            return super().render_str(visible(text), **kwargs)

        def on_broken_pipe(self) -> None:
            """The reader left (`agent sessions | head -1`): rich would exit 1 on the spot; raise
            instead, so the CLI's error table decides how the command ends."""
            self.quiet = True
            raise BrokenPipeError

    return SafeConsole


def plain_width() -> int | None:
    """The width a console on stdout would have when it writes no styles, else None.

    Styles are off when stdout is no terminal and nothing forces them (rich's `is_terminal`:
    TTY_COMPATIBLE and FORCE_COLOR unset); the width is then COLUMNS, else the first of
    stdin/stdout/stderr that is a terminal, else 80, as rich works it out. A command whose lines
    are plain ASCII and fit this width can write them as they are, the same bytes rich would
    write, without loading rich. Any setting this does not model (an odd COLUMNS) answers None."""
    import os
    import sys

    env = os.environ
    if sys.platform == "win32" or "TTY_COMPATIBLE" in env or "FORCE_COLOR" in env:
        return None
    try:
        if sys.stdout.isatty():
            return None
    except (AttributeError, ValueError):
        return None
    columns = env.get("COLUMNS")
    if columns is not None:
        return int(columns) if columns.isdigit() and int(columns) > 0 else None
    for fd in (0, 1, 2):
        try:
            width = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        return width or 80
    return 80


def is_plain(text: str) -> bool:
    """Printable ASCII only: every character one cell wide, nothing for rich to escape or expand."""
    return text.isascii() and text.isprintable()


def print_line(text: str) -> None:
    """One unstyled line on stdout, as `make_console().print(Text(text))` writes it. A printable
    string (no tab, control or format character for rich to expand, strip or escape) is written
    as it is, so a command whose whole answer is one such line need not load rich at all."""
    if text.isprintable():
        import sys

        sys.stdout.write(text + "\n")
        return
    from rich.text import Text

    make_console().print(Text(text))
