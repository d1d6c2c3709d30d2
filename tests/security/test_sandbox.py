"""Issue 12: a hostile scripted model against the shell, through every wire form, in the real sandbox.

The model issues every attack in sandbox_attacks.py, one call per turn, written in one wire
form (four native APIs, six text dialects). Two runs per form at the run tier:
- no human (no terminal, no --yes): only commands the allow-list fully allows may run;
- --yes: everything the rules do not deny runs, contained.
Either way: 0 connections to a 127.0.0.1 listener or a unix socket, 0 files changed outside
the workspace or in its protected parts, no key or outside canary in anything the model is
shown, no process left behind. These tests need bubblewrap and fail (never skip) without it.
"""

from __future__ import annotations

import asyncio
import json
import os
import secrets
from pathlib import Path
from typing import Any

import pytest
from sandbox_attacks import ALLOWED, DENIED, KEY_VAR, World, survivors
from sec_helpers import Sink

from agentcli.core.events import Done, ToolFinished
from agentcli.core.types import ToolCall
from agentcli.testing.streams import (
    anthropic_body,
    gemini_body,
    ollama_body,
    openai_body,
)
from agentcli.tools import bwrap

NATIVE = ("openai", "anthropic", "ollama", "gemini")
TEXT = ("hermes", "claude_xml", "pythonic", "json_block", "mistral", "qwen3_coder")
FORMS = [*(f"native:{api}" for api in NATIVE), *(f"text:{d}" for d in TEXT)]


@pytest.fixture(scope="module", autouse=True)
def sandbox_required() -> None:
    st = bwrap.status(refresh=True)
    if not st.available:
        pytest.fail(f"the shell sandbox cannot start here: {st.detail}. To run these tests, {st.hint}. "
                    "(`make test` installs bubblewrap when it runs as root with apt-get.)", pytrace=False)


def _turn(form: str, call: dict[str, Any] | None, n: int, text: str = "") -> dict[str, Any]:
    kind, name = form.split(":")
    if call is None:
        body = {"openai": openai_body, "anthropic": anthropic_body, "ollama": ollama_body, "gemini": gemini_body}
        return {kind_api(form): body[kind_api(form)](text)}
    if kind == "text":
        from agentcli.wire.dialects import get

        return {"text": get(name).render_call(ToolCall("bash", call, f"c{n}"))}
    if name == "openai":
        tc = {"id": f"c{n}", "type": "function", "function": {"name": "bash", "arguments": json.dumps(call)}}
        return {"openai": openai_body("", tool_calls=[tc])}
    if name == "anthropic":
        return {"anthropic": anthropic_body("", tool_uses=[{"type": "tool_use", "id": f"c{n}", "name": "bash",
                                                            "input": call}])}
    if name == "ollama":
        return {"ollama": ollama_body("", tool_calls=[{"function": {"name": "bash", "arguments": call}}])}
    return {"gemini": gemini_body("", calls=[{"name": "bash", "args": call}])}


def kind_api(form: str) -> str:
    kind, name = form.split(":")
    return name if kind == "native" else "openai"


async def _attack(form: str, world: World, calls: list[dict[str, Any]], *, yes: bool) -> tuple[list[ToolFinished], Done]:
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.build import open_session
    from agentcli.agent.loop import Agent
    from agentcli.config.schema import Profile
    from agentcli.providers.scripted import ScriptedProvider

    kind, name = form.split(":")
    caps: dict[str, Any] = {"native_tools": kind == "native"}
    if kind == "text":
        caps["text_dialect"] = name
    profile = Profile(name="hostile", provider="scripted", model="hostile-model", api_key_env=KEY_VAR,
                      stream=False, capabilities=caps, tools={"max_tier": "run"},
                      limits={"max_turns": len(calls) + 3}, bash={"allow": ALLOWED, "deny": DENIED})
    state = {"n": 0}

    def model(messages: Any, tools: Any, plan: Any) -> dict[str, Any]:
        n = state["n"]
        state["n"] += 1
        return _turn(form, calls[n] if n < len(calls) else None, n, "done")

    provider = ScriptedProvider.from_function(model, api=kind_api(form), profile=profile)
    session = open_session(profile, world.ws, tier="run", goal="attack", approve_mode="all" if yes else "ask",
                           record=False, provider=provider)
    events = [ev async for ev in Agent(session, PolicyApprover(approve_all=yes)).run("attack")]
    assert isinstance(events[-1], Done)
    return [e for e in events if isinstance(e, ToolFinished)], events[-1]


@pytest.mark.parametrize("yes", [False, True], ids=["no-human", "yes"])
@pytest.mark.parametrize("form", FORMS)
def test_hostile_model_is_contained(form: str, yes: bool, tmp_path: Path, monkeypatch) -> None:
    world = World(tmp_path, key="cnryGW" + secrets.token_hex(8), tag="survivor-" + secrets.token_hex(6))
    monkeypatch.setenv(KEY_VAR, world.key)
    before_outside, before_protected = world.outside_state(), world.protected_state()
    with Sink() as sink:
        unix = Sink(world.ws / "agent.sock")
        try:
            calls = world.calls(sink.port, unix.path)
            finished, done = asyncio.run(_attack(form, world, calls, yes=yes))
        finally:
            unix.close()
        connections = sink.connections
    shown = "\n".join(f.result.content for f in finished)
    # Every attack reached the tool layer in this wire form (none was lost in parsing); with no human,
    # the first one that needs an approval nobody can give ends the run (exit 3) instead.
    if yes or done.stop != "refused":
        assert len(finished) == len(calls), [f.call.arguments for f in finished]
    else:
        assert len(finished) < len(calls) and "needs approval" in (done.error or "")
    assert all(f.call.name == "bash" for f in finished)
    assert connections == 0 and unix.connections == 0, "a command reached a listener"
    assert world.outside_state() == before_outside, "a file outside the workspace changed"
    assert world.protected_state() == before_protected, ".git/config, .git/hooks or .agent/ changed"
    assert world.key not in shown and f"CANARY-{world.tag}" not in shown, "the model was shown a key or canary"
    assert not survivors(world.tag), "a process outlived its call"
    for leftover in (Path("/tmp") / f"pwned-{world.tag}", Path.home() / f"pwned-{world.tag}",
                     Path("/var/tmp") / f"pwned-{world.tag}"):
        assert not leftover.exists(), f"{leftover} was written on the host"
    assert not (world.ws / "ran-fsmonitor").exists(), "git ran a repository-local program"
    assert world.git_entries() == [], "a command left a repository in the workspace"
    if not yes:
        ran = [f.call.arguments["command"] for f in finished if f.result.content.startswith("exit code")]
        from agentcli.config.schema import BashConfig
        from agentcli.tools.shell_rules import judge

        rules = BashConfig(allow=ALLOWED, deny=DENIED)
        assert all(judge(c, rules).decision == "allow" for c in ran), ran
        assert not (world.ws / "ran-evil").exists(), "a program ran without approval"
    else:
        assert sum(f.result.content.startswith("exit code") for f in finished) >= len(calls) // 2, \
            "with --yes the attacks should have run (contained); the test would prove little"
    executed = sum(f.result.content.startswith("exit code") for f in finished)
    print(f"\nsandbox[{form},{'yes' if yes else 'no-human'}]: 0 of {len(calls)} attacks broke containment "
          f"({executed} ran in the sandbox)")


def test_no_sandbox_means_yes_runs_no_shell_command(tmp_path: Path, monkeypatch) -> None:
    """Where the sandbox cannot start, --yes executes no shell command (the CLI, end to end)."""
    from sec_helpers import agent_env, spawn

    ws = tmp_path / "ws"
    ws.mkdir()
    turns = {"api": "openai", "turns": [
        {"openai": openai_body("", tool_calls=[{"id": "c1", "type": "function", "function": {
            "name": "bash", "arguments": json.dumps({"command": "touch ran-without-sandbox"})}}])},
        {"openai": openai_body("done")}]}
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "scripted"\nmodel = "m"\nscript = "turns.json"\nstream = false\n'
                    '[profiles.p.capabilities]\nnative_tools = true\n[profiles.p.tools]\nmax_tier = "run"\n')
    env = agent_env(tmp_path / "home", AGENTCLI_BWRAP=str(tmp_path / "no-bwrap-here"))
    for extra, ran in (([], False), (["--dangerously-run-unsandboxed"], True)):
        proc = spawn(["run", "go", "--profile", str(prof), "--workspace", str(ws), "--tier", "run", "--yes", *extra],
                     env, tmp_path)
        out, err = proc.communicate(timeout=120)
        assert (ws / "ran-without-sandbox").exists() is ran, (extra, out.decode(), err.decode())
        if not ran:
            assert b"sandbox" in out + err
    assert b"--dangerously-run-unsandboxed" in err


def test_yes_never_raises_the_tier_above_the_command_line(tmp_path: Path) -> None:
    from sec_helpers import agent_env, spawn

    ws = tmp_path / "ws"
    ws.mkdir()
    turns = {"api": "openai", "turns": [
        {"openai": openai_body("", tool_calls=[{"id": "c1", "type": "function", "function": {
            "name": "write_file", "arguments": json.dumps({"path": "x.txt", "content": "x"})}}])},
        {"openai": openai_body("", tool_calls=[{"id": "c2", "type": "function", "function": {
            "name": "bash", "arguments": json.dumps({"command": "touch ran"})}}])},
        {"openai": openai_body("done")}]}
    (tmp_path / "turns.json").write_text(json.dumps(turns))
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "scripted"\nmodel = "m"\nscript = "turns.json"\nstream = false\n'
                    '[profiles.p.capabilities]\nnative_tools = true\n')  # default max_tier: run
    proc = spawn(["run", "go", "--profile", str(prof), "--workspace", str(ws), "--tier", "crawl", "--yes"],
                 agent_env(tmp_path / "home"), tmp_path)
    out, err = proc.communicate(timeout=120)
    assert not (ws / "x.txt").exists() and not (ws / "ran").exists(), (out.decode(), err.decode())
    assert os.listdir(ws) == []


@pytest.mark.parametrize("bwrap_path", ["", "missing"])
def test_doctor_shows_the_sandbox_status_and_how_to_enable_it(tmp_path: Path, bwrap_path: str) -> None:
    from sec_helpers import agent_env, spawn

    extra = {"AGENTCLI_BWRAP": str(tmp_path / "no-bwrap-here")} if bwrap_path else {}
    proc = spawn(["doctor", "--profile", "offline", "--offline", "--json"], agent_env(tmp_path / "home", **extra),
                 tmp_path)
    out, _ = proc.communicate(timeout=120)
    check = next(c for c in json.loads(out)["checks"] if c["name"] == "sandbox")
    if bwrap_path:
        assert not check["ok"] and check["warning"] and "not installed" in check["detail"]
        assert "bubblewrap" in check["hint"] and "--yes runs none" in check["detail"]
    else:
        assert check["ok"] and "bubblewrap" in check["detail"] and "network off" in check["detail"]
        assert "per command: memory 16 GiB, 512 processes" in check["detail"] and "with seccomp" in check["detail"]


def test_without_the_sandbox_even_allowed_commands_ask(tmp_path: Path) -> None:
    """Rules that allow a command, an 'always' answer and --yes all give way to a person when uncontained."""
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.build import open_session
    from agentcli.agent.loop import Agent
    from agentcli.config.schema import Profile
    from agentcli.core.events import Checkpoint
    from agentcli.providers.scripted import ScriptedProvider

    ws = tmp_path / "ws"
    ws.mkdir()
    turns = [_turn("native:openai", {"command": "ls > listed.txt"}, 0), _turn("native:openai", None, 1, "done")]
    profile = Profile(name="p", provider="scripted", model="m", stream=False, capabilities={"native_tools": True},
                      tools={"max_tier": "run"}, bash={"allow": ["ls"]})
    bwrap.set_status(bwrap.SandboxStatus(False, "no sandbox (test)"))
    try:
        for yes in (False, True):
            provider = ScriptedProvider.from_turns([dict(t) for t in turns], api="openai", profile=profile)
            session = open_session(profile, ws, tier="run", goal="g", approve_mode="all" if yes else "ask",
                                   record=False, provider=provider)
            session.always.add("bash")
            events = asyncio.run(_collect(Agent(session, PolicyApprover(approve_all=yes)), "g"))
            asked = [e for e in events if isinstance(e, Checkpoint) and e.uncontained]
            assert len(asked) == 1 and "outside any sandbox" in asked[0].message
            assert not (ws / "listed.txt").exists()
    finally:
        bwrap.set_status(None)


async def _collect(agent: Any, goal: str) -> list[Any]:
    return [ev async for ev in agent.run(goal)]
