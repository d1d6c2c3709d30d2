"""`agent mcp list|add|remove`: the shared MCP servers in config.toml (profiles enable them by name
with `mcp = ["NAME"]`; a profile may also define its own under [profiles.P.mcp_servers.NAME])."""

from __future__ import annotations

import json
import sys
from typing import Any

from agentcli.core.errors import UsageError


def _parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env {pair!r} is not NAME=VALUE", hint="for a secret use --env-from NAME instead")
        env[key] = value
    return env


def _describe(cfg: Any) -> str:
    from agentcli.core.escape import visible

    where = " ".join(cfg.command) if cfg.command else str(cfg.url)
    return visible(where, keep_newlines=False)


def _list(json_out: bool) -> int:
    from agentcli.config.mcp import shared_servers
    from agentcli.config.paths import settings_file

    servers = shared_servers()
    if json_out:
        doc = {"file": str(settings_file()),
               "servers": {n: {"transport": c.transport, **c.model_dump(exclude_defaults=True)} for n, c in servers.items()}}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    if not servers:
        print(f"No shared MCP servers in {settings_file()}.\nAdd one: agent mcp add NAME -- COMMAND [ARGS...]"
              "  or  agent mcp add NAME --url http://HOST:PORT/mcp")
        return 0
    print(f"Shared MCP servers in {settings_file()} (enable one in a profile with mcp = [\"NAME\"]):")
    for name, cfg in servers.items():
        extra = f" tier={cfg.tier}" if cfg.tier else ""
        extra += "" if cfg.enabled else " (disabled)"
        print(f"  {name:<16} {cfg.transport:<5} {_describe(cfg)}{extra}")
    return 0


def _add(name: str, command: list[str], url: str | None, env: list[str], env_from: list[str], cwd: str | None,
         tier: str | None, startup_timeout: float | None, tool_timeout: float | None, force: bool) -> int:
    from agentcli.config.mcp import add_server
    from agentcli.config.paths import settings_file

    if bool(command) == bool(url):
        raise UsageError("give either a command after -- or --url", hint="agent mcp add time -- uvx mcp-server-time")
    table: dict[str, Any] = {"command": list(command) or None, "url": url, "env": _parse_env(env),
                             "env_from": list(env_from), "cwd": cwd, "tier": tier,
                             "startup_timeout": startup_timeout, "tool_timeout": tool_timeout}
    add_server(name, table, force=force)
    print(f"Added MCP server {name!r} to {settings_file()}.\n"
          f"Enable it in a profile with mcp = [\"{name}\"], then check it with: agent doctor --profile PROFILE")
    return 0


def _remove(name: str) -> int:
    from agentcli.config.mcp import remove_server
    from agentcli.config.paths import settings_file

    if not remove_server(name):
        raise UsageError(f"there is no MCP server {name!r} in {settings_file()}", hint="agent mcp list shows them")
    print(f"Removed MCP server {name!r} from {settings_file()}; profiles that name it in mcp = [...] must drop it.")
    return 0


def execute(action: str, name: str | None = None, json_out: bool = False, argv: list[str] | None = None,
            url: str | None = None, env: list[str] | None = None, env_from: list[str] | None = None,
            cwd: str | None = None, tier: str | None = None, startup_timeout: float | None = None,
            tool_timeout: float | None = None, force: bool = False) -> int:
    if action == "list":
        return _list(json_out)
    assert name is not None
    if action == "add":
        return _add(name, argv or [], url, env or [], env_from or [], cwd, tier, startup_timeout, tool_timeout, force)
    return _remove(name)
