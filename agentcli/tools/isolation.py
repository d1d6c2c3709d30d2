"""What the shell process inherits: a scrubbed environment, and no network when the profile says so.

Network isolation is a fresh network namespace (`unshare -n`, or `unshare -rn` without
root). It is probed once per process; when it cannot work the bash tool refuses to run
rather than run with the network on.

The shell is the agent's child, so `/proc/$PPID/environ` would show it the environment the
agent started with, API keys included. `protect_process_environment` blanks secret values in
that start-up block (Python's `os.environ` keeps them) and makes the agent non-dumpable.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING

from agentcli.core.redaction import is_secret_name

if TYPE_CHECKING:
    import ctypes

# Inherited variables a non-interactive shell would execute or that page output forever.
_DROP_ALWAYS = frozenset({"BASH_ENV", "ENV", "PROMPT_COMMAND"})
_QUIET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}

_probe_cache: tuple[tuple[str, ...] | None, str] | None = None
_protected = False
_drop_cache: tuple[str, ...] | None = None
# Run as root, the shell keeps every capability; without CAP_SYS_PTRACE it cannot open the agent's
# /proc/PID/mem (the agent is non-dumpable), so it cannot read keys out of the agent's memory.
_DROP_PTRACE = ("--bounding-set", "-sys_ptrace", "--inh-caps", "-sys_ptrace", "--")


def scrub_env(
    base: Mapping[str, str], extra: Mapping[str, str] | None, env_allow: Iterable[str]
) -> tuple[dict[str, str], list[str]]:
    """The shell's environment and the names left out (never their values).

    Secret-named variables (KEY, TOKEN, SECRET, PASSWORD, ...) are dropped unless listed
    in env_allow; the model's `env` argument can never add one.
    """
    allowed = set(env_allow)
    dropped: list[str] = []
    env: dict[str, str] = {}
    for name, value in base.items():
        if name in _DROP_ALWAYS or (is_secret_name(name) and name not in allowed):
            dropped.append(name)
            continue
        env[name] = value
    env.update(_QUIET)
    for name, value in (extra or {}).items():
        if is_secret_name(name):
            dropped.append(name)
            continue
        env[name] = value
    return env, dropped


def _candidates() -> list[tuple[str, ...]]:
    exe = shutil.which("unshare")
    if exe is None:
        return []
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return [(exe, "-n"), (exe, "-rn")] if as_root else [(exe, "-rn")]


def probe_network_isolation(*, refresh: bool = False) -> tuple[tuple[str, ...] | None, str]:
    """(argv prefix that runs a command with no network, "") or (None, why not). Cached."""
    global _probe_cache
    if _probe_cache is not None and not refresh:
        return _probe_cache
    result: tuple[tuple[str, ...] | None, str] = (None, "the `unshare` command (util-linux) is not installed")
    true = shutil.which("true") or "/bin/true"
    for prefix in _candidates():
        try:
            done = subprocess.run([*prefix, true], capture_output=True, timeout=10, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            result = (None, f"`{' '.join(os.path.basename(p) for p in prefix)}` failed: {exc}")
            continue
        if done.returncode == 0:
            result = (prefix, "")
            break
        err = done.stderr.decode(errors="replace").strip().splitlines()
        result = (None, f"`unshare {prefix[1]}` is not permitted here ({err[-1] if err else done.returncode}); "
                        "user namespaces may be disabled")
    _probe_cache = result
    return result


def capability_drop_prefix(*, refresh: bool = False) -> tuple[str, ...]:
    """argv prefix that starts a root shell without CAP_SYS_PTRACE (`setpriv`), or () when not root
    or not possible here. Probed once; a failed probe means no prefix, never a failed command."""
    global _drop_cache
    if _drop_cache is not None and not refresh:
        return _drop_cache
    prefix: tuple[str, ...] = ()
    exe = shutil.which("setpriv")
    if exe is not None and hasattr(os, "geteuid") and os.geteuid() == 0:
        true = shutil.which("true") or "/bin/true"
        try:
            done = subprocess.run([exe, *_DROP_PTRACE, true], capture_output=True, timeout=10,
                                  stdin=subprocess.DEVNULL)
            if done.returncode == 0:
                prefix = (exe, *_DROP_PTRACE)
        except (OSError, subprocess.TimeoutExpired):
            pass
    _drop_cache = prefix
    return prefix


def set_probe_result(result: tuple[tuple[str, ...] | None, str] | None) -> None:
    """Override or clear the cached probe (tests, and hosts that know better)."""
    global _probe_cache
    _probe_cache = result


# ----- the agent's own /proc/PID/environ ----------------------------------------------------

_PR_SET_DUMPABLE = 4
_ENV_START_FIELD = 50  # /proc/PID/stat fields 50 and 51 (1-based): env_start, env_end (Linux >= 3.5)


def _libc() -> tuple[ModuleType, ctypes.CDLL]:
    import ctypes

    return ctypes, ctypes.CDLL(None, use_errno=True)


def _env_block() -> tuple[int, bytes] | None:
    """(address, bytes) of this process's start-up environment block, as /proc/self/environ shows it."""
    try:
        with open("/proc/self/stat", "rb") as f:
            stat = f.read()
        fields = stat[stat.rindex(b")") + 2:].split()
        start, end = int(fields[_ENV_START_FIELD - 3]), int(fields[_ENV_START_FIELD - 2])
        with open("/proc/self/environ", "rb") as f:
            shown = f.read()
    except (OSError, ValueError, IndexError):
        return None
    if not 0 < start < end or end - start != len(shown):
        return None
    return start, shown


def _blank_secret_values(names: frozenset[str]) -> list[str]:
    """Zero the values of secret variables in the start-up block; the names blanked (never values).

    Each value is first re-set with setenv, so C code and child processes that inherit the
    environment still see it (from heap memory that /proc/PID/environ does not show).
    """
    block = _env_block()
    if block is None:
        return []
    start, shown = block
    ctypes, _ = _libc()
    if ctypes.string_at(start, len(shown)) != shown:
        return []  # the block is not where the kernel says: touch nothing
    blanked: list[str] = []
    offset = 0
    for entry in shown.split(b"\0"):
        name, eq, value = entry.partition(b"=")
        text = name.decode("utf-8", "surrogateescape")
        if eq and value.strip(b"\0") and (is_secret_name(text) or text in names):
            current = os.environb.get(name) if hasattr(os, "environb") else None
            if current is not None:
                os.putenv(name, current)  # move the live value off the start-up block first
            at = start + offset + len(name) + 1
            ctypes.memset(at, 0, len(value))
            blanked.append(text)
        offset += len(entry) + 1
    return blanked


def protect_process_environment(extra_names: Iterable[str] = ()) -> list[str]:
    """Keep shells the agent starts from reading its keys out of /proc/<agent pid>/environ.

    On Linux: marks the process non-dumpable (other processes of the same user can no longer
    open its /proc files or memory) and blanks secret-named values, plus `extra_names` (a
    custom key variable), in the start-up environment block that /proc/PID/environ reads;
    os.environ and children keep the values. Returns the names blanked. Safe to call again;
    a no-op elsewhere. Root with CAP_SYS_PTRACE can still read the process's memory.
    """
    global _protected
    _protected = True
    if not sys.platform.startswith("linux"):
        return []
    try:
        _, libc = _libc()
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    try:
        return _blank_secret_values(frozenset(extra_names))
    except (OSError, ValueError):
        return []


def ensure_process_protected() -> None:
    """protect_process_environment() once per process, before the first shell starts."""
    if not _protected:
        protect_process_environment()
