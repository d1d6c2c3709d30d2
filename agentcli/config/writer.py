"""Write new profile files into the user config dir (tomli-w, mode 0600)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.config.loader import NAME_RE, build_profile
from agentcli.config.paths import user_profiles_dir, write_private
from agentcli.config.providers import default_api_key_env
from agentcli.core.errors import UsageError


def profile_path(name: str) -> Path:
    return user_profiles_dir() / f"{name}.toml"


def render_profile(name: str, table: dict[str, Any]) -> str:
    """TOML text for one profile, with a short header for whoever opens the file next."""
    import tomli_w

    key_env = table.get("api_key_env")
    key_line = (f"# The API key is read from ${key_env} at run time; keys never live in this file.\n"
                if key_env else "# This provider needs no API key.\n")
    header = (
        f"# agentcli profile {name!r}; use it with `agent run --profile {name} ...`.\n"
        f"{key_line}"
        f"# `agent profiles show {name}` lists every key with its value and origin.\n\n"
    )
    return header + tomli_w.dumps({"profiles": {name: table}})


def new_profile(
    name: str,
    *,
    provider: str,
    model: str,
    url: str | None = None,
    api_key_env: str | None = None,
    force: bool = False,
) -> Path:
    """Validate and write `<config>/profiles/NAME.toml`; refuse to overwrite unless `force`."""
    if not NAME_RE.match(name):
        raise UsageError(f"invalid profile name {name!r}: use letters, digits, '-', '_' or '.'")
    path = profile_path(name)
    if path.exists() and not force:
        raise UsageError(f"{path} already exists", hint="pass --force to overwrite it")
    table: dict[str, Any] = {"provider": provider, "model": model}
    if url:
        table["url"] = url
    key_env = api_key_env if api_key_env is not None else default_api_key_env(provider)
    if key_env:
        table["api_key_env"] = key_env
    build_profile(name, table, None)  # the loader's checks: a bad value never reaches disk
    write_private(path, render_profile(name, table))
    return path
