"""The tools are ranked against the first request as written, not the summary compaction puts there."""

from __future__ import annotations

from loop_helpers import scripted_session

from agentcli.core.types import Message


def test_the_ranking_goal_is_the_first_request_and_survives_compaction(tmp_path, monkeypatch):
    s = scripted_session(tmp_path, [])
    seen: list[str] = []
    import agentcli.wire.emulate as emulate

    real = emulate.optimize_tool_definitions
    monkeypatch.setattr(emulate, "optimize_tool_definitions",
                        lambda tools, budget, goal: seen.append(goal) or real(tools, budget, goal))
    s.history.append(Message.user("rename the helper in util.py"))
    s.visible_tools()
    s.history[0] = Message.user("[summary of the earlier conversation] " + "x" * 14000)  # as compaction writes it
    s.visible_tools()
    assert seen == ["rename the helper in util.py"] * 2
    s.truncate(0)  # /clear
    s.history.append(Message.user("a new start"))
    s.visible_tools()
    assert seen[-1] == "a new start"
