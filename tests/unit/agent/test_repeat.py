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
