"""Loop behaviour around checkpoints, on a scripted model (no terminal)."""

from __future__ import annotations

from loop_helpers import Recorder, scripted_session

from agentcli.agent.approval import Decision
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.events import CheckpointKind, Done
from agentcli.providers.scripted import ScriptedProvider


def _session(tmp_path, turns, interactive=True):
    return scripted_session(tmp_path, turns, interactive=interactive)


async def _run(session, approver, goal):
    return [ev async for ev in Agent(session, approver).run(goal)]


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
