"""The `agent` process entry: what runs before the typer app (`agentcli.cli.app`) is loaded.

Importing typer is most of what `agent --version` would cost, and the answer needs none of it:
`agent --version` (or `-V`) alone is answered here with the bytes and the exit code typer's eager
option gives. Every other start goes to the app built for the command argv names (`app_for`).
`app` and `app_for` are re-exported on first use, so importing this module stays typer-free.
"""

from __future__ import annotations

from agentcli import __version__

TYPE_CHECKING = False  # not typing's: importing typing is a tenth of what `agent --version` costs
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

VERSION_FLAGS = ("--version", "-V")


def answers_version(argv: list[str], environ: Mapping[str, str]) -> bool:
    """True when argv is `agent --version` or `agent -V` and nothing else, outside shell completion
    (any *_COMPLETE variable hands the whole start to typer's completion, as `app_for` does)."""
    return len(argv) == 2 and argv[1] in VERSION_FLAGS and not any(k.endswith("_COMPLETE") for k in environ)


def print_version() -> int:
    """What typer's `--version` callback writes, and the exit code its standalone mode gives: 0, or
    1 when stdout is a closed pipe (then quietly, as click does)."""
    import sys

    try:
        sys.stdout.write(f"agent {__version__}\n")
        sys.stdout.flush()
    except BrokenPipeError:
        from agentcli.cli.errors import silence_stdout

        silence_stdout()
        return 1
    return 0


def main() -> None:
    # pydantic scans every installed distribution's entry points for plugins on its first model
    # build (~20 ms a start); agentcli uses none, and a plugin another package installed has no
    # business running inside it. A user who sets the variable keeps their value.
    import os
    import sys

    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    if answers_version(sys.argv, os.environ):
        raise SystemExit(print_version())
    from agentcli.core.heap import paused, settle

    # Loading typer and the app allocates tens of thousands of objects that live as long as the
    # process: the collector would walk them in every collection while they load (a tenth of what
    # loading typer costs) and once more at exit (another tenth). Collections wait until they are
    # loaded, and `settle` leaves them out of every collection after (objects made from here on
    # are collected as usual).
    with paused():
        from agentcli.cli.app import app_for
        settle()
    app_for(sys.argv)()


def __getattr__(name: str) -> Any:
    """`app` and `app_for` as before the entry and the app were two modules (loaded on first use)."""
    if name in ("app", "app_for"):
        from agentcli.cli import app as module

        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()
