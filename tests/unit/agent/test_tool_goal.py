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
    assert seen == ["rename the helper in util.py"]  # the summary changes neither the goal nor the list
    s.set_tier(s.max_tier)  # something the list depends on: ranked again, against the same goal
    s.visible_tools()
    assert seen == ["rename the helper in util.py"] * 2
    s.truncate(0)  # /clear
    s.history.append(Message.user("a new start"))
    s.visible_tools()
    assert seen[-1] == "a new start"


def test_the_visible_list_is_worked_out_again_only_when_what_it_depends_on_changes(tmp_path, monkeypatch):
    """Per turn the list is asked for at least once: it is fitted only when the registry, the
    tier, the lists, the window, the goal or the tools found by tool_search changed."""
    from agentcli.core.types import Tier
    from agentcli.tools.registry import ToolRegistry

    s = scripted_session(tmp_path, [])
    s.history.append(Message.user("read the notes"))
    fitted: list[int] = []
    real = ToolRegistry.visible
    monkeypatch.setattr(ToolRegistry, "visible", lambda self, *a, **k: fitted.append(1) or real(self, *a, **k))
    first = s.visible_tools()
    for _ in range(5):
        assert s.visible_tools() == first
    assert len(fitted) == 1
    first.clear()  # a caller's copy: the kept list is not theirs to change
    assert s.visible_tools() != []
    changes = [
        lambda: s.set_tier(Tier.WALK),
        lambda: setattr(s.profile.tools, "deny", ["read_file"]),
        lambda: s.registry.register(s.registry.get("think")),
        lambda: s.truncate(0),
    ]
    for n, change in enumerate(changes, start=2):
        change()
        s.visible_tools()
        s.visible_tools()
        assert len(fitted) == n
    assert "read_file" not in {t.name for t in s.visible_tools()}
