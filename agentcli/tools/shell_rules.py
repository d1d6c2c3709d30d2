"""Shell command rules: allow / ask / deny by command prefix, judged part by part.

A command line is split into every simple command it runs — across `;`, `&&`, `|`,
newlines, `$(...)`, backticks, `<(...)`, `sh -c '...'`, `sudo`, `env`, `xargs`,
`find -exec` — and each part is judged on its own; the strictest part decides. Deny
and ask rules match loosely (the command name plus each rule word anywhere, flag
bundles in any order) and allow rules match strictly (a literal prefix), so wrapping
or reordering can make a command stricter but never looser. Anything not modelled is
"ask"; so is a part no rule matches.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping
from dataclasses import field
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

from agentcli.core.record import record
from agentcli.tools.sandbox_env import judge_env_names
from agentcli.tools.shell_lex import (
    CONTROL,
    ShellSyntaxError,
    Simple,
    lex,
    split_simple,
)
from agentcli.tools.shell_unwrap import ASSIGNMENT, basename, risky_options, unwrap

if TYPE_CHECKING:
    from agentcli.config.schema import BashConfig

Decision = Literal["allow", "ask", "deny"]
_RANK: dict[str, int] = {"allow": 0, "ask": 1, "deny": 2}
_DECISIONS: tuple[Decision, ...] = ("allow", "ask", "deny")  # indexed by rank
MAX_COMMAND_CHARS = 100_000
MAX_DEPTH = 8
# Absolute paths that still count as "the command itself" for allow rules.
_SYSTEM_DIRS = ("/bin/", "/usr/bin/", "/usr/local/bin/", "/sbin/", "/usr/sbin/")
_RESERVED = frozenset({"!", "{", "}", "then", "do", "else", "elif", "if", "while", "until", "fi", "done", "esac"})
_UNMODELLED = frozenset({"for", "case", "select", "function", "coproc", "[[", "((", "in"})
_SAFE_TARGETS = frozenset({"/dev/null"})
_NOT_FILES = frozenset({"<<", "<<-", "<<<"})  # here-document delimiters and here-strings name no file
_SOCKET_DIRS = ("/dev/tcp/", "/dev/udp/")  # bash opens a socket for these names itself
_GLOB = frozenset("*?[")


def _socket_path(target: str) -> bool:
    """True when a redirection target is one of bash's /dev/tcp or /dev/udp socket names."""
    norm = "/" + "/".join(p for p in target.split("/") if p and p != ".")
    return norm.startswith(_SOCKET_DIRS) or norm in ("/dev/tcp", "/dev/udp")


def _proc_reason(text: str) -> str | None:
    """Why a word reaching into /proc could show the agent's environment (its API keys), or None.

    The shell is the agent's child, so `/proc/$PPID/environ` (and `cmdline`, `mem`, ...) belong to
    the agent process; any `environ` path, `$PPID`, our own pid, `..` or a computed/globbed pid is refused.
    """
    parts = [p for p in text.split("/") if p and p != "."]
    if "environ" in parts[1:]:
        return "reads a process environment (.../environ), which can hold the agent's API keys"
    if "proc" not in parts:
        return None
    rest = parts[parts.index("proc") + 1:]
    if "environ" in text or "PPID" in text:
        return "reads the agent's /proc entry (environ or $PPID), which can hold its API keys"
    if not rest:
        return None
    pid = rest[0]
    if pid in (str(os.getpid()), str(os.getppid())) or ".." in rest:
        return "reads the agent process's own /proc entry, which can hold its API keys"
    if pid[:1] in ("$", "`") or _GLOB & set(pid):
        return "reads a computed or globbed /proc/PID entry, which could be the agent's"
    return None


@record
class Verdict:
    decision: Decision
    reason: str
    parts: list[str] = field(default_factory=list)


@record
class _Rules:
    allow: tuple[tuple[str, ...], ...]
    ask: tuple[tuple[str, ...], ...]
    deny: tuple[tuple[str, ...], ...]


def _split_rule(rule: str) -> tuple[str, ...]:
    try:
        return tuple(shlex.split(rule))
    except ValueError:
        return tuple(rule.split())


@lru_cache(maxsize=64)
def _compile(allow: tuple[str, ...], ask: tuple[str, ...], deny: tuple[str, ...]) -> _Rules:
    def conv(xs: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
        return tuple(t for t in (_split_rule(x) for x in xs) if t)
    return _Rules(conv(allow), conv(ask), conv(deny))


# Spellings that mean the same flag, so `rm -R --force` still meets a `rm -rf` deny rule.
_SAME_FLAG: dict[str, dict[str, str]] = {
    "rm": {"-R": "-r", "--recursive": "-r", "--force": "-f", "--dir": "-d"},
    "git": {"-f": "--force"},
    "chmod": {"--recursive": "-R"},
    "chown": {"--recursive": "-R"},
}
_SAME_LETTER: dict[str, dict[str, str]] = {"rm": {"R": "r"}}


def _normalise(name: str, words: list[str] | tuple[str, ...]) -> list[str]:
    same, letters = _SAME_FLAG.get(name, {}), _SAME_LETTER.get(name, {})
    out = []
    for w in words:
        w = same.get(w, w)
        if letters and len(w) > 1 and w[0] == "-" and w[1] != "-":
            w = "-" + "".join(letters.get(c, c) for c in w[1:])
        out.append(w)
    return out


def _short_flags(argv: list[str]) -> set[str]:
    letters: set[str] = set()
    for a in argv:
        if len(a) > 1 and a[0] == "-" and a[1] != "-":
            letters.update(a[1:])
    return letters


def _loose(argv: list[str], rule: tuple[str, ...]) -> bool:
    """Deny/ask matching: same command name, each rule word present somewhere, flags in any order."""
    name = basename(argv[0])
    if name != basename(rule[0]):
        return False
    rest = _normalise(name, argv[1:])
    for word in _normalise(name, rule[1:]):
        if word in rest:
            continue
        if len(word) > 1 and word[0] == "-" and word[1] != "-" and set(word[1:]) <= _short_flags(rest):
            continue
        if word.startswith("--") and any(a.startswith(word + "=") for a in rest):
            continue
        return False
    return True


def _prefix(argv: list[str], rule: tuple[str, ...]) -> bool:
    """Allow matching: a literal prefix; the command may be written with a system directory."""
    if len(argv) < len(rule):
        return False
    name = argv[0]
    if name != rule[0] and not (name.startswith(_SYSTEM_DIRS) and basename(name) == rule[0]):
        return False
    return list(argv[1:len(rule)]) == list(rule[1:])


def _match(argv: list[str], rules: _Rules) -> tuple[Decision, str]:
    for rule in rules.deny:
        if _loose(argv, rule):
            return "deny", f"denied by rule {' '.join(rule)!r}"
    for rule in rules.ask:
        if _loose(argv, rule):
            return "ask", f"rule {' '.join(rule)!r} asks"
    for rule in rules.allow:
        if _prefix(argv, rule):
            return "allow", f"allowed by rule {' '.join(rule)!r}"
    return "ask", f"no rule matches {shlex.join(argv[:3])!r}"


class _Judge:
    def __init__(self, rules: _Rules) -> None:
        self.rules = rules
        self.rank = 0
        self.reasons: dict[int, dict[str, None]] = {0: {}, 1: {}, 2: {}}  # ordered sets
        self.parts: list[str] = []

    def bump(self, decision: Decision, reason: str) -> None:
        r = _RANK[decision]
        self.rank = max(self.rank, r)
        self.reasons[r].setdefault(reason, None)

    def verdict(self) -> Verdict:
        decision = _DECISIONS[self.rank]
        reasons = list(self.reasons[self.rank])
        text = "; ".join(reasons[:4]) + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")
        return Verdict(decision, text or decision, self.parts)

    # -- levels --
    def script(self, text: str, depth: int) -> None:
        if depth > MAX_DEPTH:
            self.bump("ask", "commands nested too deeply to judge")
            return
        if len(text) > MAX_COMMAND_CHARS:
            self.bump("ask", "command too long to judge")
            return
        if not text.strip():
            self.bump("ask", "empty command")
            return
        try:
            lexed = lex(text)
            simples = split_simple(lexed.tokens)
        except ShellSyntaxError as exc:
            self.bump("ask", f"cannot parse the command ({exc})")
            return
        for note in lexed.notes:
            self.bump("ask", note)
        for sub in lexed.subs:
            self.bump("ask", "uses command or process substitution")
            self.script(sub, depth + 1)
        if not simples:
            self.bump("ask", "no command to judge")
        for simple in simples:
            self.simple(simple, depth)

    def simple(self, simple: Simple, depth: int) -> None:
        if simple.function_def:
            self.bump("ask", "defines a shell function")
        for w in simple.words:
            if ("proc" in w.text or "environ" in w.text) and (why := _proc_reason(w.text)) is not None:
                self.bump("deny", why)
        for op, target in simple.redirects:
            if target.dynamic:
                self.bump("ask", f"redirection target {target.raw!r} is computed")
            if op in _NOT_FILES:
                continue
            if _socket_path(target.text):
                self.bump("ask", f"opens a network connection by redirection ({op} {target.text})")
                continue
            if (why := _proc_reason(target.text)) is not None:
                self.bump("deny", why)
            if op == "<":
                continue
            if op in (">&", "<&") and (target.text.isdigit() or target.text == "-"):
                continue  # duplicating a descriptor writes nothing
            if target.text in _SAFE_TARGETS:
                continue
            self.bump("ask", f"writes to a file by redirection ({op} {target.text})")
        words = list(simple.words)
        while words and (words[0].raw in _RESERVED or words[0].raw == "time"):
            if words.pop(0).raw == "time" and words and words[0].raw == "-p":
                words.pop(0)  # `time` is a keyword: `time { ...; }` runs the group
        if words and words[0].raw in _UNMODELLED:
            self.bump("ask", f"shell construct {words[0].raw!r} is not modelled")
        assigned: list[str] = []
        while words and ASSIGNMENT.match(words[0].raw):
            assigned.append(words.pop(0).raw.split("=", 1)[0])
        if assigned:
            self.bump("ask", f"sets environment variables ({', '.join(assigned)})")
        if not words:
            return
        if any(w.dynamic for w in words):
            self.bump("ask", "uses shell expansion ($VAR, $(...), `...` or {a,b}); its value is unknown")
        if words[0].glob:
            self.bump("ask", "the command name is a glob")
        self.argv([w.text for w in words], depth)

    def argv(self, argv: list[str], depth: int) -> None:
        self.parts.append(shlex.join(argv))
        decision, reason = _match(argv, self.rules)
        self.bump(decision, reason)
        for reason in risky_options(argv):
            self.bump("ask", reason)
        for kind, payload in unwrap(argv):
            if depth > MAX_DEPTH:
                self.bump("ask", "commands nested too deeply to judge")
            elif kind == "argv":
                self.argv(payload, depth + 1)  # type: ignore[arg-type]
            elif kind == "script":
                self.script(payload, depth + 1)  # type: ignore[arg-type]
            else:
                self.bump("ask", payload)  # type: ignore[arg-type]


# Characters a quoting trick hides a command name behind: `r''m`, `"rm"`, `\rm`, `$'rm'`.
_QUOTING = re.compile(r"\$(?=['\"])|['\"\\]")
_SEGMENT = re.compile(r"[;&|()`{}\n<>]+|\$\(")


def _denied_in_text(command: str, rules: _Rules) -> str | None:
    """A deny rule met by the command once quotes and backslashes are removed, or None.

    Deny must win over `--yes`: a quoting or nesting trick that makes the parse fail (so the
    verdict is "ask") must not turn a denied command into one `--yes` approves.
    """
    if not rules.deny:
        return None
    flat = _QUOTING.sub("", command[:MAX_COMMAND_CHARS])
    for segment in _SEGMENT.split(flat):
        words = segment.split()
        for i, word in enumerate(words):
            for rule in rules.deny:
                if basename(word) == basename(rule[0]) and _loose(words[i:], rule):
                    return f"denied by rule {' '.join(rule)!r} (written with quoting or nesting)"
    return None


def judge(command: str, rules: BashConfig, env: Mapping[str, str] | None = None) -> Verdict:
    """Decide allow / ask / deny for a shell command line (and the tool's `env`) under the profile's rules."""
    compiled = _compile(tuple(rules.allow), tuple(rules.ask), tuple(rules.deny))
    j = _Judge(compiled)
    if not isinstance(command, str):
        return Verdict("ask", "the command is not a string", [])
    if "\x00" in command:
        return Verdict("ask", "the command contains a NUL byte", [])
    j.script(command, 0)
    if j.rank == _RANK["ask"]:
        # Not understood, so --yes would approve it: deny must still win. Control characters are
        # read as separators here (stricter than bash, which reads them as word characters).
        for variant in dict.fromkeys((command, CONTROL.sub(" ", command), CONTROL.sub("\n", command))):
            if variant != command:
                again = _Judge(compiled)
                again.script(variant, 0)
                if again.rank == _RANK["deny"]:
                    j.bump("deny", again.verdict().reason)
            if (why := _denied_in_text(variant, compiled)) is not None:
                j.bump("deny", why)
    for why in judge_env_names(env):
        j.bump("ask", why)
    return j.verdict()

