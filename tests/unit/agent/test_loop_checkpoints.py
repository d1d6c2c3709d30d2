"""Loop behaviour around checkpoints, on a scripted model (no terminal)."""

from __future__ import annotations

import pytest

from agentcli.agent.approval import Decision
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.events import Checkpoint, CheckpointKind, Done
from agentcli.providers.scripted import ScriptedProvider


class Recorder:
    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.seen: list[Checkpoint] = []

    async def decide(self, cp: Checkpoint) -> Decision:
        self.seen.append(cp)
        return self.answers.pop(0)


def _session(tmp_path, turns, interactive=True):
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = "K_FOR_TEST"\n[profiles.p.limits]\nmax_retries = 0\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    provider = ScriptedProvider.from_turns(turns, api="openai", profile=profile, sleep=_no_sleep)
    return open_session(profile, ws, interactive=interactive, provider=provider)


async def _no_sleep(_):
    return None


async def _run(session, approver, goal):
    return [ev async for ev in Agent(session, approver).run(goal)]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv("K_FOR_TEST", "sk-test-0000000000000000")


async def test_failed_request_asks_and_retry_recovers(tmp_path):
    s = _session(tmp_path, [{"fault": {"status": 500, "body": {"error": "boom"}}}, {"text": "recovered"}])
    approver = Recorder(Decision("retry"))
    events = await _run(s, approver, "hello")
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.FAILURE]
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "answered" and done.answer == "recovered"


async def test_failed_request_abort_ends_with_error(tmp_path):
    s = _session(tmp_path, [{"fault": {"status": 500, "body": {"error": "boom"}}}])
    events = await _run(s, Recorder(Decision("abort")), "hello")
    assert events[-1].stop == "error"


async def test_non_interactive_failure_does_not_ask(tmp_path):
    s = _session(tmp_path, [{"fault": {"status": 500, "body": {"error": "boom"}}}], interactive=False)
    approver = Recorder()
    events = await _run(s, approver, "hello")
    assert approver.seen == [] and events[-1].stop == "error"


async def test_edited_arguments_are_what_runs(tmp_path):
    call = {"id": "w1", "type": "function", "function": {"name": "write_file",
            "arguments": '{"path": "a.txt", "content": "model text"}'}}
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [call]},
                         "finish_reason": "tool_calls"}]}
    s = _session(tmp_path, [{"openai": body}, {"text": "done"}])
    s.tier = s.max_tier
    approver = Recorder(Decision("edit", arguments={"path": "a.txt", "content": "user text"}))
    await _run(s, approver, "write a file")
    assert approver.seen[0].kind is CheckpointKind.APPROVE_TOOL and "a.txt" in approver.seen[0].preview
    assert (s.workspace / "a.txt").read_text() == "user text"


def test_tool_definitions_fit_a_small_context_window(tmp_path):
    s = _session(tmp_path, [])
    s.tier = s.max_tier
    full = s.registry.visible(s.tier, None, [])
    assert [t.name for t in s.visible_tools()] == [t.name for t in full]  # 128k window: untouched
    import dataclasses

    s.capability = dataclasses.replace(
        s.capability, capability=dataclasses.replace(s.capability.capability, context_window=4000))
    from agentcli.core.types import Message

    s.history.append(Message.user("edit the config file"))
    small = s.visible_tools()
    cost = sum(len(t.description) + len(str(t.parameters)) for t in small)
    assert cost < sum(len(t.description) + len(str(t.parameters)) for t in full)
    assert small[0].name in ("edit_file", "write_file")  # most relevant to the goal first


def test_result_mode_comes_from_the_profile(tmp_path):
    prof = tmp_path / "d.toml"
    prof.write_text('[profiles.d]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\n[profiles.d.tools]\nresult_mode = "detailed"\n')
    ws = tmp_path / "ws2"
    ws.mkdir()
    s = open_session(load_profile(str(prof)).profile, ws, provider=ScriptedProvider.from_turns([], api="ollama"))
    assert s.tool_ctx.result_mode == "detailed"
