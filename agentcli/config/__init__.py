"""Profiles (layer 1): schema, discovery, loading, writing, workspace trust and user dirs.

Public surface:
    load_profile(ref, *, workspace=None, interactive=True) -> LoadedProfile
    list_profiles(workspace=None) -> list[ProfileRef]
    provider_defaults                      default url / api_key_env per provider
    effective_url(profile)                 same as profile.resolved_url()
    Profile, ToolsConfig, LimitsConfig, BashConfig
    config_dir(), data_dir(), write_private(path, data)
    trust.is_trusted / trust / revoke      (module agentcli.config.trust)

Names resolve lazily so importing `agentcli.config.paths` never loads pydantic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.core.lazy import lazy_exports

_EXPORTS: dict[str, str] = {
    "load_profile": "discovery",
    "list_profiles": "discovery",
    "scan": "discovery",
    "LoadedProfile": "discovery",
    "ProfileRef": "discovery",
    "shipped_dir": "discovery",
    "provider_defaults": "providers",
    "Profile": "schema",
    "ToolsConfig": "schema",
    "LimitsConfig": "schema",
    "BashConfig": "schema",
    "effective_url": "schema",
    "config_dir": "paths",
    "data_dir": "paths",
    "cache_dir": "paths",
    "write_private": "paths",
    "new_profile": "writer",
    "default_profile": "settings",
}

__all__ = sorted(_EXPORTS)

if TYPE_CHECKING:  # pragma: no cover
    from agentcli.config.discovery import LoadedProfile, ProfileRef, list_profiles, load_profile, scan, shipped_dir
    from agentcli.config.paths import cache_dir, config_dir, data_dir, write_private
    from agentcli.config.providers import provider_defaults
    from agentcli.config.schema import BashConfig, LimitsConfig, Profile, ToolsConfig, effective_url
    from agentcli.config.settings import default_profile
    from agentcli.config.writer import new_profile


__getattr__ = lazy_exports(__name__, _EXPORTS, globals())
