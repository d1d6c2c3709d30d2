"""Slash commands of the interactive session, on a real Session with a scripted model."""

from __future__ import annotations

import io
import json

import pytest
from rich.console import Console

from agentcli.agent.build import open_session
from agentcli.config import load_profile
from agentcli.core.types import Message, ParsedResponse, Role, Tier, ToolCall, ToolResult
from agentcli.providers.scripted import ScriptedProvider
from agentcli.ui.slash import Repl, dispatch


@pytest.fixture
def repl(tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\nurl = "http://127.0.0.1:9"\n'
                    '[profiles.p.tools]\nmax_tier = "walk"\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir()
    session = open_session(profile, ws, provider=ScriptedProvider.from_turns([], api="ollama"))
    out = io.StringIO()
    r = Repl(session, Console(file=out, width=120, no_color=True))
    r.out = out  # type: ignore[attr-defined]
    return r


def said(r) -> str:
    text = r.out.getvalue()
    r.out.truncate(0)
    r.out.seek(0)
    return text


def _exchange(session, n):
    call = ToolCall("read_file", {"path": f"f{n}"})
    session.add(Message.user(f"question {n}"))
    session.add(Message.assistant(ParsedResponse(tool_calls=[call])))
    session.add(Message.results([ToolResult(call.id, "read_file", True, "x")]))
    session.add(Message(Role.ASSISTANT, f"answer {n}"))


def test_tier_within_cap(repl):
    dispatch(repl, "/tier walk")
    assert repl.session.tier is Tier.WALK and "tier walk" in said(repl)
    dispatch(repl, "/tier run")
    assert repl.session.tier is Tier.WALK and "above this profile's max_tier" in said(repl)
    dispatch(repl, "/tier sprint")
    assert "unknown tier" in said(repl)


def test_tools_lists_visibility(repl):
    dispatch(repl, "/tools")
    text = said(repl)
    assert "read_file" in text and "bash" in text
    bash_line = next(line for line in text.splitlines() if line.strip().startswith("bash"))
    assert "no" in bash_line


def test_undo_clear_history_and_durability(repl, tmp_path):
    s = repl.session
    _exchange(s, 1)
    _exchange(s, 2)
    dispatch(repl, "/history")
    assert "question 2" in said(repl)
    dispatch(repl, "/undo")
    assert [m.text for m in s.history if m.role is Role.USER] == ["question 1"]
    from agentcli.agent.store import load_session

    assert len(load_session(s.transcript.path).history) == len(s.history)
    dispatch(repl, "/clear")
    assert s.history == [] and load_session(s.transcript.path).history == []


def test_save_writes_the_conversation(repl, tmp_path):
    _exchange(repl.session, 1)
    target = tmp_path / "out.json"
    dispatch(repl, f"/save {target}")
    data = json.loads(target.read_text())
    assert data["model"] == "qwen2.5:7b" and len(data["messages"]) == 4
    assert data["messages"][1]["tool_calls"][0]["name"] == "read_file"


def test_compact_folds_old_turns(repl):
    for i in range(5):
        _exchange(repl.session, i)
    dispatch(repl, "/compact")
    assert "folded 16" in said(repl)
    assert "Summary of the earlier conversation" in repl.session.history[0].text


def test_model_switch_reports_changes_and_keeps_history(repl):
    _exchange(repl.session, 1)
    before = list(repl.session.history)
    dispatch(repl, "/model llama3:8b")
    text = said(repl)
    assert "family llama" in text and "native_tools: True → False" in text
    assert repl.session.history == before and not repl.session.plan.native_tools
    dispatch(repl, "/model openai/gpt-4o")
    text = said(repl)
    assert "via openai" in text and repl.session.provider.api == "openai"
    assert repl.session.profile.provider == "openai" and repl.session.plan.native_tools
    dispatch(repl, "/model mycorp/llama3.3-code-ft")
    assert "inherited from llama 3.3" in said(repl)
    assert repl.session.profile.provider == "openai"  # an unknown vendor prefix keeps the provider


def test_model_switch_routes_a_bare_model_id_like_run_m(repl, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-000000000000")
    dispatch(repl, "/model claude-sonnet-4-5")
    said(repl)
    assert repl.session.profile.provider == "anthropic" and repl.session.provider.api == "anthropic"
    assert repl.session.profile.model == "claude-sonnet-4-5" and repl.session.profile.url is None
    dispatch(repl, "/model qwen3:8b")  # a name:tag stays with the provider in use
    said(repl)
    assert repl.session.profile.provider == "anthropic" and repl.session.profile.model == "qwen3:8b"


def test_unknown_command_and_help(repl):
    dispatch(repl, "/frobnicate")
    assert "unknown command /frobnicate" in said(repl)
    dispatch(repl, "/help")
    text = said(repl)
    assert all(f"/{c}" in text for c in ("model", "profile", "tier", "tools", "doctor", "undo", "compact", "exit"))
    dispatch(repl, "/exit")
    assert repl.running is False
