"""Token estimation per turn: a running tally, so a long session does not recount its history."""

from __future__ import annotations

from agentcli.agent.context import TokenTally, estimate_tokens, needs_compaction, over_threshold
from agentcli.core.types import Message


def test_tally_matches_a_full_count_through_growth_edits_and_cuts():
    tally = TokenTally()
    history = [Message.system("s" * 40)]
    for i in range(30):
        history.append(Message.user("u" * (i * 7)))
        assert tally.estimate(history, start=1) == estimate_tokens(history[1:])
    history[0] = Message.system("a new system prompt each turn")
    assert tally.estimate(history, start=1) == estimate_tokens(history[1:])
    history = history[:5]  # undo
    assert tally.estimate(history, start=1) == estimate_tokens(history[1:])
    history = [history[0], Message.user("summary"), *history[3:]]  # compaction rewrites the head
    assert tally.estimate(history, start=1) == estimate_tokens(history[1:])
    assert needs_compaction(history, 10, tally) == needs_compaction(history, 10)


def test_a_turn_counts_only_what_was_added(work):
    """Counted, not timed: a session of n turns estimates in linear work, not n^2."""

    def session(n):
        tally = TokenTally()
        history = [Message.system("prompt")]
        for i in range(n):
            history.append(Message.user(f"turn {i}"))
            needs_compaction(history, 1_000_000, tally)

    work.assert_linear(session, 200)


def test_the_per_turn_check_agrees_with_a_full_count_without_copying_the_history():
    """The session's check takes the system prompt and the history apart: the same answer as
    counting [system, *history] in full, at every size around the threshold."""
    tally = TokenTally()
    history: list[Message] = []
    system = Message.system("s" * 400)
    for i in range(40):
        history.append(Message.user("u" * (i * 11)))
        for window in (50, 500, 2_000, 20_000):
            assert over_threshold(system, history, window, tally) == needs_compaction([system, *history], window)
