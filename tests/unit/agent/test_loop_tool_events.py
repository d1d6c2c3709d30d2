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
