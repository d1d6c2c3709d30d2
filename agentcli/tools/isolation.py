"""What the shell process inherits: a scrubbed environment, and no network when the profile says so.

Network isolation is a fresh network namespace (`unshare -n`, or `unshare -rn` without
root). It is probed once per process; when it cannot work the bash tool refuses to run
rather than run with the network on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping

from agentcli.core.redact import is_secret_name

# Inherited variables a non-interactive shell would execute or that page output forever.
_DROP_ALWAYS = frozenset({"BASH_ENV", "ENV", "PROMPT_COMMAND"})
_QUIET = {"PAGER": "cat", "GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}

_probe_cache: tuple[tuple[str, ...] | None, str] | None = None


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


def set_probe_result(result: tuple[tuple[str, ...] | None, str] | None) -> None:
    """Override or clear the cached probe (tests, and hosts that know better)."""
    global _probe_cache
    _probe_cache = result
