"""Workspace trust: a repository must not be able to point your API key at its own URL.

Profiles under `<workspace>/.agent/` are read only after the user runs `agent trust`
there. Trust is recorded in the user config dir, keyed by the workspace's real path, with a
hash of everything under `.agent/`: a later change there (a pull that adds `allow = ["rm"]`)
is untrusted again until the user runs `agent trust` once more.
"""

from __future__ import annotations

import json
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agentcli.config.paths import config_dir, write_private
from agentcli.core.errors import ConfigError

WORKSPACE_DIR = ".agent"
# Dotted profile keys only a trusted workspace may set: where requests go, which
# key they carry, how far tools reach and what the shell may run.
PROTECTED_KEYS: tuple[str, ...] = ("url", "api_key_env", "headers", "tools.max_tier", "tools.allow", "bash",
                                   "mcp_servers", "mcp", "fetch")


def trust_file() -> Path:
    return config_dir() / "trusted.json"


def workspace_key(workspace: Path | str) -> str:
    """The real path that trust is recorded under (symlinks resolved)."""
    return os.path.realpath(os.fspath(workspace))


def _read() -> dict[str, Any]:
    """The trust records; an unreadable or group/world-writable file trusts nothing."""
    path = trust_file()
    try:
        st = path.stat()
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    workspaces = data.get("workspaces") if isinstance(data, dict) else None
    return workspaces if isinstance(workspaces, dict) else {}


def _write(workspaces: dict[str, Any]) -> None:
    body = json.dumps({"version": 1, "workspaces": workspaces}, indent=2, sort_keys=True) + "\n"
    try:
        write_private(trust_file(), body)
    except OSError as exc:
        raise ConfigError(f"cannot record trust: {exc.strerror or exc}", file=str(trust_file())) from None


def agent_dir_hash(workspace: Path | str) -> str:
    """SHA-256 over every name, link target and file content under `<workspace>/.agent/`."""
    import hashlib  # here: listing profiles hashes nothing unless a workspace has .agent/ profiles

    root = Path(workspace_key(workspace)) / WORKSPACE_DIR
    h = hashlib.sha256()
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames) + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, root)
            h.update(b"\0path\0" + rel.encode("utf-8", "surrogateescape"))
            try:
                if os.path.islink(full):
                    h.update(b"\0link\0" + os.readlink(full).encode("utf-8", "surrogateescape"))
                    continue
                with open(full, "rb") as f:
                    for chunk in iter(lambda: f.read(1 << 20), b""):
                        h.update(chunk)
            except OSError as exc:
                h.update(b"\0unreadable\0" + str(exc.errno).encode())
    return h.hexdigest()


def status(workspace: Path | str) -> str:
    """"trusted", "changed" (trusted once, but `.agent/` differs since) or "untrusted"."""
    record = _read().get(workspace_key(workspace))
    if not isinstance(record, dict):
        return "untrusted"
    return "trusted" if record.get("agent_dir_sha256") == agent_dir_hash(workspace) else "changed"


def is_trusted(workspace: Path | str) -> bool:
    """Whether the user ran `agent trust` here and `.agent/` is as it was then (symlinks resolved)."""
    return status(workspace) == "trusted"


def trust(workspace: Path | str) -> Path:
    """Record trust for a workspace; returns its real path."""
    key = workspace_key(workspace)
    if not os.path.isdir(key):
        raise ConfigError(f"not a directory: {key}")
    records = _read()
    records[key] = {"trusted_at": datetime.now(UTC).isoformat(timespec="seconds"),
                    "agent_dir_sha256": agent_dir_hash(key)}
    _write(records)
    return Path(key)


def revoke(workspace: Path | str) -> bool:
    """Withdraw trust; False when the workspace was not trusted."""
    key = workspace_key(workspace)
    records = _read()
    if key not in records:
        return False
    del records[key]
    _write(records)
    return True


def trusted_workspaces() -> list[Path]:
    return [Path(k) for k in sorted(_read())]


def workspace_of(path: Path) -> Path | None:
    """The workspace a file belongs to when it sits under some `<ws>/.agent/`."""
    real = Path(os.path.realpath(path))
    for parent in real.parents:
        if parent.name == WORKSPACE_DIR:
            return parent.parent
    return None


def untrusted_owner(path: Path, workspace: Path | None) -> Path | None:
    """The untrusted workspace a profile file belongs to, or None.

    A file belongs to a workspace when it sits under `<ws>/.agent/` or inside the current
    workspace, judged on its path as written *and* on its real path: a symlink under `.agent/`
    (or in the workspace) that leads elsewhere, or one elsewhere that leads in, is still the
    workspace's file.
    """
    lexical = Path(os.path.abspath(path))
    real = Path(os.path.realpath(path))
    owners: list[Path] = []
    for p in (lexical, real):
        owners += [parent.parent for parent in p.parents if parent.name == WORKSPACE_DIR]
    shipped = Path(os.path.realpath(Path(__file__).parent / "profiles"))
    if workspace is not None and shipped not in real.parents:  # agentcli's own profiles are not the workspace's
        ws_real = Path(os.path.realpath(workspace))
        if any(p == ws_real or ws_real in p.parents for p in (Path(os.path.realpath(lexical.parent)) / lexical.name,
                                                               real)):
            owners.append(ws_real)
    for owner in owners:
        if not is_trusted(owner):
            return owner
    return None


def protected_keys_in(table: dict[str, Any]) -> list[str]:
    """Which protected keys a raw profile table sets (shown when asking for trust)."""
    found = []
    for dotted in PROTECTED_KEYS:
        node: Any = table
        for part in dotted.split("."):
            node = node.get(part) if isinstance(node, dict) else None
        if node is not None:
            found.append(dotted)
    return found
