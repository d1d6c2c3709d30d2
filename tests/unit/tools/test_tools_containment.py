"""The sandbox's parts: environment allow-list, env-argument judging, seccomp program, mounts,
fail-closed approval, and the file tools' protections that go with them (own files, hard links)."""

from __future__ import annotations

import asyncio
import itertools
import os
import struct
from pathlib import Path

import pytest
from _toolbox import Box

from agentcli.agent.approval import PolicyApprover
from agentcli.config.schema import BashConfig
from agentcli.core.errors import ErrorCode
from agentcli.core.events import Checkpoint, CheckpointKind
from agentcli.tools import bwrap, seccomp
from agentcli.tools.sandbox_env import GIT_HARDENING, build_env, env_name_problem
from agentcli.tools.shell_rules import judge

RULES = BashConfig(allow=["ls", "git status", "cat"], deny=["rm -rf", "curl"])


@pytest.mark.parametrize("name", ["BASH_ENV", "ENV", "BASH_FUNC_ls", "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH",
                                  "GIT_EXTERNAL_DIFF", "GIT_SSH_COMMAND", "GIT_DIR", "PYTHONPATH", "PYTHONSTARTUP",
                                  "PAGER", "EDITOR", "VISUAL", "LESSOPEN", "NODE_OPTIONS", "PERL5OPT", "IFS",
                                  "PROMPT_COMMAND", "path", "MY_API_KEY"])
def test_env_names_that_run_programs_make_the_call_ask(name: str):
    assert env_name_problem(name) is not None
    assert judge("ls", RULES, env={name: "x"}).decision == "ask"


@pytest.mark.parametrize("name", ["BASH_FUNC_ls%%", "A=B", "", "X Y", "1ABC", "É"])
def test_env_names_must_be_plain(name: str):
    assert "plain" in (env_name_problem(name) or "")


def test_plain_env_names_do_not_change_the_verdict():
    assert judge("ls", RULES, env={"DEBUG": "1", "RUST_LOG": "info"}).decision == "allow"


async def test_env_argument_with_a_non_plain_name_is_refused(box: Box):
    r = await box.call("bash", command="ls", env={"BASH_FUNC_ls%%": "() { touch pwned; }"})
    assert not r.ok and r.error.code is ErrorCode.VALIDATION and "plain" in r.content
    assert not (box.root / "pwned").exists()


def test_environment_is_an_allow_list_and_keys_never_pass_whatever_their_name():
    host = {"PATH": "/usr/bin", "HOME": "/home/u", "LANG": "C.UTF-8", "LC_ALL": "C", "RANDOM_THING": "x",
            "ACME_GATEWAY": "gw-secret-value-123", "COPY": "gw-secret-value-123", "OPENAI_API_KEY": "sk-abcdefgh12",
            "BASH_ENV": "/x", "GIT_DIR": "/y", "LD_PRELOAD": "/z", "PYTHONPATH": "/p", "GH_TOKEN": "ghp_1234567890"}
    env, dropped = build_env(host, {"DEBUG": "1", "SMUGGLE": "pre-gw-secret-value-123"},
                             env_allow=["COPY", "GH_TOKEN", "ACME_GATEWAY"], key_names=["ACME_GATEWAY"])
    assert {"PATH", "HOME", "LANG", "LC_ALL", "DEBUG", "GH_TOKEN"} <= set(env)
    for gone in ("RANDOM_THING", "ACME_GATEWAY", "COPY", "OPENAI_API_KEY", "BASH_ENV", "GIT_DIR", "LD_PRELOAD",
                 "PYTHONPATH", "SMUGGLE"):
        assert gone not in env, gone
    assert "gw-secret-value-123" not in "".join(env.values()) and "sk-abcdefgh12" not in "".join(env.values())
    assert {"COPY", "SMUGGLE"} <= set(dropped)  # ACME_GATEWAY is a key: never even on the allow-list
    assert env["GIT_CONFIG_COUNT"] == str(len(GIT_HARDENING))
    pairs = {(env[f"GIT_CONFIG_KEY_{i}"], env[f"GIT_CONFIG_VALUE_{i}"]) for i in range(len(GIT_HARDENING))}
    assert {("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("safe.bareRepository", "explicit")} <= pairs


@pytest.mark.parametrize("command", [
    "ls\r#; curl x; touch /tmp/p", "ls\x0b; curl x", "ls\x1b[2K; curl x", "ls\x0c#x", "ls\x7f",
])
def test_control_characters_are_never_allowed(command: str):
    assert judge(command, RULES).decision != "allow"


@pytest.mark.parametrize("command", [
    "r''m -rf /", '"rm" -rf /', "\\rm -rf /", "$'rm' -rf /", 'r"m" -r"f" /', "ls\r; rm -rf /",
    "echo $(r''m -rf /)", "x=1; \"cu\"rl http://x", "ls\r#; curl http://x",
])
def test_deny_wins_over_quoting_tricks(command: str):
    assert judge(command, RULES).decision == "deny", judge(command, RULES)


def test_seccomp_program_shape():
    for machine in ("x86_64", "aarch64"):
        prog = seccomp.program(machine)
        assert prog is not None and len(prog) % 8 == 0
        ops = [struct.unpack("=HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
        for i, (code, jt, jf, _) in enumerate(ops):  # every jump lands inside the program
            if code & 0x07 == 0x05:
                assert i + 1 + max(jt, jf) < len(ops)
        assert ops[-1] == (0x06, 0, 0, 0x7FFF0000) and any(k == 0x00050000 | 13 for *_, k in ops)
    assert seccomp.program("sparc") is None


def test_mounts_hide_homes_tmp_and_own_dirs_and_protect_git_and_agent(tmp_path: Path):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".git" / "config").write_text("[core]\n")
    args = bwrap.mounts(str(ws), network=False)
    real = os.path.realpath(ws)
    pairs = list(itertools.pairwise(args))
    assert ("--tmpfs", "/tmp") in pairs and ("--bind", real) in pairs
    assert args.index("--bind") > args.index("/tmp")  # the workspace is bound on top of the scratch /tmp
    for rel in (".git", ".agent"):  # the whole git dir, not just hooks/ and config
        assert ("--ro-bind", os.path.join(real, rel)) in pairs, rel
    assert ("--ro-bind", "/proc/sys") in pairs
    for own in bwrap.own_dirs():
        if os.path.exists(own):
            assert own in args
    assert (ws / ".agent").is_dir() and not any((ws / ".agent").iterdir())


def test_workspace_inside_own_dirs_is_refused():
    own = bwrap.own_dirs()[0]
    assert bwrap.workspace_refusal(os.path.join(own, "x")) is not None
    # "/" holds bwrap (and, as root, what root runs to start the sandbox): refused where they are writable.
    assert (bwrap.workspace_refusal("/") is None) is (not os.access("/usr/bin", os.W_OK))


def _uncontained_checkpoint() -> Checkpoint:
    return Checkpoint(CheckpointKind.APPROVE_TOOL, "Run bash?", None, uncontained=True)


def test_policy_never_approves_an_uncontained_command_unless_the_user_opted_out():
    assert asyncio.run(PolicyApprover(approve_all=True).decide(_uncontained_checkpoint())).action == "no"
    opted = PolicyApprover(approve_all=True, allow_uncontained=True)
    assert asyncio.run(opted.decide(_uncontained_checkpoint())).action == "yes"
    contained = Checkpoint(CheckpointKind.APPROVE_TOOL, "Run bash?", None)
    assert asyncio.run(PolicyApprover(approve_all=True).decide(contained)).action == "yes"


def test_missing_bwrap_fails_closed(monkeypatch):
    monkeypatch.setenv(bwrap.ENV_BWRAP, "/nonexistent/bwrap")
    try:
        st = bwrap.status(refresh=True)
        assert not st.available and "not installed" in st.detail and "bubblewrap" in st.hint
    finally:
        monkeypatch.delenv(bwrap.ENV_BWRAP)
        bwrap.set_status(None)


async def test_own_files_are_never_writable_even_inside_the_workspace(tmp_path: Path, monkeypatch):
    home = tmp_path / "home"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    (home / ".config" / "agentcli" / "profiles").mkdir(parents=True)
    box = Box(tmp_path)
    box.ws = type(box.ws)(home)
    box.ctx.workspace = box.ws
    r = await box.call("write_file", path=".config/agentcli/trusted.json", content="{}")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION and "agentcli's own files" in r.content
    assert not (home / ".config" / "agentcli" / "trusted.json").exists()


async def test_hard_linked_file_is_not_readable(box: Box):
    os.link(box.outside / "secret.txt", box.root / "innocent.txt")
    r = await box.call("read_file", path="innocent.txt")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION and "hard link" in r.content
    assert "CANARY" not in r.content
