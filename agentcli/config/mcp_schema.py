"""The MCP server table: `[mcp_servers.NAME]` in config.toml, `[profiles.P.mcp_servers.NAME]` in profiles.

A server is started from a command (stdio) or reached at a URL (streamable HTTP). Keys never
live here: an environment value whose name looks secret must be passed by name (`env_from`).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from agentcli.config.checks import SERVER_NAME, check_server_names, http_url

__all__ = ["SERVER_NAME", "McpServerConfig", "McpToolOverride", "check_server_names", "http_url"]

TierName = Literal["crawl", "walk", "run"]
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _tier(v: Any) -> Any:
    return v.strip().lower() if isinstance(v, str) else v


class McpToolOverride(BaseModel):
    """`[...mcp_servers.NAME.tools.TOOL]`: what the profile says about one of the server's tools."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    tier: TierName | None = None

    @field_validator("tier", mode="before")
    @classmethod
    def _tier_case(cls, v: Any) -> Any:
        return _tier(v)


class McpServerConfig(BaseModel):
    """One MCP server: how to reach it, what it may see, and how far its tools reach."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    command: list[str] | None = None  # stdio: program and arguments
    url: str | None = None  # streamable HTTP endpoint
    env: dict[str, str] = {}  # non-secret values for a stdio server
    env_from: list[str] = []  # variables passed through by name
    cwd: str | None = None  # relative to the workspace; default: the workspace
    startup_timeout: float = Field(30.0, gt=0, le=600)
    tool_timeout: float = Field(60.0, gt=0, le=3600)
    enabled_tools: list[str] | None = None  # None = every tool the server lists
    disabled_tools: list[str] = []
    tier: TierName | None = None  # overrides the tier of all its tools
    tools: dict[str, McpToolOverride] = {}  # per-tool overrides
    enabled: bool = True
    # Whether this server's readOnlyHint is believed: then such a tool runs at crawl unasked.
    # Off by default: an annotation is a claim by the server, and a tool that says read-only may write.
    trust_annotations: bool = False

    @field_validator("tier", mode="before")
    @classmethod
    def _tier_case(cls, v: Any) -> Any:
        return _tier(v)

    @field_validator("command")
    @classmethod
    def _command(cls, v: list[str] | None) -> list[str] | None:
        if v is not None and (not v or not v[0].strip()):
            raise ValueError('must name the program, e.g. command = ["uvx", "mcp-server-time"]')
        return v

    @field_validator("url")
    @classmethod
    def _url(cls, v: str | None) -> str | None:
        return http_url(v, example="http://127.0.0.1:8000/mcp", credentials="")

    @field_validator("env")
    @classmethod
    def _env(cls, v: dict[str, str]) -> dict[str, str]:
        from agentcli.core.redaction import is_secret_name

        for name in v:
            if not _ENV_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name")
            if is_secret_name(name):
                raise ValueError(f"{name!r} looks like a secret; keys never live in profiles: "
                                 f'export it and write env_from = ["{name}"]')
        return v

    @field_validator("env_from")
    @classmethod
    def _env_from(cls, v: list[str]) -> list[str]:
        for name in v:
            if not _ENV_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name")
        return v

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if (self.command is None) == (self.url is None):
            raise ValueError('set exactly one of command = ["prog", "arg", ...] (stdio) or url = "http://..." '
                             "(streamable HTTP)")
        if self.url is not None and (self.env or self.env_from or self.cwd):
            raise ValueError("env, env_from and cwd apply to a command; a url server runs elsewhere")
        return self

    @property
    def transport(self) -> str:
        return "stdio" if self.command is not None else "http"
