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


# ----- `mcp = [...]` in a profile file (`agent mcp add --enable`, `agent mcp remove`) ----------

def _header_re(name: str) -> Any:
    import re

    quoted = re.escape(name)
    return re.compile(rf'^\s*\[\s*profiles\s*\.\s*(?:{quoted}|"{quoted}"|\'{quoted}\')\s*\]\s*(?:#.*)?$')


def _profile_mcp(text: str, name: str, path: Path) -> list[str]:
    import tomllib

    try:
        table = tomllib.loads(text).get("profiles", {}).get(name)
    except tomllib.TOMLDecodeError as exc:
        raise UsageError(f"{path} is not valid TOML ({exc})", hint="fix it by hand first") from None
    if not isinstance(table, dict):
        raise UsageError(f"{path} has no [profiles.{name}] table")
    value = table.get("mcp", [])
    return [str(v) for v in value] if isinstance(value, list) else []


def edit_profile_mcp(path: Path, name: str, server: str, *, enable: bool) -> bool:
    """Add `server` to, or drop it from, `mcp = [...]` of `[profiles.NAME]` in `path`, changing that
    one line and nothing else (a person's comments and layout stay). True when the file changed.
    An edit this cannot make safely (a multi-line array, a profile written as dotted keys) is
    refused with a hint, never guessed: the result is parsed back and must differ only there."""
    import json
    import tomllib

    text = path.read_text(encoding="utf-8")
    before = _profile_mcp(text, name, path)
    if (server in before) == enable:
        return False
    after = [*before, server] if enable else [s for s in before if s != server]
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _header_re(name).match(line)), None)
    by_hand = f'edit {path} by hand: mcp = {json.dumps(after)} under [profiles.{name}]'
    if start is None:
        raise UsageError(f"cannot find the [profiles.{name}] header in {path}", hint=by_hand)
    end = next((i for i in range(start + 1, len(lines)) if lines[i].lstrip().startswith("[")), len(lines))
    new_line = f"mcp = {json.dumps(after)}\n"
    at = next((i for i in range(start + 1, end) if lines[i].split("=", 1)[0].strip() == "mcp"), None)
    if at is None:
        lines.insert(start + 1, new_line)
    else:
        if "]" not in lines[at]:
            raise UsageError(f"the mcp list of profile {name!r} in {path} spans several lines", hint=by_hand)
        lines[at] = new_line
    new_text = "".join(lines)
    old_data, new_data = tomllib.loads(text), _loads_or_none(new_text)
    if new_data is None or _profile_mcp(new_text, name, path) != after:
        raise UsageError(f"could not change the mcp list of profile {name!r} in {path} safely", hint=by_hand)
    new_data["profiles"][name].pop("mcp", None)
    old_data["profiles"][name].pop("mcp", None)
    if new_data != old_data:
        raise UsageError(f"could not change the mcp list of profile {name!r} in {path} safely", hint=by_hand)
    write_private(path, new_text)
    return True


def _loads_or_none(text: str) -> dict[str, Any] | None:
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def user_copy(name: str, shipped: Path) -> Path:
    """A shipped profile copied into the user dir (where a same-named profile replaces it), so it
    can be edited; the copy is returned, or the user's own file when one is already there."""
    path = profile_path(name)
    if not path.exists():
        write_private(path, shipped.read_text(encoding="utf-8"))
    return path
