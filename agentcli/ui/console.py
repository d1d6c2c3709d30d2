"""The one console constructor for people-facing output, apart from the event renderer so a listing
command (sessions, tools, parse) can print without importing the event types."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from agentcli.core.escape import visible

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
