"""`agent profiles list | show NAME | new NAME`: find, explain and create profiles."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import UsageError

if TYPE_CHECKING:
    from rich.console import Console

    from agentcli.config.schema import Profile

_SUBTABLES = ("tools", "limits", "bash")


def execute(
    action: str,
    name: str | None = None,
    json_out: bool = False,
    provider: str | None = None,
    model: str | None = None,
    url: str | None = None,
    api_key_env: str | None = None,
    force: bool = False,
) -> int:
    """Dispatch one `agent profiles` action; returns the exit code."""
    actions = {"list": _list, "show": _show, "new": _new}
    body = actions.get(action)
    if body is None:
        raise UsageError(f"unknown action {action!r}; expected one of: {', '.join(actions)}")
    return body(name=name, json_out=json_out, provider=provider, model=model, url=url,
                api_key_env=api_key_env, force=force)


def _consoles() -> tuple[Any, Any]:
    """Profile names, models and paths may come from an untrusted workspace's `.agent/`: the safe
    console parses no markup or emoji codes and shows hidden characters (see core.escape)."""
    from agentcli.ui.console import make_console

    return make_console(), make_console(stderr=True)


def _warn(err: Console, warnings: list[str]) -> None:
    from agentcli.core.escape import styled

    for w in warnings:
        err.print(styled(("warning:", "yellow"), " ", w))


def _text(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, (dict, list, bool)):
        return json.dumps(value)
    return str(value)


def _list(*, json_out: bool, **_: Any) -> int:
    from agentcli.config.discovery import scan

    refs, warnings = scan()
    if json_out:
        rows = [{"name": r.name, "provider": r.provider, "model": r.model, "scope": r.scope,
                 "path": str(r.path), "trusted": r.trusted, "active": r.trusted and not r.shadowed} for r in refs]
        sys.stdout.write(json.dumps({"profiles": rows, "warnings": warnings}, indent=2) + "\n")
        return 0
    from rich.table import Table, box

    out, err = _consoles()
    _warn(err, warnings)
    if not refs:
        out.print("No profiles found. Create one with `agent profiles new NAME --provider P --model M`.")
        return 0
    notes = ["ignored: workspace not trusted" if not r.trusted else ("shadowed" if r.shadowed else "") for r in refs]
    cols = ["name", "provider", "model", "scope", "file"] + (["note"] if any(notes) else [])
    table = Table(box=box.SIMPLE, show_edge=False)
    for col in cols:
        table.add_column(col, overflow="fold")
    dirs: dict[str, Path] = {}
    for r, note in zip(refs, notes):
        row = [r.name, r.provider, r.model, r.scope, r.path.name]
        table.add_row(*row, *([note] if any(notes) else []))
        dirs.setdefault(f"{r.scope} dir", r.path.parent)
    out.print(table)
    for label, d in dirs.items():
        out.print(f"{label}: {d}")
    return 0


def _flatten(profile: Profile) -> dict[str, Any]:
    """Resolved values keyed like LoadedProfile.origins (tools.max_tier, ...)."""
    data = profile.model_dump(mode="json", exclude={"source", "name"})
    flat: dict[str, Any] = {}
    for key, value in data.items():
        if key in _SUBTABLES or key == "capabilities":
            for sub, v in value.items():
                flat[f"{key}.{sub}"] = v
        else:
            flat[key] = value
    return flat


def _show(*, name: str | None, json_out: bool, **_: Any) -> int:
    from agentcli.config.discovery import load_profile
    from agentcli.core.redaction import redact

    loaded = load_profile(name)
    p = loaded.profile
    values = _flatten(p)
    key_env = p.resolved_api_key_env()
    # Resolved endpoint: an unset url/api_key_env falls back to the provider's default.
    values["url"], values["api_key_env"] = p.resolved_url(), key_env
    origin = {k: ("file" if v != "default" else "default") for k, v in loaded.origins.items()}
    key_set = bool(key_env and os.environ.get(key_env))
    if json_out:
        doc = {"name": p.name, "source": str(p.source) if p.source else None, "scope": loaded.scope,
               "values": values, "origins": origin, "api_key_set": key_set, "warnings": loaded.warnings}
        # Values are user text (headers, request overrides): scrub anything key-shaped.
        sys.stdout.write(redact(json.dumps(doc, indent=2)) + "\n")
        return 0
    from rich.table import Table, box

    from agentcli.core.escape import styled

    out, err = _consoles()
    _warn(err, loaded.warnings)
    out.print(styled((p.name, "bold"), f" ({loaded.scope}) from {p.source}"))
    table = Table(box=box.SIMPLE, show_edge=False)
    table.add_column("key")
    table.add_column("value", overflow="fold")
    table.add_column("from")
    for key, value in values.items():
        src = origin.get(key, "default")
        if src == "default" and key in ("url", "api_key_env") and value is not None:
            src = f"default for {p.provider}"
        table.add_row(key, redact(_text(value)), src)
    out.print(table)
    if key_env:
        state = "set" if key_set else "NOT set"
        out.print(f"API key: ${key_env} is {state} in this environment.")
    return 0


def _new(*, name: str | None, json_out: bool, provider: str | None, model: str | None, url: str | None,
         api_key_env: str | None, force: bool, **_: Any) -> int:
    from agentcli.config.discovery import scan
    from agentcli.config.writer import new_profile

    if not name or not provider or not model:
        raise UsageError("`agent profiles new` needs NAME, --provider and --model")
    path: Path = new_profile(name, provider=provider, model=model, url=url, api_key_env=api_key_env, force=force)
    shadows = [r for r in scan()[0] if r.name == name and r.scope == "shipped"]
    if json_out:
        sys.stdout.write(json.dumps({"name": name, "path": str(path)}) + "\n")
        return 0
    out, _err = _consoles()
    out.print(f"Wrote {path} (mode 0600).")
    if shadows:
        out.print(f"It replaces the shipped profile {name!r}.")
    from agentcli.config.providers import default_api_key_env

    key_env = api_key_env if api_key_env is not None else default_api_key_env(provider)
    if key_env and not os.environ.get(key_env):
        out.print(f"Set the key before running: export {key_env}=...")
    out.print(f"Try it: agent run --profile {name} \"hello\"")
    return 0
