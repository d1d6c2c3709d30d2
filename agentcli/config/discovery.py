"""Find a profile by name or path: workspace (if trusted), then user dir, then shipped.

Everything the caller should tell the user comes back as warnings; this layer never prints.
"""

from __future__ import annotations

import os
from dataclasses import field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from agentcli.config import trust as _trust
from agentcli.config.loader import build_profile, profile_tables, read_toml
from agentcli.config.paths import user_profiles_dir
from agentcli.core.errors import ConfigError
from agentcli.core.record import record

if TYPE_CHECKING:  # pragma: no cover
    from agentcli.config.schema import Profile

Scope = Literal["workspace", "user", "shipped"]
SHIPPED_DIR = Path(__file__).parent / "profiles"


@record(frozen=True)
class ProfileRef:
    """One profile a file defines, and where it sits in the search order."""

    name: str
    path: Path
    scope: Scope
    trusted: bool
    shadowed: bool = False  # a profile of the same name earlier in the search wins
    provider: str = ""  # as written in the file (unvalidated), for listings
    model: str = ""


@record
class LoadedProfile:
    """A validated profile plus what the caller should show about it."""

    profile: Profile
    warnings: list[str] = field(default_factory=list)
    origins: dict[str, str] = field(default_factory=dict)  # dotted key -> file path | "default"
    scope: Scope | Literal["file"] = "file"
    # Set in interactive runs when a workspace's profiles were skipped for lack of
    # trust, so the UI may offer `agent trust` and load again.
    untrusted_workspace: Path | None = None


def shipped_dir() -> Path:
    return SHIPPED_DIR


def workspace_profiles_dir(workspace: Path) -> Path:
    return workspace / _trust.WORKSPACE_DIR / "profiles"


def _search_dirs(workspace: Path) -> list[tuple[Scope, Path, bool]]:
    return [
        ("workspace", workspace_profiles_dir(workspace), _trust.is_trusted(workspace)),
        ("user", user_profiles_dir(), True),
        ("shipped", shipped_dir(), True),
    ]


def _toml_files(d: Path, first: str | None = None) -> list[Path]:
    try:
        files = sorted(p for p in d.glob("*.toml") if p.is_file())
    except OSError:
        return []
    if first:
        files.sort(key=lambda p: p.stem != first)  # stable: NAME.toml first, rest in order
    return files


def _tables(path: Path) -> dict[str, dict[str, Any]]:
    return profile_tables(read_toml(path), path)


def scan(workspace: Path | None = None) -> tuple[list[ProfileRef], list[str]]:
    """Every profile in every search dir, in search order; broken files become warnings."""
    ws = Path(workspace) if workspace is not None else Path.cwd()
    refs: list[ProfileRef] = []
    warnings: list[str] = []
    seen: set[str] = set()
    for scope, d, trusted in _search_dirs(ws):
        for path in _toml_files(d):
            try:
                tables = _tables(path)
            except ConfigError as exc:
                warnings.append(f"skipped {exc.message}")
                continue
            for name, table in tables.items():
                active = trusted and name not in seen
                refs.append(ProfileRef(
                    name, path, scope, trusted, shadowed=trusted and not active,
                    provider=str(table.get("provider", "")), model=str(table.get("model", "")),
                ))
                if trusted:
                    seen.add(name)
    return refs, warnings


def list_profiles(workspace: Path | None = None) -> list[ProfileRef]:
    """Every profile that can be found (untrusted workspace ones marked trusted=False)."""
    return scan(workspace)[0]


def _is_path_ref(ref: str) -> bool:
    base = ref.rsplit("#", 1)[0] if "#" in ref else ref
    return base.endswith(".toml") or "/" in base or os.sep in base or base.startswith(("~", "."))


def _untrusted_notice(ws: Path, name: str, tables: dict[str, dict[str, Any]], total: int) -> str:
    if _trust.status(ws) == "changed":
        return (f"ignored the profiles in {workspace_profiles_dir(ws)}: {ws / _trust.WORKSPACE_DIR} changed since "
                f"you trusted it; review it and run `agent trust` there again")
    if name in tables:
        keys = _trust.protected_keys_in(tables[name])
        sets = f" (it sets {', '.join(keys)})" if keys else ""
        return (f"ignored profile {name!r} from {workspace_profiles_dir(ws)}{sets}: this workspace is not "
                f"trusted; run `agent trust` there if you trust it")
    return (f"ignored {total} profile(s) in {workspace_profiles_dir(ws)}: this workspace is not trusted; "
            f"run `agent trust` there if you trust it")


def _find(name: str, ws: Path, interactive: bool) -> tuple[LoadedProfile | None, list[str], Path | None]:
    """Search the dirs in order; returns the loaded profile (or None), warnings, untrusted ws."""
    warnings: list[str] = []
    untrusted: Path | None = None
    for scope, d, trusted in _search_dirs(ws):
        files = _toml_files(d, first=name)
        if not files:
            continue
        if scope == "shipped" and files[0].stem == name:
            # Each shipped file defines the one profile its name says (test_config_shipped holds them to it), so
            # no other can define this one too: parsing the rest would only find that again.
            files = files[:1]
        if not trusted:
            tables: dict[str, dict[str, Any]] = {}
            for path in files:
                try:
                    tables.update(_tables(path))
                except ConfigError:
                    continue
            if tables:
                warnings.append(_untrusted_notice(ws, name, tables, len(tables)))
                untrusted = ws if interactive else None
            continue
        hits: list[tuple[Path, dict[str, Any]]] = []
        for path in files:
            try:
                tables = _tables(path)
            except ConfigError as exc:
                if path.stem == name:
                    raise  # the file the user most likely meant: show its error
                warnings.append(f"skipped {exc.message}")
                continue
            if name in tables:
                hits.append((path, tables[name]))
        if not hits:
            continue
        if len(hits) > 1:
            if hits[0][0].stem != name:
                listed = ", ".join(str(p) for p, _ in hits)
                raise ConfigError(f"defined in more than one file: {listed}", profile=name,
                                  hint=f"keep one, or move it to {d / (name + '.toml')}")
            warnings.append(f"profile {name!r} is also defined in "
                            + ", ".join(str(p) for p, _ in hits[1:]) + f"; using {hits[0][0]}")
        path, table = hits[0]
        profile, origins = build_profile(name, table, path)
        return LoadedProfile(profile, warnings, origins, scope=scope), warnings, untrusted
    return None, warnings, untrusted


def _load_path(ref: str, interactive: bool, workspace: Path | None = None) -> LoadedProfile:
    """A profile named by path. From an untrusted folder (and not trusted on its own with
    `agent trust FILE`) it is used for its model settings only, whatever the command and
    whether or not a person is at the terminal: every key that starts a program, sends a
    request elsewhere, carries a key or changes tool and shell rules is dropped, and said so."""
    file_part, _, wanted = ref.partition("#") if ".toml#" in ref else (ref, "", "")
    path = Path(os.path.expanduser(file_part)).absolute()
    warnings: list[str] = []
    ws = _trust.untrusted_owner(path, workspace if workspace is not None else Path.cwd())
    if ws is not None and _trust.file_trusted(path):
        ws = None  # this one file was trusted by its content
    tables = _tables(path)
    if wanted:
        if wanted not in tables:
            raise ConfigError(f"not found in this file; it defines: {', '.join(sorted(tables))}",
                              file=str(path), profile=wanted)
        name = wanted
    elif len(tables) == 1:
        name = next(iter(tables))
    else:
        raise ConfigError(
            f"holds {len(tables)} profiles ({', '.join(sorted(tables))}); name one as {file_part}#NAME",
            file=str(path),
        )
    table = tables[name]
    if ws is not None:
        dropped = _trust.protected_keys_in(table)
        if dropped:
            table = _trust.without_protected(table)
            warnings.append(
                f"ignored {', '.join(dropped)} from {path}: it lies in {ws}, which is not trusted, so it is used "
                f"for its model settings only (no programs, URLs, keys, headers or tool and shell rules); "
                f"`agent trust {path}` trusts this one file by its content")
        else:
            warnings.append(f"using {path} from the untrusted folder {ws} for its model settings")
    profile, origins = build_profile(name, table, path)
    return LoadedProfile(profile, warnings, origins, scope="file")


def load_profile(ref: str | None, *, workspace: Path | None = None, interactive: bool = True) -> LoadedProfile:
    """Resolve `--profile` (a name, a path, or path#name; None = the default) to a Profile.

    Profiles in an untrusted workspace's `.agent/profiles/` are skipped with a warning.
    A file named by path inside an untrusted workspace loads for its model settings only,
    with a warning naming what was dropped, unless that file is trusted (`agent trust FILE`).
    """
    chosen_by = None
    if ref is None or not ref.strip():
        from agentcli.config.settings import default_profile  # only when no profile is named

        default = default_profile()
        ref, chosen_by = default.ref, default.origin
    ref = ref.strip()
    try:
        if _is_path_ref(ref):
            return _load_path(ref, interactive, Path(workspace) if workspace is not None else None)
        ws = Path(workspace) if workspace is not None else Path.cwd()
        loaded, warnings, untrusted = _find(ref, ws, interactive)
    except ConfigError as exc:
        if chosen_by and chosen_by != "built-in" and not exc.hint:
            exc.hint = f"the default profile comes from {chosen_by}"
        raise
    if loaded is None:
        refs, _ = scan(ws)
        names = sorted({r.name for r in refs if r.trusted})
        dirs = ", ".join(str(d) for _, d, t in _search_dirs(ws) if t)
        hint = f"searched {dirs}"
        if chosen_by and chosen_by != "built-in":
            hint = f"the default profile comes from {chosen_by}; {hint}"
        if warnings:
            hint += "; " + "; ".join(warnings)
        raise ConfigError(f"not found; available profiles: {', '.join(names) or 'none'}", profile=ref, hint=hint)
    loaded.untrusted_workspace = untrusted
    return loaded
