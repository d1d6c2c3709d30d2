"""A tool result is written to the transcript once: when it finishes (so a resumed session never runs
it again), and the tool message that hands it to the model then names it by call id. Whatever the
loop does between the two (a note appended to a result, a result never written, results out of call
order, a message that answers no call), the transcript read back is the history the session held."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.agent.build import open_session
from agentcli.agent.store import load_session
from agentcli.config import load_profile
from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.types import Message, ParsedResponse, Role, ToolCall, ToolResult
from agentcli.providers.scripted import ScriptedProvider


def _session(tmp: Path):
    tmp.mkdir(exist_ok=True)
    path = tmp / "p.toml"
    path.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = ""\n')
    profile = load_profile(str(path)).profile
    session = open_session(profile, tmp, provider=ScriptedProvider.from_turns([], api="openai", profile=profile),
                           goal="the goal")
    session.begin_exchange("the goal")
    return session


# One call of a turn: whether its result is written as it finishes, whether a note is appended to it
# after (the repeat guard does that), whether it failed.
_CALL = st.tuples(st.booleans(), st.booleans(), st.booleans())
# A turn: its calls, whether their results come back in reverse order, whether the model numbers its
# calls afresh (`call_0` again), and what else: two calls under one id, or results after a message
# that called nothing.
_TURN = st.tuples(st.lists(_CALL, min_size=1, max_size=3), st.booleans(), st.booleans(),
                  st.sampled_from(["", "", "shared id", "no calls"]))


def _play(tmp: Path, turns: list, content: str, *, once: bool) -> tuple[list[Message], list[Message], int]:
    """(the session's history, the history read back from its transcript, lines skipped); `once`
    False writes every tool message whole, as before results were named by id."""
    s = _session(tmp)
    if not once:
        s._answered_as_recorded = lambda m: None  # type: ignore[method-assign]
    for turn, (calls_drawn, reversed_order, reuse_ids, odd) in enumerate(turns):
        calls = [ToolCall("read_file", {"path": f"f{i}"}, id=f"call_{i}" if reuse_ids else f"call_{turn}_{i}")
                 for i in range(len(calls_drawn))]
        if odd == "shared id" and len(calls) > 1:
            calls[1] = ToolCall("read_file", {"path": "again"}, id=calls[0].id)
        s.add(Message.assistant(ParsedResponse(text="on it", tool_calls=[] if odd == "no calls" else calls)))
        results = []
        for call, (written, noted, failed) in zip(calls, calls_drawn):
            err = ToolError.of(ErrorCode.EXECUTION, "no") if failed else None
            r = ToolResult(call.id, call.name, not failed, f"{content} of {call.arguments['path']}", err)
            if written:
                s.record_result(r)
            if noted:
                r.content += "\n\n(a note)"
            results.append(r)
        s.add(Message.results(results[::-1] if reversed_order else results))
    s.add(Message(Role.ASSISTANT, "done"))
    assert s.transcript is not None
    s.transcript.close()
    saved = load_session(s.transcript.path)
    return s.history, saved.history, saved.skipped_lines


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(_TURN, min_size=1, max_size=4), content=st.text(max_size=40))
def test_the_transcript_reads_back_as_it_did_with_every_result_written_twice(
        tmp_path_factory: pytest.TempPathFactory, turns: list, content: str) -> None:
    held, once, skipped = _play(tmp_path_factory.mktemp("once"), turns, content, once=True)
    _, twice, _ = _play(tmp_path_factory.mktemp("twice"), turns, content, once=False)
    assert once == twice and not skipped
    if all(not (reversed_order and len(calls) > 1) and not odd for calls, reversed_order, _, odd in turns):
        assert once == held  # results in call order: the history itself (a reader puts them in call order)


def test_a_result_written_as_it_finished_is_not_written_again(tmp_path: Path) -> None:
    s = _session(tmp_path)
    call = ToolCall("read_file", {"path": "big.txt"})
    s.add(Message.assistant(ParsedResponse(tool_calls=[call])))
    body = "a line of a big file\n" * 1000
    result = ToolResult(call.id, call.name, True, body)
    s.record_result(result)
    s.add(Message.results([result]))
    assert s.transcript is not None
    s.transcript.close()
    text = s.transcript.path.read_text()
    assert text.count("a line of a big file") == 1000  # once, in the result record
    tool_messages = [json.loads(line)["message"] for line in text.splitlines()
                     if json.loads(line)["type"] == "message" and json.loads(line)["message"]["role"] == "tool"]
    assert tool_messages == [{"role": "tool", "tool_results_recorded": [call.id]}]
    assert load_session(s.transcript.path).history == s.history


def test_a_result_changed_after_it_was_written_is_written_whole(tmp_path: Path) -> None:
    s = _session(tmp_path)
    call = ToolCall("read_file", {"path": "a"})
    s.add(Message.assistant(ParsedResponse(tool_calls=[call])))
    result = ToolResult(call.id, call.name, True, "A")
    s.record_result(result)
    result.content += "\n\nrepeat guard: you called this before"
    s.add(Message.results([result]))
    assert s.transcript is not None
    s.transcript.close()
    assert "repeat guard" in s.transcript.path.read_text()
    assert load_session(s.transcript.path).history[-1].tool_results[0].content.endswith("called this before")


@pytest.mark.parametrize("turns", [
    [([(True, False, False), (True, False, False)], True, False, "shared id")],  # two results under one id
    [([(True, False, False), (True, False, True)], False, True, "no calls")],  # results no call asked for
    [([(True, False, False)], False, True, ""), ([(True, True, False), (True, False, False)], True, True, "")],
])
def test_the_odd_cases_read_back_as_before(tmp_path: Path, turns: list) -> None:
    _, once, _ = _play(tmp_path / "once", turns, "x", once=True)
    _, twice, _ = _play(tmp_path / "twice", turns, "x", once=False)
    assert once == twice


def test_a_result_recorded_in_an_earlier_turn_does_not_stand_for_a_later_one(tmp_path: Path) -> None:
    s = _session(tmp_path)
    for record in (True, False):  # the same id, name and (empty) content both turns; only the first recorded
        call = ToolCall("read_file", {"path": "empty.txt"}, id="call_0")
        s.add(Message.assistant(ParsedResponse(tool_calls=[call])))
        result = ToolResult("call_0", "read_file", True, "")
        if record:
            s.record_result(result)
        s.add(Message.results([result]))
    assert s.transcript is not None
    s.transcript.close()
    saved = load_session(s.transcript.path)
    assert saved.history == s.history
    assert saved.history[-1].tool_results[0].ok  # not "interrupted"
