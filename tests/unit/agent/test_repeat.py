from agentcli.agent.repeat import RepeatGuard
from agentcli.core.types import ToolCall, ToolResult


def step(g: RepeatGuard, name: str, args: dict, content: str, ok: bool = True):
    call = ToolCall(name, args)
    verdict = g.before(call)
    if verdict != "run":
        return verdict, None
    return verdict, g.after(call, ToolResult(call.id, name, ok, content))


def test_four_identical_pairs_note_then_deny_then_stuck():
    g = RepeatGuard()
    notes = [step(g, "read_file", {"path": "a"}, "same")[1] for _ in range(4)]
    assert notes[:3] == [None, None, None]
    assert "identical call #4" in notes[3]
    assert step(g, "read_file", {"path": "a"}, "same")[0] == "deny"
    assert step(g, "read_file", {"path": "a"}, "same")[0] == "stuck"


def test_polling_with_changing_results_is_not_a_repeat():
    g = RepeatGuard()
    for i in range(10):
        verdict, note = step(g, "bash", {"command": "cat status"}, f"progress {i}")
        assert verdict == "run" and note is None


def test_same_tool_new_arguments_is_not_a_repeat():
    g = RepeatGuard()
    for i in range(10):
        assert step(g, "read_file", {"path": f"f{i}"}, "x") == ("run", None)


def test_three_identical_errors_trigger():
    g = RepeatGuard()
    out = [step(g, "edit_file", {"path": "a"}, "Error: no match", ok=False)[1] for _ in range(3)]
    assert out[0] is None and out[1] is None and "failed each time" in out[2]


def test_alternation_over_six_steps():
    g = RepeatGuard()
    notes = []
    for i in range(6):
        name = "read_file" if i % 2 == 0 else "list_files"
        notes.append(step(g, name, {"path": "."}, f"r{i}")[1])
    assert notes[:5] == [None] * 5 and "alternating" in notes[5]


def test_identical_assistant_messages():
    g = RepeatGuard()
    assert not g.message("Let me check.")
    assert not g.message("Let me check.")
    assert g.message("Let me check.")


def test_each_call_costs_the_same_however_long_the_session(work):
    """Counted, not timed: n distinct calls cost linear work (a rescan of every past call per call,
    as the guard once did, makes a session quadratic)."""

    def session(n):
        g = RepeatGuard()
        for i in range(n):
            step(g, "read_file", {"path": f"f{i}"}, f"content {i}")

    work.assert_linear(session, 300)


def test_a_guard_switched_off_never_intervenes_and_reset_keeps_the_switch():
    g = RepeatGuard(enabled=False)
    for _ in range(10):
        assert step(g, "read_file", {"path": "a"}, "same") == ("run", None)
    assert not any(g.message("same") for _ in range(5))
    g.reset()
    assert not g.enabled
    on = RepeatGuard()
    for _ in range(4):
        step(on, "read_file", {"path": "a"}, "same")
    on.reset()
    assert on.enabled and step(on, "read_file", {"path": "a"}, "same") == ("run", None)
