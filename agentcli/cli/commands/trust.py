"""`agent trust [FILE|FOLDER] [--revoke]`: let this workspace's .agent/ profiles (or one profile file,
by its content) set URLs, keys, tiers, shell rules and MCP servers."""

from __future__ import annotations

from pathlib import Path

from agentcli.core.errors import ConfigError, UsageError


def execute(workspace: Path | None = None, revoke: bool = False, target: Path | None = None) -> int:
    """Record (or withdraw) trust for a workspace, or for one file; returns the exit code."""
    from rich.console import Console
    from rich.markup import escape

    from agentcli.config import trust as trust_mod
    from agentcli.config.discovery import workspace_profiles_dir
    from agentcli.config.loader import profile_tables, read_toml

    if target is not None and not Path(target).is_dir():
        return _trust_file(Path(target), revoke)
    ws = Path(target) if target is not None else Path(workspace) if workspace is not None else Path.cwd()
    if not ws.is_dir():
        raise UsageError(f"not a directory: {ws}")
    out = Console(highlight=False)
    if revoke:
        real = Path(trust_mod.workspace_key(ws))
        if trust_mod.revoke(ws):
            out.print(f"Trust withdrawn: {escape(str(real))}. Its .agent/ profiles are ignored again.", soft_wrap=True)
        else:
            out.print(f"{escape(str(real))} was not trusted; nothing to do.", soft_wrap=True)
        return 0
    real = trust_mod.trust(ws)
    out.print(f"Trusted {escape(str(real))}.", soft_wrap=True)
    out.print("Profiles in its .agent/profiles/ may now set: " + ", ".join(trust_mod.PROTECTED_KEYS) + ".",
              soft_wrap=True)
    pdir = workspace_profiles_dir(real)
    for path in sorted(pdir.glob("*.toml")) if pdir.is_dir() else []:
        try:
            tables = profile_tables(read_toml(path), path)
        except ConfigError as exc:  # a broken file is reported, not fatal here
            out.print(f"  {escape(path.name)}: {escape(exc.message)}", soft_wrap=True)
            continue
        for name, table in tables.items():
            keys = trust_mod.protected_keys_in(table)
            sets = f" (sets {', '.join(keys)})" if keys else ""
            out.print(f"  {escape(name)}: {escape(path.name)}{sets}", soft_wrap=True)
    out.print("Undo with `agent trust --revoke`.")
    return 0


def _trust_file(path: Path, revoke: bool) -> int:
    """Trust (or stop trusting) one profile file, by its real path and content hash."""
    from rich.console import Console
    from rich.markup import escape

    from agentcli.config import trust as trust_mod
    from agentcli.config.loader import profile_tables, read_toml

    out = Console(highlight=False)
    if revoke:
        done = trust_mod.revoke_file(path)
        out.print(f"Trust withdrawn: {escape(trust_mod.file_key(path))}." if done
                  else f"{escape(trust_mod.file_key(path))} was not trusted; nothing to do.", soft_wrap=True)
        return 0
    if not path.exists():
        raise UsageError(f"no such file or folder: {path}")
    from agentcli.agent.instructions import FILENAME

    if path.name == FILENAME:  # project instructions: followed from now on, as they are now
        real = trust_mod.trust_one_file(path)
        out.print(f"Accepted {escape(str(real))}: the agent follows it as instructions (until it changes).",
                  soft_wrap=True)
        return 0
    tables = profile_tables(read_toml(path), path)  # a broken or non-profile file is refused, not trusted
    real = trust_mod.trust_one_file(path)
    out.print(f"Trusted the file {escape(str(real))} (as it is now; any change to it needs `agent trust` again).",
              soft_wrap=True)
    for name, table in tables.items():
        keys = trust_mod.protected_keys_in(table)
        if keys:
            out.print(f"  {escape(name)} may now set: {', '.join(keys)}", soft_wrap=True)
    out.print(f"Undo with `agent trust {escape(str(path))} --revoke`.", soft_wrap=True)
    return 0
