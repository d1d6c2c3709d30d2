"""Which MCP servers a profile uses: its own `[profiles.P.mcp_servers.*]` plus the shared
`[mcp_servers.*]` of config.toml that it names in `mcp = [...]`, and how `agent mcp` edits them.

A profile from an untrusted workspace may neither add nor change servers: a server is a program
we start (or a URL we send the conversation's tool arguments to), so the rule is the one for
URLs and shell rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.config.paths import settings_file, write_private
from agentcli.core.errors import ConfigError

if TYPE_CHECKING:
    from agentcli.config.mcp_schema import McpServerConfig
    from agentcli.config.schema import Profile


def _validate(name: str, table: Any, file: str) -> McpServerConfig:
    from pydantic import ValidationError

    from agentcli.config.mcp_schema import SERVER_NAME, McpServerConfig

    if not SERVER_NAME.match(name):
        raise ConfigError("invalid server name: use up to 32 letters, digits, '-' or '_'", file=file,
                          key=f"mcp_servers.{name}")
    if not isinstance(table, dict):
        raise ConfigError("must be a table ([mcp_servers.NAME])", file=file, key=f"mcp_servers.{name}")
    try:
        return McpServerConfig.model_validate(table)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        key = f"mcp_servers.{name}" + (f".{where}" if where else "")
        raise ConfigError(first["msg"].removeprefix("Value error, "), file=file, key=key) from None


def shared_servers() -> dict[str, McpServerConfig]:
    """The `[mcp_servers.*]` tables of config.toml, validated (empty when there are none)."""
    from agentcli.config.settings import load_settings

    table = load_settings().get("mcp_servers") or {}
    assert isinstance(table, dict)
    file = str(settings_file())
    return {name: _validate(name, value, file) for name, value in table.items()}


def _untrusted_source(profile: Profile) -> str | None:
    from agentcli.config import trust

    if profile.source is None:
        return None
    ws = trust.workspace_of(profile.source)
    return str(ws) if ws is not None and not trust.is_trusted(ws) else None


def resolve_servers(profile: Profile) -> tuple[dict[str, McpServerConfig], list[str]]:
    """(servers by name, warnings): shared ones the profile enables, then its own on top."""
    if not profile.mcp and not profile.mcp_servers:
        return {}, []
    untrusted = _untrusted_source(profile)
    if untrusted is not None:
        note = (f"ignored the MCP servers of profile {profile.name!r}: it comes from the untrusted workspace "
                f"{untrusted}; run `agent trust` there if you trust it")
        return {}, [note]
    servers: dict[str, McpServerConfig] = {}
    if profile.mcp:
        shared = shared_servers()
        for name in profile.mcp:
            if name in shared:
                servers[name] = shared[name]
            elif name not in profile.mcp_servers:
                known = ", ".join(sorted(shared)) or "none"
                raise ConfigError(f"mcp names {name!r}, which is not a server in {settings_file()} (defined: {known})",
                                  file=str(profile.source or ""), profile=profile.name, key="mcp",
                                  hint=f"add it with `agent mcp add {name} -- COMMAND ...` or remove it from mcp")
    servers.update(profile.mcp_servers)
    return {k: v for k, v in servers.items() if v.enabled}, []


# ----- editing config.toml (`agent mcp add|remove`) -------------------------------------------

def _read_settings_table() -> dict[str, Any]:
    from agentcli.config.loader import read_toml

    path = settings_file()
    return read_toml(path) if path.exists() else {}


def add_server(name: str, table: dict[str, Any], *, force: bool = False) -> None:
    """Validate and write `[mcp_servers.NAME]` into config.toml (0600)."""
    import tomli_w

    data = _read_settings_table()
    servers = data.setdefault("mcp_servers", {})
    if name in servers and not force:
        from agentcli.core.errors import UsageError

        raise UsageError(f"server {name!r} is already in {settings_file()}", hint="pass --force to replace it")
    table = {k: v for k, v in table.items() if v not in (None, [], {})}
    _validate(name, table, str(settings_file()))  # a bad value never reaches disk
    servers[name] = table
    write_private(settings_file(), tomli_w.dumps(data))


def remove_server(name: str) -> bool:
    """Delete `[mcp_servers.NAME]`; False when it was not there."""
    import tomli_w

    data = _read_settings_table()
    servers = data.get("mcp_servers") or {}
    if name not in servers:
        return False
    del servers[name]
    if not servers:
        data.pop("mcp_servers", None)
    write_private(settings_file(), tomli_w.dumps(data))
    return True
