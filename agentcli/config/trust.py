"""Workspace trust: a repository must not be able to point your API key at its own URL.

Profiles under `<workspace>/.agent/` are read only after the user runs `agent trust`
there. Trust is recorded in the user config dir, keyed by the workspace's real path, with a
hash of everything under `.agent/`: a later change there (a pull that adds `allow = ["rm"]`)
is untrusted again until the user runs `agent trust` once more. The hash covers what links
point at (the content of their targets), not only the link strings: a link kept in place while
its target changes is a change.

One file can be trusted on its own (`agent trust FILE`), by the real path and the SHA-256 of its
content: a `--profile ./file.toml` from an untrusted folder may then set the keys below too.
Untrusted, such a file is used for its model settings only (see `without_protected`).
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


def _load(section: str) -> dict[str, Any]:
    """One section of the trust records; an unreadable or group/world-writable file trusts nothing."""
    path = trust_file()
    try:
        st = path.stat()
        if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    records = data.get(section) if isinstance(data, dict) else None
    return records if isinstance(records, dict) else {}


def _read() -> dict[str, Any]:
    return _load("workspaces")


def _write(workspaces: dict[str, Any] | None = None, files: dict[str, Any] | None = None) -> None:
    body = json.dumps({"version": 1, "workspaces": _read() if workspaces is None else workspaces,
                       "files": _load("files") if files is None else files}, indent=2, sort_keys=True) + "\n"
    try:
        write_private(trust_file(), body)
    except OSError as exc:
        raise ConfigError(f"cannot record trust: {exc.strerror or exc}", file=str(trust_file())) from None


def _hash_file(h: Any, full: str) -> None:
    try:
        with open(full, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
    except OSError as exc:
        h.update(b"\0unreadable\0" + str(exc.errno).encode())


def agent_dir_hash(workspace: Path | str) -> str:
    """SHA-256 over every name, link target and file content under `<workspace>/.agent/`, links
    followed: a link adds its target string *and* what it points at (a file's content, a folder's
    tree), so changing a target outside `.agent/` changes the hash. Each real folder is read once
    (a link cycle ends there)."""
    import hashlib  # here: listing profiles hashes nothing unless a workspace has .agent/ profiles

    root = Path(workspace_key(workspace)) / WORKSPACE_DIR
    h = hashlib.sha256()
    seen: set[tuple[int, int]] = set()
    stack: list[tuple[str, str]] = [("", str(root))]  # (rel, full path) of folders still to read
    while stack:
        rel_dir, full_dir = stack.pop()
        try:
            st = os.stat(full_dir)
            if (st.st_dev, st.st_ino) in seen:
                h.update(b"\0seen\0" + rel_dir.encode("utf-8", "surrogateescape"))
                continue
            seen.add((st.st_dev, st.st_ino))
            names = sorted(os.listdir(full_dir))
        except OSError as exc:
            if rel_dir:
                h.update(b"\0unreadable\0" + str(exc.errno).encode())
            continue
        subdirs = []
        for name in names:
            full = os.path.join(full_dir, name)
            rel = f"{rel_dir}/{name}" if rel_dir else name
            h.update(b"\0path\0" + rel.encode("utf-8", "surrogateescape"))
            if os.path.islink(full):
                try:
                    h.update(b"\0link\0" + os.readlink(full).encode("utf-8", "surrogateescape"))
                except OSError as exc:
                    h.update(b"\0unreadable\0" + str(exc.errno).encode())
            if os.path.isdir(full):
                h.update(b"\0dir\0")
                subdirs.append((rel, full))
            elif os.path.exists(full):
                h.update(b"\0file\0")
                _hash_file(h, full)
            else:
                h.update(b"\0missing\0")
        stack.extend(reversed(subdirs))
    return h.hexdigest()


def file_key(path: Path | str) -> str:
    """The real path one trusted file is recorded under."""
    return os.path.realpath(os.path.expanduser(os.fspath(path)))


def file_hash(path: Path | str) -> str | None:
    """SHA-256 of what `path` holds, links followed (None: not a readable regular file)."""
    import hashlib

    real = file_key(path)
    try:
        with open(real, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            return hashlib.sha256(f.read()).hexdigest()
    except OSError:
        return None


def file_trusted(path: Path | str) -> bool:
    """Whether the user ran `agent trust FILE` on this file and its content is as it was then."""
    record = _load("files").get(file_key(path))
    return isinstance(record, dict) and record.get("sha256") is not None and record.get("sha256") == file_hash(path)


def trust_one_file(path: Path | str) -> Path:
    """Record trust for one file, by real path and content hash; returns the real path."""
    key, digest = file_key(path), file_hash(path)
    if digest is None:
        raise ConfigError("not a readable file", file=key)
    files = _load("files")
    files[key] = {"trusted_at": datetime.now(UTC).isoformat(timespec="seconds"), "sha256": digest}
    _write(files=files)
    return Path(key)


def revoke_file(path: Path | str) -> bool:
    """Withdraw trust for one file; False when it was not trusted."""
    key, files = file_key(path), _load("files")
    if key not in files:
        return False
    del files[key]
    _write(files=files)
    return True


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
    _write(workspaces=records)
    return Path(key)


def revoke(workspace: Path | str) -> bool:
    """Withdraw trust; False when the workspace was not trusted."""
    key = workspace_key(workspace)
    records = _read()
    if key not in records:
        return False
    del records[key]
    _write(workspaces=records)
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


def without_protected(table: dict[str, Any]) -> dict[str, Any]:
    """A copy of a raw profile table with every protected key removed: what an untrusted file
    may still set (provider, model, limits, capabilities, ...)."""
    out = {k: (dict(v) if isinstance(v, dict) else v) for k, v in table.items()}
    for dotted in PROTECTED_KEYS:
        node: Any = out
        parts = dotted.split(".")
        for part in parts[:-1]:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(parts[-1], None)
    return out
