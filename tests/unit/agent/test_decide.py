"""The loop's decisions in-process: refusal, stuck, tier and approval paths, each a returned value.

`agent/decide.py` reads a Session and returns what to do; nothing here runs a tool, asks a
terminal or talks to a model. The driver's side (carrying the values out) is covered by the
loop tests that run whole turns on a scripted model.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.agent import decide
from agentcli.agent.approval import Decision, TierGrant
from agentcli.agent.session import Session
from agentcli.agent.steps import (
    Answered,
    Ask,
    CallDecision,
    End,
    FinalAnswer,
    Grant,
    Nudge,
    Passed,
    Refuse,
    Run,
    RunAgain,
    RunMemory,
    RunState,
    Stopped,
)
from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.events import CheckpointKind, StopReason
from agentcli.core.types import ParsedResponse, Tier, ToolCall, ToolResult
from agentcli.tools.base import Judgement
from tests.unit.agent.loop_helpers import scripted_session

ACTIONS = ["yes", "no", "always", "edit", "abort", "guidance", "retry", "skip", "refuse"]


@pytest.fixture
def s(tmp_path: Path) -> Session:
    session = scripted_session(tmp_path, [])
    (session.workspace / "a.txt").write_text("hello\n")
    return session


def _call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(name, dict(arguments), f"id-{name}")


def _settle(decision: CallDecision, answers: list[Decision], s: Session) -> tuple[CallDecision, list[Ask]]:
    """Play a decision's questions with `answers` as the driver would (grants raise the tier)."""
    asked: list[Ask] = []
    while isinstance(decision, (Ask, Grant)):
        if isinstance(decision, Ask):
            asked.append(decision)
            decision = decision.then(answers.pop(0))
        else:
            s.set_tier(decision.tier)
            decision = decision.then()
    return decision, asked


# -- phase 1: checks ------------------------------------------------------------------------
def test_a_readable_known_valid_call_at_the_tier_passes(s: Session) -> None:
    assert isinstance(decide.check(s, _call("read_file", path="a.txt"), RunMemory()), Passed)


@pytest.mark.parametrize(("call", "words"), [
    (ToolCall("read_file", {}, "1", error="Expecting value"), "Could not read the arguments"),
    (_call("no_such_tool"), "Unknown tool"),
    (_call("read_file"), "Invalid arguments for read_file"),
    (_call("read_file", path="x" * 2_000_000), "ARGUMENTS_TOO_LARGE"),
])
def test_a_call_the_model_can_fix_is_refused_with_how(s: Session, call: ToolCall, words: str) -> None:
    d = decide.check(s, call, RunMemory())
    assert isinstance(d, Refuse) and d.error.code is ErrorCode.VALIDATION
    assert words in d.error.message and d.error.suggested_fix


def test_the_unknown_tool_error_names_the_tools_offered(s: Session) -> None:
    d = decide.check(s, _call("no_such_tool"), RunMemory())
    assert isinstance(d, Refuse) and "read_file" in (d.error.suggested_fix or "")


def test_with_messages_off_the_refusal_says_only_that_it_failed(s: Session) -> None:
    s.layers = replace(s.layers, messages=False)
    d = decide.check(s, _call("read_file"), RunMemory())
    assert isinstance(d, Refuse) and d.error.message == "Invalid arguments for read_file." and not d.error.suggested_fix


def test_a_tool_above_the_cap_is_refused_without_a_question(s: Session) -> None:
    s.max_tier = Tier.WALK
    d = decide.check(s, _call("bash", command="ls"), RunMemory())
    assert isinstance(d, Refuse) and d.error.code is ErrorCode.PERMISSION and "cap" in d.error.message


def test_a_denied_tool_is_refused(s: Session) -> None:
    s.profile.tools.deny = ["read_file"]
    assert isinstance(decide.check(s, _call("read_file", path="a.txt"), RunMemory()), Refuse)


# -- the tier checkpoint --------------------------------------------------------------------
def test_a_tool_above_the_tier_is_the_tier_checkpoint_then_checked_again(s: Session) -> None:
    call = _call("write_file", path="b.txt", content="x")
    d = decide.check(s, call, RunMemory())
    assert isinstance(d, Ask) and d.checkpoint.kind is CheckpointKind.TIER_ESCALATION and d.checkpoint.call is call
    granted = d.then(Decision("yes"))
    assert isinstance(granted, Grant) and granted.tier is Tier.WALK and granted.seen is call
    final, _ = _settle(granted, [], s)
    assert isinstance(final, Passed) and s.tier is Tier.WALK


def test_a_declined_tier_is_remembered_and_not_asked_again(s: Session) -> None:
    call, mem = _call("write_file", path="b.txt", content="x"), RunMemory()
    d = decide.check(s, call, mem)
    assert isinstance(d, Ask)
    refused = d.then(Decision("no", text="not now"))
    assert isinstance(refused, Refuse) and refused.declined is Tier.WALK and "not now" in refused.error.message
    mem.declined.add(Tier.WALK)  # what the driver does with `declined`
    again = decide.check(s, call, mem)
    assert isinstance(again, Refuse) and "already declined" in again.error.message


def test_a_preapproved_tier_rises_without_a_question(s: Session) -> None:
    s.grant = TierGrant.of("edits", Tier.CRAWL, Tier.RUN, "profile", Tier.RUN)
    d = decide.check(s, _call("write_file", path="b.txt", content="x"), RunMemory())
    assert isinstance(d, Grant) and d.seen is None
    final, asked = _settle(d, [], s)
    assert isinstance(final, Passed) and asked == []


@pytest.mark.parametrize(("action", "stop"), [("abort", StopReason.ABORTED), ("refuse", StopReason.REFUSED)])
def test_an_abort_or_a_refusal_with_nobody_to_ask_ends_the_run(s: Session, action: str, stop: StopReason) -> None:
    d = decide.check(s, _call("write_file", path="b.txt", content="x"), RunMemory())
    assert isinstance(d, Ask)
    end = d.then(Decision(action))  # type: ignore[arg-type]
    assert isinstance(end, End) and end.step.stop is stop
    if action == "refuse":
        assert "--approve edits" in end.step.error  # names the flag that would have approved it


def test_a_tier_request_past_the_cap_is_refused(s: Session) -> None:
    s.max_tier = Tier.WALK
    call = _call("request_tier", tier="run", reason="tests")
    d = decide.approve(s, call, Judgement("allow", raise_tier=Tier.RUN), RunMemory())
    assert isinstance(d, Refuse) and "cap" in d.error.message


def test_an_approved_tier_request_runs_the_call(s: Session) -> None:
    call = _call("request_tier", tier="walk", reason="edit the file")
    d = decide.approve(s, call, Judgement("allow", raise_tier=Tier.WALK), RunMemory())
    final, asked = _settle(d, [Decision("yes")], s)
    assert [a.checkpoint.kind for a in asked] == [CheckpointKind.TIER_ESCALATION]
    assert isinstance(final, Run) and final.call is call and s.tier is Tier.WALK


# -- phase 2: the repeat guard ----------------------------------------------------------------
def test_a_call_the_guard_denies_is_refused_and_said(s: Session) -> None:
    d = decide.after_guard(_call("read_file", path="a.txt"), "deny")
    assert isinstance(d, Refuse) and d.error.code is ErrorCode.MODEL_REFUSAL and d.notice is not None


@pytest.mark.parametrize(("answer", "kind"), [
    (Decision("guidance", text="read b.txt instead"), Refuse),
    (Decision("retry"), Passed),
    (Decision("abort"), End),
    (Decision("guidance", text=""), End),
])
def test_stuck_asks_a_person(answer: Decision, kind: type) -> None:
    d = decide.after_guard(_call("read_file", path="a.txt"), "stuck")
    assert isinstance(d, Ask) and d.checkpoint.kind is CheckpointKind.STUCK
    final = d.then(answer)
    assert isinstance(final, kind)
    if isinstance(final, End):
        assert final.step.stop is StopReason.STUCK


def test_a_call_the_guard_lets_through_passes() -> None:
    assert isinstance(decide.after_guard(_call("read_file", path="a.txt"), "run"), Passed)


# -- phase 3: approval ------------------------------------------------------------------------
def test_a_read_only_allowed_call_runs_unasked_and_may_run_in_parallel(s: Session) -> None:
    call = _call("read_file", path="a.txt")
    judgement = s.judge(call)
    assert decide.runs_unasked(s, call, judgement)
    assert isinstance(decide.approve(s, call, judgement, RunMemory()), Run)


def test_an_edit_asks_and_each_answer_has_its_outcome(s: Session) -> None:
    s.set_tier(Tier.WALK)
    call = _call("write_file", path="b.txt", content="x")
    judgement = s.judge(call)
    assert not decide.runs_unasked(s, call, judgement)
    d = decide.approve(s, call, judgement, RunMemory())
    assert isinstance(d, Ask) and d.checkpoint.kind is CheckpointKind.APPROVE_TOOL and "+x" in d.checkpoint.preview
    assert isinstance(d.then(Decision("yes")), Run)
    always = d.then(Decision("always"))
    assert isinstance(always, Run) and always.always
    edited = d.then(Decision("edit", arguments={"path": "c.txt", "content": "y"}))
    assert isinstance(edited, Run) and edited.call.arguments == {"path": "c.txt", "content": "y"}
    bad_edit = d.then(Decision("edit", arguments={"path": 3}))
    assert isinstance(bad_edit, Refuse) and "edited arguments were invalid" in bad_edit.error.message
    declined = d.then(Decision("no", text="wrong file"))
    assert isinstance(declined, Refuse) and "wrong file" in declined.error.message
    assert isinstance(d.then(Decision("abort")), End)


def test_a_call_seen_at_its_tier_checkpoint_is_not_asked_again(s: Session) -> None:
    s.set_tier(Tier.WALK)
    call = _call("write_file", path="b.txt", content="x")
    mem = RunMemory(approved=call)
    assert isinstance(decide.approve(s, call, s.judge(call), mem), Run)
    same_id = ToolCall(call.name, dict(call.arguments), call.id)  # identity, never the id
    assert isinstance(decide.approve(s, same_id, s.judge(same_id), mem), Ask)


def test_standing_grants_run_an_edit_unasked(s: Session) -> None:
    s.set_tier(Tier.WALK)
    call = _call("write_file", path="b.txt", content="x")
    s.approve_mode = "edits"
    assert isinstance(decide.approve(s, call, s.judge(call), RunMemory()), Run)
    s.approve_mode = "ask"
    s.always.add("write_file")
    assert isinstance(decide.approve(s, call, s.judge(call), RunMemory()), Run)


def test_a_command_with_no_sandbox_is_asked_whatever_the_grants(s: Session, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decide, "contained", lambda: False)
    s.set_tier(Tier.RUN)
    s.approve_mode = "all"
    call = _call("bash", command="ls")
    d = decide.approve(s, call, Judgement.allow("ls"), RunMemory(approved=call))
    assert isinstance(d, Ask) and d.checkpoint.uncontained


def test_a_tool_that_refuses_its_call_is_refused_with_its_reason(s: Session) -> None:
    call = _call("read_file", path="a.txt")
    d = decide.approve(s, call, Judgement.refuse("outside the workspace", "use a relative path"), RunMemory())
    assert isinstance(d, Refuse) and "outside the workspace" in d.error.message
    assert d.error.suggested_fix == "use a relative path"


def test_a_question_for_the_person_is_answered_or_ends_the_run(s: Session) -> None:
    call = _call("ask_user", question="which file?")
    d = decide.approve(s, call, s.judge(call), RunMemory())
    assert isinstance(d, Ask) and d.checkpoint.kind is CheckpointKind.ASK_USER
    answered = d.then(Decision("guidance", text="b.txt"))
    assert isinstance(answered, Answered) and answered.text == "b.txt"
    assert isinstance(d.then(Decision("abort")), End)


@settings(max_examples=60, deadline=None)
@given(action=st.sampled_from(ACTIONS), text=st.text(max_size=20),
       edit=st.one_of(st.none(), st.dictionaries(st.sampled_from(["path", "content", "x"]),
                                                 st.one_of(st.text(max_size=5), st.integers()), max_size=3)))
def test_every_answer_to_every_question_settles_to_a_final_decision(tmp_path_factory: pytest.TempPathFactory,
                                                                     action: str, text: str,
                                                                     edit: dict[str, object] | None) -> None:
    """Whatever a person (or a policy) answers, each question ends in a value the driver can
    carry out: never an exception, never another question about the same thing."""
    s = scripted_session(tmp_path_factory.mktemp("d"), [])
    answer = Decision(action, arguments=edit, text=text)  # type: ignore[arg-type]
    call = _call("write_file", path="b.txt", content="x")
    questions: list[CallDecision] = [
        decide.check(s, call, RunMemory()),
        decide.after_guard(call, "stuck"),
        decide.approve(s, call, Judgement.ask("+x"), RunMemory()),
        decide.approve(s, _call("ask_user", question="q"), Judgement.allow(), RunMemory()),
        decide.approve(s, _call("request_tier", tier="walk", reason="r"), Judgement("allow", raise_tier=Tier.WALK),
                       RunMemory()),
    ]
    for q in questions:
        assert isinstance(q, Ask)
        final, _ = _settle(q.then(answer), [], s)
        assert isinstance(final, (Run, Refuse, Answered, End, Passed))
        s.set_tier(Tier.CRAWL)


# -- how a turn ends ----------------------------------------------------------------------------
def test_the_turn_limit_stops_the_run() -> None:
    assert decide.turn_limit(RunState(turns=3), 3) == Stopped(StopReason.MAX_TURNS, "stopped after 3 turns (limits.max_turns)")
    assert decide.turn_limit(RunState(turns=2), 3) is None


def test_a_text_reply_is_the_answer_until_it_repeats_three_times(s: Session) -> None:
    reply = ParsedResponse(text="  done  ")
    ends = [decide.after_text(s, reply, RunState(), offered=True) for _ in range(3)]
    assert ends[:2] == [FinalAnswer("done"), FinalAnswer("done")]
    assert isinstance(ends[2], Stopped) and ends[2].stop is StopReason.STUCK


def test_an_enforced_tool_task_is_nudged_once(s: Session) -> None:
    s.profile.tools.tool_use_mode = "enforced"
    state = RunState()
    first = decide.after_text(s, ParsedResponse(text="from memory"), state, offered=True)
    assert isinstance(first, Nudge) and "call `submit`" in first.message
    assert isinstance(decide.after_text(s, ParsedResponse(text="from memory"), state, offered=True), FinalAnswer)


def test_an_unread_call_is_retried_within_the_validation_retries(s: Session) -> None:
    s.adapt.unread_call = True
    state = RunState()
    ends = [decide.after_text(s, ParsedResponse(text="<tool_call>{"), state, offered=True)
            for _ in range(s.profile.limits.validation_retries + 1)]
    assert all(isinstance(e, Nudge) for e in ends[:-1]) and isinstance(ends[-1], FinalAnswer)


def test_a_cut_reply_is_nudged_once_then_stops() -> None:
    state = RunState(used_tools=True)
    first = decide.after_cut(ParsedResponse(text=""), "empty", state)
    assert isinstance(first, Nudge) and first.message == decide.FINALIZE_PROMPT and state.no_tools_next
    second = decide.after_cut(ParsedResponse(text=""), "empty", state)
    assert isinstance(second, Stopped) and second.stop is StopReason.INCOMPLETE
    with_calls = decide.after_cut(ParsedResponse(tool_calls=[_call("read_file")], finish_reason="length"), "length",
                                  RunState())
    assert isinstance(with_calls, RunAgain)  # its "not run" results say why


def test_after_calls_answers_stops_or_goes_on() -> None:
    invalid = ToolResult("1", "x", False, "bad", ToolError.of(ErrorCode.VALIDATION, "bad"))
    fine = ToolResult("2", "y", True, "ok")
    assert decide.after_calls([fine], RunState(), "the answer", 1) == FinalAnswer("the answer", StopReason.SUBMITTED)
    state = RunState()
    assert isinstance(decide.after_calls([invalid], state, None, 1), RunAgain)
    assert isinstance(decide.after_calls([invalid, fine], state, None, 1), RunAgain) and state.invalid_turns == 0
    decide.after_calls([invalid], state, None, 1)
    stopped = decide.after_calls([invalid], state, None, 1)
    assert isinstance(stopped, Stopped) and stopped.stop is StopReason.ERROR
