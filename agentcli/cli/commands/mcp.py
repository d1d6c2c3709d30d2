"""`agent mcp list|add|remove`: the shared MCP servers in config.toml (profiles enable them by name
with `mcp = ["NAME"]`; a profile may also define its own under [profiles.P.mcp_servers.NAME])."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import UsageError
from agentcli.core.escape import visible

if TYPE_CHECKING:
    from agentcli.config.mcp_schema import McpServerConfig


def _parse_env(pairs: list[str]) -> dict[str, str]:
    env: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--env {pair!r} is not NAME=VALUE", hint="for a secret use --env-from NAME instead")
        env[key] = value
    return env


def _describe(cfg: McpServerConfig) -> str:
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


def _targets(enable: list[str], all_: bool) -> list[Any]:
    """The profiles `--enable NAME` / `--all` mean: the one that wins for each name (as `--profile
    NAME` would load it); `--all` takes every profile of the user dir and the default profile.

    A shipped profile is edited by copying it into the user dir, where the copy then wins over
    later updates of the shipped one, so `--all` copies only the one a bare `agent run` uses.
    """
    from agentcli.config.discovery import list_profiles
    from agentcli.config.settings import default_profile

    refs = [r for r in list_profiles() if r.trusted and not r.shadowed]
    if all_:
        default = default_profile().ref
        return [r for r in refs if r.scope == "user" or (r.scope == "shipped" and r.name == default)]
    out = []
    for name in dict.fromkeys(enable):
        ref = next((r for r in refs if r.name == name), None)
        if ref is None:
            known = ", ".join(sorted({r.name for r in refs})) or "none"
            raise UsageError(f"there is no profile {name!r} to enable the server in (profiles: {known})",
                             hint="agent profiles list shows them")
        out.append(ref)
    return out


def _enable(server: str, refs: list[Any]) -> list[str]:
    """Add `server` to each profile's mcp list; a shipped profile is first copied into the user dir
    (where a profile of the same name replaces the shipped one). Returns one line per profile."""
    from agentcli.config.writer import edit_profile_mcp, user_copy

    lines = []
    for ref in refs:
        path = user_copy(ref.name, ref.path) if ref.scope == "shipped" else ref.path
        changed = edit_profile_mcp(path, ref.name, server, enable=True)
        copied = " (a copy of the shipped profile)" if ref.scope == "shipped" else ""
        lines.append(f"  {'enabled in' if changed else 'already in'} profile {ref.name}: {path}{copied}")
    return lines


def _add(name: str, command: list[str], url: str | None, env: list[str], env_from: list[str], cwd: str | None,
         tier: str | None, startup_timeout: float | None, tool_timeout: float | None, force: bool,
         enable: list[str], all_: bool) -> int:
    from agentcli.config.mcp import add_server
    from agentcli.config.paths import settings_file

    if bool(command) == bool(url):
        raise UsageError("give either a command after -- or --url", hint="agent mcp add time -- uvx mcp-server-time")
    targets = _targets(enable, all_)  # an unknown profile is refused before anything is written
    table: dict[str, Any] = {"command": list(command) or None, "url": url, "env": _parse_env(env),
                             "env_from": list(env_from), "cwd": cwd, "tier": tier,
                             "startup_timeout": startup_timeout, "tool_timeout": tool_timeout}
    add_server(name, table, force=force)
    print(f"Added MCP server {name!r} to {settings_file()}.")
    if not targets:
        print(f"No profile uses it yet: add --enable PROFILE (or --all), or put mcp = [\"{name}\"] in a profile.")
        return 0
    for line in _enable(name, targets):
        print(visible(line, keep_newlines=False))
    print("Check it with: agent tools --profile PROFILE")
    return 0


def _naming(name: str) -> list[Any]:
    """Every profile file that names the server in its mcp list (shadowed and untrusted ones too:
    each would fail to load once the server is gone)."""
    from agentcli.config.discovery import list_profiles
    from agentcli.config.writer import _profile_mcp

    out = []
    for ref in list_profiles():
        try:
            names = _profile_mcp(ref.path.read_text(encoding="utf-8"), ref.name, ref.path)
        except (OSError, UsageError):
            continue
        if name in names:
            out.append(ref)
    return out


def _remove(name: str, keep_profiles: bool) -> int:
    from agentcli.config.mcp import remove_server
    from agentcli.config.paths import settings_file
    from agentcli.config.writer import edit_profile_mcp

    if name not in _shared_names():
        raise UsageError(f"there is no MCP server {name!r} in {settings_file()}", hint="agent mcp list shows them")
    users = _naming(name)
    remove_server(name)
    print(f"Removed MCP server {name!r} from {settings_file()}.")
    left = []
    for ref in users:
        if keep_profiles or ref.scope == "shipped":
            left.append(ref)
            continue
        try:
            edit_profile_mcp(ref.path, ref.name, name, enable=False)
        except UsageError as exc:
            print(visible(f"  profile {ref.name}: {exc.message} ({exc.hint})", keep_newlines=False))
            continue
        print(visible(f"  dropped it from profile {ref.name}: {ref.path}", keep_newlines=False))
    for ref in left:
        print(visible(f"  profile {ref.name} still names it: {ref.path} (remove {name!r} from its mcp list)",
                      keep_newlines=False))
    return 0


def _shared_names() -> set[str]:
    from agentcli.config.mcp import _read_settings_table

    return set(_read_settings_table().get("mcp_servers") or {})


def execute(action: str, name: str | None = None, json_out: bool = False, argv: list[str] | None = None,
            url: str | None = None, env: list[str] | None = None, env_from: list[str] | None = None,
            cwd: str | None = None, tier: str | None = None, startup_timeout: float | None = None,
            tool_timeout: float | None = None, force: bool = False, enable: list[str] | None = None,
            all_: bool = False, keep_profiles: bool = False) -> int:
    if action == "list":
        return _list(json_out)
    assert name is not None
    if action == "add":
        return _add(name, argv or [], url, env or [], env_from or [], cwd, tier, startup_timeout, tool_timeout, force,
                    enable or [], all_)
    return _remove(name, keep_profiles)
