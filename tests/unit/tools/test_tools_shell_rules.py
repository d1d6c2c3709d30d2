"""Shell rules: the corpus (issue 8 §3) plus wrapped mutations of every command with a non-allowed part."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from agentcli.config.schema import BashConfig
from agentcli.tools.shell_rules import judge

CORPUS = json.loads((Path(__file__).parent / "shell_corpus.json").read_text())
RULES = BashConfig(**CORPUS["rules"])
RANK = {"allow": 0, "ask": 1, "deny": 2}


@pytest.mark.parametrize("case", CORPUS["cases"], ids=lambda c: c["command"][:40].replace("\n", "\\n"))
def test_corpus_decision(case):
    v = judge(case["command"], RULES)
    assert v.decision == case["expect"], f"{case['command']!r}: {v.decision} ({v.reason})"
    assert v.reason


def _mutations(command: str) -> list[str]:
    out = []
    for w in CORPUS["wrappers"]:
        out.append(w.replace("{quoted}", shlex.quote(command)).replace("{cmd}", command)
                   .replace("{{", "{").replace("}}", "}"))
    return out


_PREFIX_WRAPPERS = ("env X=1 ", "X=1 ", "nohup ", "timeout 10 ", "command ", "sudo ")


def _not_run_by_bash(command: str, mutated: str) -> bool:
    """Mutations where bash itself would not run the inner command (so "ask" is as good as "deny").

    `nohup { rm -rf /; }` runs a program named `{`; unescaped nested backticks split differently.
    """
    if command.startswith(("{", "(")) and mutated.startswith(_PREFIX_WRAPPERS):
        return True
    return "`" in command and mutated.startswith("echo `")


def test_no_wrapped_command_is_auto_approved():
    # Commands that are "ask" only because they are empty or malformed have no part to hide: wrapping
    # can legitimately complete them (`ls \\` + `; ls` is a valid, allowed command).
    risky = [c["command"] for c in CORPUS["cases"] if c["expect"] != "allow"
             and not judge(c["command"], RULES).reason.startswith(("cannot parse", "empty command"))]
    checked = approved = weakened = 0
    failures = []
    for command in risky:
        base = judge(command, RULES).decision
        for mutated in [command, *_mutations(command)]:
            v = judge(mutated, RULES)
            checked += 1
            if v.decision == "allow":
                approved += 1
                failures.append((mutated, v.reason))
            if base == "deny" and v.decision != "deny" and not _not_run_by_bash(command, mutated):
                weakened += 1
                failures.append((mutated, f"deny weakened to {v.decision}: {v.reason}"))
    print(f"\nshell corpus: {approved} of {checked} commands with a non-allowed part auto-approved; "
          f"{weakened} denies weakened by wrapping")
    assert not failures, failures[:10]
    assert checked > 150 * 20


def test_plainly_safe_commands_still_allowed():
    for cmd in ("ls", "ls -la", "cat README.md", "rg -n foo src", "git status", "git diff --stat", "git log -n 3",
                "head -5 a.txt", "wc -l a.txt", "grep -rn x .", "find . -name '*.py'", "git status && git diff"):
        assert judge(cmd, RULES).decision == "allow", cmd


def test_only_the_profile_allow_list_allows():
    bare = BashConfig()
    for cmd in ("ls", "cat x", "git status", "echo hi"):
        v = judge(cmd, bare)
        assert v.decision == "ask" and "no rule matches" in v.reason


def test_strictest_rule_wins_and_parts_are_reported():
    rules = BashConfig(allow=["git"], ask=["git push"], deny=["git push --force"])
    assert judge("git fetch", rules).decision == "allow"
    assert judge("git push origin", rules).decision == "ask"
    assert judge("git push --force origin", rules).decision == "deny"
    v = judge("ls | sh -c 'git push --force'", rules)
    assert v.decision == "deny" and "git push --force" in v.parts
    assert "ls" in v.parts


def test_allow_rules_match_the_command_as_written():
    rules = BashConfig(allow=["ls"])
    assert judge("/bin/ls", rules).decision == "allow"
    assert judge("/tmp/evil/ls", rules).decision == "ask"
    assert judge("lsof", rules).decision == "ask"  # a prefix of the name is not the command


def test_long_chains_are_judged_in_linear_work(work):
    def chain(n):
        assert judge("echo ok; " * n + "rm -rf /", RULES).decision == "deny"

    work.assert_linear(chain, 500)
    assert judge("a" * 200_000, RULES).decision == "ask"


def test_nul_and_non_strings_ask():
    assert judge("ls\x00; rm -rf /", RULES).decision == "ask"


@pytest.mark.parametrize("runner", ["npm", "pnpm", "yarn"])
def test_script_shell_option_is_not_covered_by_an_allowed_script(runner):
    rules = BashConfig(allow=[f"{runner} test"])
    assert judge(f"{runner} test", rules).decision == "allow"
    assert judge(f"{runner} test --script-shell=/tmp/evil", rules).decision == "ask"
    assert judge(f"{runner} test --script-sh /tmp/evil", rules).decision == "ask"  # abbreviated long option
