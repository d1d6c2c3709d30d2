"""Git run by agentcli, safe by construction: no program a repository names ever runs.

A repository's own config (`.git/config`, included files) can name programs git runs on
ordinary commands: hooks, `core.fsmonitor`, pagers, external diff and textconv drivers,
clean/smudge filters, merge drivers, signing programs. A hostile clone must not get to run
them through the agent, so every call:

- uses a fixed subcommand and options built by the tool (never a model's command line), with
  revisions checked (no leading `-`) and paths confined to the workspace, after `--`;
- passes `-c` overrides that switch each such key off: hooks (`core.hooksPath=/dev/null`),
  `core.fsmonitor`, pagers (`--no-pager`, `core.pager`), `diff.external`, signing, and every
  filter / diff / merge driver the repository's config defines (found by listing the config,
  which runs nothing);
- runs with a scrubbed environment (no GIT_* from the host, GIT_CONFIG_NOSYSTEM, no prompts,
  no editor), discovery stopped at the workspace (`GIT_CEILING_DIRECTORIES`), and refuses a
  repository whose work tree is not the workspace (a `core.worktree` pointing elsewhere);
- is bounded in time and output.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.record import record
from agentcli.tools.procio import Finished, run_program, run_program_sync

TIMEOUT_S = 30.0
REV = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/~^@{}:+\-]{0,199}$")  # never an option
# Config keys (lower case, subsection stripped) whose value is a program git would run.
_PROGRAM_KEYS = re.compile(
    r"^(filter\.(.+)\.(clean|smudge|process)|diff\.(.+)\.(command|textconv)|merge\.(.+)\.driver"
    r"|core\.(fsmonitor|pager|editor|sshcommand|askpass|hookspath|gitproxy|alternaterefscommand)"
    r"|pager\..+|gpg\.(.+\.)?program|sequence\.editor|credential\..*helper|diff\.external"
    r"|uploadpack\.packobjectshook|remote\..+\.(uploadpack|receivepack|proxy))$",
    re.IGNORECASE,
)
_FIXED = (
    "-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", "-c", "core.pager=cat", "-c", "diff.external=",
    "-c", "commit.gpgSign=false", "-c", "tag.gpgSign=false", "-c", "core.sshCommand=false", "-c", "credential.helper=",
    "-c", "core.editor=true", "-c", "sequence.editor=true", "-c", "color.ui=false", "-c", "core.quotePath=false",
    "-c", "advice.detachedHead=false",
)
_KEEP_ENV = ("PATH", "HOME", "XDG_CONFIG_HOME", "LANG", "LC_ALL", "TZ", "USER", "LOGNAME")


def git_path() -> str:
    found = shutil.which("git")
    if not found:
        raise ToolFailure.of(ErrorCode.EXECUTION, "git is not installed here", "Use the file tools instead.")
    return found


def env_for(root: Path) -> dict[str, str]:
    """The host environment without any GIT_* (or other) variable but the few git needs."""
    env = {k: os.environ[k] for k in _KEEP_ENV if k in os.environ}
    env.update(
        GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0", GIT_PAGER="cat", PAGER="cat", GIT_EDITOR="true",
        GIT_CEILING_DIRECTORIES=str(root.parent), GIT_OPTIONAL_LOCKS="0", GIT_ATTR_NOSYSTEM="1", LC_ALL="C",
        GIT_ASKPASS="", SSH_ASKPASS="", GIT_LITERAL_PATHSPECS="1",
    )
    return env


def check_rev(value: str, name: str = "rev") -> str:
    if not REV.match(value):
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{name} {value[:60]!r} is not a revision (letters, digits and "
                             "._/~^@{}:+- only, not starting with -)", "Pass a branch, tag, commit hash or HEAD~N.",
                             argument=name)
    return value


@record
class Repo:
    """The workspace's repository, with the overrides that keep its config from running programs."""

    root: Path
    overrides: tuple[str, ...]

    def argv(self, args: list[str]) -> list[str]:
        return [git_path(), "--no-pager", *_FIXED, *self.overrides, *args]

    async def run(self, args: list[str], *, keep: int, timeout: float = TIMEOUT_S) -> Finished:
        return await run_program(self.argv(args), cwd=str(self.root), env=env_for(self.root), timeout=timeout, keep=keep)

    def peek(self, args: list[str], keep: int = 8000) -> str:
        """A short read for an approval preview (blocking, a few seconds at most); '' when it fails."""
        code, out = run_program_sync(self.argv(args), cwd=str(self.root), env=env_for(self.root), timeout=5,
                                     keep=keep)
        return out if code == 0 else ""


async def open_repo(root: Path) -> Repo:
    """The repository at the workspace root, or a clear error. Listing its config runs nothing."""
    real = Path(os.path.realpath(root))
    if not (real / ".git").exists():
        raise ToolFailure.of(ErrorCode.NOT_FOUND, "the workspace is not a git repository (no .git at its root)",
                             "Use the file tools; or ask the user to run `git init` here.")
    base = Repo(real, ())
    top = await base.run(["rev-parse", "--show-toplevel"], keep=4096, timeout=10)
    where = top.out.text(4096, "stdout").strip()
    if top.code != 0 or os.path.realpath(where or "/") != str(real):
        raise ToolFailure.of(ErrorCode.PERMISSION, "this repository's work tree is not the workspace "
                             f"({where or top.err.text(300, 'stderr').strip()})",
                             "Run agentcli with the repository's top folder as the workspace.")
    listed = await base.run(["config", "--null", "--list"], keep=1 << 20, timeout=10)
    return Repo(real, tuple(_overrides(listed.out.text(1 << 20, "config"))))


def open_repo_sync(root: Path) -> Repo | None:
    """The same repository for a preview, or None when it is not one agentcli will use."""
    real = Path(os.path.realpath(root))
    if not (real / ".git").exists():
        return None
    base = Repo(real, ())
    if os.path.realpath(base.peek(["rev-parse", "--show-toplevel"], 4096).strip() or "/") != str(real):
        return None
    try:
        return Repo(real, tuple(_overrides(base.peek(["config", "--null", "--list"], 1 << 20))))
    except ToolFailure:
        return None


def _overrides(config: str) -> list[str]:
    """`-c KEY=` for every key in the listing that names a program (filters, drivers, pagers...)."""
    out: list[str] = []
    seen: set[str] = set()
    for entry in config.split("\0"):
        key = entry.split("\n", 1)[0]
        if not key or key.lower() in seen or not _PROGRAM_KEYS.match(key):
            continue
        if "=" in key:
            raise ToolFailure.of(ErrorCode.PERMISSION, f"this repository's config has a key git tools cannot switch "
                                 f"off safely ({key[:80]!r})", "Use the file tools, or bash in the sandbox.")
        seen.add(key.lower())
        out += ["-c", f"{key}="]
    return out


def merge_drivers(repo: Repo) -> list[str]:
    """Merge drivers the repository defines (a stash pop would run them)."""
    return [repo.overrides[i + 1][:-1] for i in range(0, len(repo.overrides), 2)
            if repo.overrides[i + 1].lower().startswith("merge.")]


def render(done: Finished, budget: int, what: str) -> str:
    """Output for the model: stdout, then stderr, bounded; failures raise with git's message."""
    if done.timed_out:
        raise ToolFailure.of(ErrorCode.TIMEOUT, f"git {what} did not finish within {TIMEOUT_S:g} s",
                             "Narrow it: a path, a smaller range or fewer commits.")
    err = done.err.text(min(budget // 3, 4000), "stderr").strip()
    if done.code != 0:
        raise ToolFailure.of(ErrorCode.EXECUTION, f"git {what} failed (exit {done.code}): {err or '(no message)'}",
                             "Check the revision and paths (git status, git log).")
    out = done.out.text(budget, "output").rstrip("\n")
    return out + (f"\n[stderr]\n{err}" if err else "") if out or err else "(no output)"
