"""Which folder a command works in; apart from `build` so listing commands (sessions, diff) need
not import the session machinery to answer it."""

from __future__ import annotations

from pathlib import Path


def resolve_workspace(workspace: Path | None) -> Path:
    ws = (workspace or Path.cwd()).expanduser()
    if not ws.is_dir():
        from agentcli.core.errors import UsageError  # only to say why: a listing that works never loads it

        raise UsageError(f"workspace {ws} is not a directory", hint="pass --workspace DIR with an existing directory")
    return ws.resolve()
