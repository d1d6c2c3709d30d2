"""Read profile files and build validated Profiles, recording where each value came from."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

from agentcli.core.errors import ConfigError

# A profile's name becomes a file name and a CLI argument.
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
# Keys the loader sets itself; a file may not.
_LOADER_KEYS = ("name", "source")
_SUBTABLES = ("tools", "limits", "bash")


def read_toml(path: Path) -> dict[str, Any]:
    """Parse one file; a missing file or bad syntax is a ConfigError naming it."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError("file not found", file=str(path)) from None
    except IsADirectoryError:
        raise ConfigError("is a directory, expected a .toml file", file=str(path)) from None
    except OSError as exc:
        raise ConfigError(f"cannot read: {exc.strerror or exc}", file=str(path)) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"not UTF-8 text (byte {exc.start})", file=str(path)) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        from agentcli.config.errors import toml_error

        raise toml_error(exc, path, text) from None


def profile_tables(data: dict[str, Any], path: Path) -> dict[str, dict[str, Any]]:
    """The `[profiles.NAME]` tables of a parsed file, checked for shape."""
    extra = [k for k in data if k != "profiles"]
    if extra:
        raise ConfigError(
            "unknown top-level key; profile settings go under a [profiles.NAME] table",
            file=str(path), key=extra[0],
        )
    tables = data.get("profiles")
    if not isinstance(tables, dict) or not tables:
        raise ConfigError("holds no [profiles.NAME] table", file=str(path),
                          hint='start the file with [profiles.myname] and set provider = "..." and model = "..."')
    for name, table in tables.items():
        if not isinstance(table, dict):
            raise ConfigError("must be a table ([profiles.NAME]), not a single value", file=str(path), profile=name)
        if not NAME_RE.match(name):
            raise ConfigError("invalid profile name: use letters, digits, '-', '_' or '.'",
                              file=str(path), profile=name)
    return tables


def build_profile(name: str, table: dict[str, Any], path: Path | None):  # -> tuple[Profile, dict[str, str]]
    """Validate one profile table; returns the Profile and its per-key origins."""
    from pydantic import ValidationError

    from agentcli.config.errors import validation_error
    from agentcli.config.schema import Profile

    for key in _LOADER_KEYS:
        if key in table:
            raise ConfigError("unknown key (the profile's name is its table name)",
                              file=str(path) if path else None, profile=name, key=key)
    try:
        profile = Profile.model_validate({**table, "name": name})
    except ValidationError as exc:
        raise validation_error(exc, file=path, profile=name, model=Profile) from None
    profile.source = path
    return profile, origins(table, path)


def origins(table: dict[str, Any], path: Path | None) -> dict[str, str]:
    """Dotted key -> the file that set it, or "default"."""
    from agentcli.config.schema import Profile

    here = str(path) if path else "default"
    out: dict[str, str] = {}
    for field, info in Profile.model_fields.items():
        if field in _LOADER_KEYS:
            continue
        sub = getattr(info.annotation, "model_fields", None) if field in _SUBTABLES else None
        if sub is not None:
            given = table.get(field) or {}
            for subfield in sub:
                out[f"{field}.{subfield}"] = here if subfield in given else "default"
        elif field == "capabilities":
            for cap in table.get(field) or {}:
                out[f"capabilities.{cap}"] = here
        else:
            out[field] = here if field in table else "default"
    return out
