from agentcli.agent.build import starting_tier
from agentcli.agent.context import compact, estimate_tokens, needs_compaction
from agentcli.agent.planner import plan_batches
from agentcli.core.escape import short_args, visible
from agentcli.core.types import Message, Role, Tier, ToolCall, ToolResult


def test_batches_group_consecutive_reads_and_keep_order():
    calls = ["r1", "r2", "w1", "r3", "w2", "w3", "r4", "r5"]
    batches = plan_batches(calls, lambda c: c.startswith("r"))
    assert batches == [["r1", "r2"], ["w1"], ["r3"], ["w2"], ["w3"], ["r4", "r5"]]
    assert [c for b in batches for c in b] == calls


def test_starting_tier_is_explicit_never_guessed_from_words():
    # The goal plays no part: --tier, else the profile's start_tier, capped by max_tier.
    assert starting_tier(None, "crawl", Tier.RUN) is Tier.CRAWL
    assert starting_tier(None, "run", Tier.WALK) is Tier.WALK
    assert starting_tier("walk", "crawl", Tier.RUN) is Tier.WALK


def _exchange(i: int) -> list[Message]:
    call = ToolCall("read_file", {"path": f"f{i}"})
    return [
        Message.user(f"question {i} " + "x" * 400),
        Message(Role.ASSISTANT, "", tool_calls=[call]),
        Message.results([ToolResult(call.id, "read_file", True, "content " * 100)]),
        Message(Role.ASSISTANT, f"answer {i}"),
    ]


def test_compaction_keeps_calls_with_results_and_recent_turns():
    history = [m for i in range(6) for m in _exchange(i)]
    assert needs_compaction(history, context_window=1000)
    new, folded = compact(history, keep=4)
    assert folded == len(history) - 4
    assert new[0].role is Role.USER and "question 0" in new[0].text and "read_file" in new[0].text
    assert new[2:] == history[-4:]
    assert estimate_tokens(new) < estimate_tokens(history)


def test_compaction_never_splits_an_unanswered_call():
    history = [m for i in range(3) for m in _exchange(i)]
    call = ToolCall("read_file", {"path": "z"})
    history += [Message.user("q"), Message(Role.ASSISTANT, "", tool_calls=[call])]
    new, folded = compact(history, keep=1)
    assert new[-1].tool_calls == [call]


def test_escaping_makes_hidden_characters_visible():
    assert visible("rm\x1b[2J -rf") == "rm\\x1b[2J -rf"
    assert visible("a\u202eb\u200bc") == "a\\u202eb\\u200bc"
    assert visible("line1\nline2") == "line1\nline2"
    assert short_args({"command": "echo\nhi"}) == "command=echo\\nhi"
