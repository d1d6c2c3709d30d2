"""Which changed files git (or a hook manager) runs later on the host.

A file under `.git/hooks/` or `.husky/` (at any depth: a nested repository runs its own), the
folder `core.hooksPath` names, a `.pre-commit-config.yaml`, or a git `config` file (it can set
`core.fsmonitor` or `core.hooksPath`) is code the user's next `git` command runs outside any sandbox.
The agent may legitimately edit them, so they are not refused; `agent diff` and the run
summary flag them so a person reads them before committing.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any

_FIXED_FILES = (".pre-commit-config.yaml", ".pre-commit-hooks.yaml")


def _always_hook(rel: str) -> bool:
    """A hook or git config path wherever it sits, whatever the repository's settings."""
    parts = rel.split("/")
    if parts[-1] in _FIXED_FILES or ".husky" in parts[:-1]:
        return True
    for i, part in enumerate(parts[:-1]):
        if part == ".git" and (parts[i + 1] == "hooks" or parts[-1] == "config"):
            return True
    return False


def hooks_path(root: Path) -> str | None:
    """`core.hooksPath` as a workspace-relative folder when it lies inside the workspace, else None.
    Read with `git config` only: it runs no hook, no fsmonitor and no filter."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["GIT_OPTIONAL_LOCKS"] = "0"
    try:
        out = subprocess.run(["git", "config", "--get", "core.hooksPath"], cwd=root, env=env,
                             capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    value = out.stdout.strip()
    if out.returncode != 0 or not value:
        return None
    full = os.path.normpath(os.path.join(root, os.path.expanduser(value)))
    rel = os.path.relpath(full, root)
    if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
        return None
    return rel.replace(os.sep, "/")


def hook_files(root: Path, paths: list[str]) -> list[str]:
    """The paths among `paths` (workspace-relative) that git or a hook manager runs later."""
    configured = hooks_path(root)
    out = []
    for rel in paths:
        if not rel:
            continue
        if _always_hook(rel) or (configured and (rel == configured or rel.startswith(configured + "/"))):
            out.append(rel)
    return out


def run_hook_files(root: Path, known: set[tuple[str, str | None, str | None]], changes: list[Any],
                   named: list[str]) -> list[str]:
    """The hook files among what one run changed: the ledger's changes not in `known` (the
    (path, before, after) triples from before the run, shell changes included) plus `named`."""
    paths = [c.path for c in changes if (c.path, c.before, c.after) not in known]
    rels = list(dict.fromkeys(p for p in [*paths, *named] if p))
    return hook_files(root, rels) if rels else []  # git is asked only when something changed
