"""The environment a sandboxed command gets: built from an allow-list, never inherited.

Three sources, in order: a few host variables by name (locale, terminal, PATH, HOME),
fixed settings (no pagers, no prompts, git that ignores repository-local programs), and
the model's `env` argument after `judge_env_names` let it through. Any variable whose
value carries a secret of ours (a secret-named host variable's value, or the profile's
`api_key_env` value) is removed whatever its name, so renaming a key does not smuggle it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agentcli.core.redaction import is_secret_name

# Host variables passed through by name. Their values are checked for secrets like any other.
_PASS = frozenset({"PATH", "HOME", "LANG", "LANGUAGE", "TERM", "TZ", "USER", "LOGNAME", "COLUMNS", "LINES",
                   "NO_COLOR"})
_PASS_PREFIX = ("LC_",)
_MIN_SECRET_CHARS = 8  # shorter values ("1", "true") are not keys and would match everything
_SAFE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Git settings given on the "command line" level (GIT_CONFIG_COUNT), which beats any repository
# config: repository-local programs (fsmonitor, hooks, pagers, editors, ssh, credential helpers)
# never run, and a directory of files shaped like a bare repository is not a repository.
GIT_HARDENING: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("sequence.editor", "false"),
    ("core.sshCommand", "ssh"),
    ("core.askPass", ""),
    ("credential.helper", ""),
    ("safe.bareRepository", "explicit"),
    ("protocol.ext.allow", "never"),
)
_FIXED = {"PAGER": "cat", "GIT_PAGER": "cat", "MANPAGER": "cat", "GIT_TERMINAL_PROMPT": "0", "TMPDIR": "/tmp",
          "GIT_CONFIG_NOSYSTEM": "1"}

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
# Names that make an ordinary program run something else: shell start-up files and functions,
# the program search path, the dynamic loader, git's and interpreters' hooks, pagers and editors.
_RISKY_EXACT = frozenset({
    "BASH_ENV", "ENV", "PATH", "IFS", "CDPATH", "GLOBIGNORE", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND",
    "HOME", "TMPDIR", "PAGER", "MANPAGER", "EDITOR", "VISUAL", "BROWSER", "SHELL", "NODE_OPTIONS",
    "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "RUBYOPT", "PERL5OPT", "PERL5LIB", "LESSOPEN", "LESSCLOSE",
    "SSH_ASKPASS", "SUDO_ASKPASS", "ZDOTDIR", "XDG_CONFIG_HOME", "XDG_CONFIG_DIRS", "MAKEFLAGS", "LESSKEY",
})
_RISKY_PREFIX = ("BASH_FUNC_", "LD_", "GIT_", "PYTHON", "LESS", "NPM_CONFIG_", "DYLD_", "GCONV_", "LOCPATH")


def env_name_problem(name: str) -> str | None:
    """Why the model may not set variable `name` without a human looking, or None if it is plain."""
    if not ENV_NAME.fullmatch(name):
        return f"env name {name[:40]!r} is not a plain variable name"
    upper = name.upper()
    if upper in _RISKY_EXACT or upper.startswith(_RISKY_PREFIX):
        return f"env sets {name}, which can make an ordinary command run another program"
    if is_secret_name(name):
        return f"env sets {name}, a secret-looking name"
    return None


def judge_env_names(env: Mapping[str, str] | None) -> list[str]:
    """One reason per variable of the tool's `env` argument that makes the call need a human."""
    return [why for name in (env or {}) if (why := env_name_problem(str(name))) is not None]


def secret_values(host: Mapping[str, str], key_names: Iterable[str] = (),
                  allowed: Iterable[str] = ()) -> frozenset[str]:
    """Values that must never enter the sandbox: the named key variables', and every secret-named
    variable's that the user did not list in `env_allow`."""
    names, ok = set(key_names), set(allowed) - set(key_names)
    return frozenset(v for k, v in host.items()
                     if (k in names or (is_secret_name(k) and k not in ok)) and len(v) >= _MIN_SECRET_CHARS)


def _carries(value: str, secrets: frozenset[str]) -> bool:
    return any(s in value for s in secrets)


def build_env(host: Mapping[str, str], extra: Mapping[str, str] | None, *, env_allow: Iterable[str] = (),
              key_names: Iterable[str] = (), home: str | None = None) -> tuple[dict[str, str], list[str]]:
    """(environment for the sandboxed shell, names left out). Values are never reported.

    `env_allow` adds host names to the allow-list, secret-named ones included (the user's
    explicit choice, e.g. a token for `gh`); never `key_names`, the session's API key variables,
    whose values are removed from every variable regardless of its name.
    """
    keys = set(key_names)
    allowed = set(env_allow) - keys
    secrets = secret_values(host, keys, allowed)
    env: dict[str, str] = {}
    dropped: list[str] = []
    for name, value in host.items():
        if not (name in _PASS or name.startswith(_PASS_PREFIX) or name in allowed):
            continue
        if name in keys or (is_secret_name(name) and name not in allowed) or _carries(value, secrets):
            dropped.append(name)
            continue
        env[name] = value
    env.setdefault("PATH", _SAFE_PATH)
    if home:
        env["HOME"] = home
    env.update(_FIXED)
    env["GIT_CONFIG_COUNT"] = str(len(GIT_HARDENING))
    for i, (key, value) in enumerate(GIT_HARDENING):
        env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"] = key, value
    for name, value in (extra or {}).items():
        if is_secret_name(name) or name in keys or _carries(value, secrets) or not ENV_NAME.fullmatch(name):
            dropped.append(name)
            continue
        env[name] = value
    return env, dropped
