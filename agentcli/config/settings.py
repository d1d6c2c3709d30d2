"""User-wide settings from `$XDG_CONFIG_HOME/agentcli/config.toml` (not profiles)."""

from __future__ import annotations

import os

from agentcli.config.paths import settings_file
from agentcli.core.errors import ConfigError
from agentcli.core.record import record

ENV_PROFILE = "AGENTCLI_PROFILE"
FALLBACK_PROFILE = "boxxie"  # a local Ollama profile: works with no key
_KNOWN_KEYS: dict[str, type] = {"default_profile": str, "mcp_servers": dict}  # mcp_servers: agentcli.config.mcp


@record(frozen=True)
class DefaultProfile:
    """Which profile runs without --profile, and what chose it (for messages)."""

    ref: str
    origin: str  # "AGENTCLI_PROFILE", a settings file path, or "built-in"


def load_settings() -> dict[str, object]:
    """The settings table, checked key by key; an absent file is empty."""
    path = settings_file()
    if not path.exists():
        return {}
    from agentcli.config.loader import read_toml

    data = read_toml(path)
    for key, value in data.items():
        expected = _KNOWN_KEYS.get(key)
        if expected is None:
            raise ConfigError("unknown key", file=str(path), key=key, hint="known keys: " + ", ".join(_KNOWN_KEYS))
        if not isinstance(value, expected):
            raise ConfigError(f"must be a {expected.__name__} (got {type(value).__name__})", file=str(path), key=key)
    return data


def default_profile() -> DefaultProfile:
    """AGENTCLI_PROFILE, else `default_profile` in config.toml, else the local Ollama profile."""
    env = os.environ.get(ENV_PROFILE, "").strip()
    if env:
        return DefaultProfile(env, ENV_PROFILE)
    value = load_settings().get("default_profile")
    if isinstance(value, str) and value.strip():
        return DefaultProfile(value.strip(), str(settings_file()))
    return DefaultProfile(FALLBACK_PROFILE, "built-in")
