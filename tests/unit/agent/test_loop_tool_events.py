"""Events a tool reports as it runs (the todo plan) come out of the loop right after its result."""

from __future__ import annotations

import json

from loop_helpers import Recorder, scripted_session

from agentcli.agent.loop import Agent
from agentcli.core.events import PlanUpdated, ToolFinished


async def test_the_plan_is_an_event_after_the_call(tmp_path):
    items = [{"content": "look", "status": "in_progress"}]
    fn = {"name": "todo", "arguments": json.dumps({"items": items})}
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": "t1", "type": "function", "function": fn}]}
    turns = [{"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}}, {"text": "ok"}]
    s = scripted_session(tmp_path, turns)
    events = [ev async for ev in Agent(s, Recorder()).run("plan it")]
    kinds = [type(e) for e in events]
    at = kinds.index(PlanUpdated)
    assert kinds[at - 1] is ToolFinished and events[at].items == items
    assert s.tool_events() == []  # handed on once


async def test_background_processes_are_in_the_summary_and_stop_with_the_session(tmp_path):
    import pytest

    from agentcli.agent.approval import Decision
    from agentcli.core.events import Done
    from agentcli.tools import bwrap

    if not bwrap.status().available:
        pytest.skip("the OS sandbox cannot start here")
    fn = {"name": "background", "arguments": json.dumps({"action": "start", "command": "sleep 300"})}
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": "b1", "type": "function", "function": fn}]}
    turns = [{"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}}, {"text": "ok"}]
    s = scripted_session(tmp_path, turns)
    s.set_tier(s.max_tier)
    events = [ev async for ev in Agent(s, Recorder(Decision("yes"))).run("serve")]
    done = events[-1]
    assert isinstance(done, Done) and len(done.background) == 1 and "sleep 300" in done.background[0]
    await s.close_tool_sources()
    assert all("stopped" in line for line in s.running())


async def test_a_read_in_a_subfolder_finds_its_agents_md(tmp_path):
    """The tools name the paths they touch (touched_paths); the session never reads argument names.
    A subfolder's AGENTS.md is off the repository-root-to-here chain: shown as data, not followed."""
    fn = {"name": "read_file", "arguments": json.dumps({"path": "pkg/mod.py"})}
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": "r1", "type": "function", "function": fn}]}
    turns = [{"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}}, {"text": "ok"}]
    s = scripted_session(tmp_path, turns)
    (s.workspace / "pkg").mkdir()
    (s.workspace / "pkg" / "mod.py").write_text("x = 1\n")
    (s.workspace / "pkg" / "AGENTS.md").write_text("Use tabs in pkg.\n")
    [ev async for ev in Agent(s, Recorder()).run("read it")]
    assert "pkg/AGENTS.md" in s.instructions.data and "pkg/AGENTS.md" not in s.instructions.files
