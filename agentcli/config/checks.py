"""Checks shared by the profile and the MCP server tables, kept free of pydantic: the profile
validates its MCP servers only when it has some (agentcli.config.mcp_schema is built then), so
what both need lives here.
"""

from __future__ import annotations

import re
from typing import Any

# A server's name prefixes its tools' names (`git` -> `git_status`), so it uses the
# characters every provider accepts in a function name, and stays short.
SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$")


def check_server_names(servers: dict[str, Any]) -> dict[str, Any]:
    """Validator body shared by the profile and the settings file."""
    for name in servers:
        if not SERVER_NAME.match(name):
            raise ValueError(f"server name {name!r}: use up to 32 letters, digits, '-' or '_' (it prefixes tool names)")
    return servers


def http_url(v: str | None, *, example: str, credentials: str, noun: str = "URL") -> str | None:
    """An http(s) URL with a host and no credentials in it (they would land in logs and
    transcripts); `credentials` says where a key goes instead."""
    if v is None:
        return v
    v = v.strip()
    scheme, sep, rest = v.partition("://")
    if not sep or scheme.lower() not in ("http", "https") or not rest or rest.startswith("/"):
        raise ValueError(f"must be an http:// or https:// {noun}, e.g. {example}")
    if "@" in rest.split("/", 1)[0]:
        raise ValueError("must not carry credentials (user:password@)" + (f"; {credentials}" if credentials else ""))
    return v
