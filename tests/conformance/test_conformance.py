"""Every peer conformance case, parsed as a run with the case's model would parse it.

Cases still failing are listed in known_failures.json and run as strict xfails: a fix that makes
one pass fails the suite until its entry is removed, so the list only ever shrinks honestly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentcli.evals.conformance import judge, load_cases, run_case, score

HERE = Path(__file__).parent
CASES = load_cases(HERE / "cases")
KNOWN_FAILURES: dict[str, str] = json.loads((HERE / "known_failures.json").read_text(encoding="utf-8"))


def _param(case):
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_FAILURES[case.id])] if case.id in KNOWN_FAILURES else []
    return pytest.param(case, id=case.id, marks=marks)


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_case(case):
    outcome = run_case(case)
    assert outcome.right, outcome.explain()


def test_known_failures_name_real_cases():
    ids = {c.id for c in CASES}
    assert sorted(set(KNOWN_FAILURES) - ids) == []


def test_every_case_names_its_source_and_a_plannable_model():
    from agentcli.wire.model_parse import context_for

    for c in CASES:
        assert c.source.get("repo") and c.source.get("path") and c.source.get("test"), c.id
        _ctx, parsers = context_for(c.model, c.offered())
        assert parsers, c.id


def test_judge_counts_a_call_from_an_output_without_one_as_false():
    from agentcli.core.types import ParsedResponse, ToolCall

    case = CASES[0]
    negative = type(case)(id="x", source={}, family="f", model=case.model, tools=None, output="hi", calls=[], text="hi")
    wrong = ParsedResponse(text="hi", tool_calls=[ToolCall(name="get_weather", id="1", arguments={})])
    outcome = judge(negative, wrong)
    assert outcome.false_call and not outcome.right
    [row, total] = score([outcome])
    assert (row.false_calls, total.negatives) == (1, 1)


def test_the_command_writes_the_table_page(tmp_path, capsys):
    from agentcli.evals.conformance import main

    page = tmp_path / "page.md"
    assert main(["--cases", str(HERE / "cases"), "--write", str(page)]) == 0
    text = page.read_text(encoding="utf-8")
    assert "| **all** |" in text and "## Sources" in text and "`vllm-project/vllm`" in text
    assert "| **all** |" in capsys.readouterr().out


def test_a_malformed_case_file_is_a_clear_error(tmp_path, capsys):
    from agentcli.evals.conformance import main

    (tmp_path / "x__y.json").write_text('[{"id": "a"}]', encoding="utf-8")
    assert main(["--cases", str(tmp_path)]) == 2
    assert "x__y.json[0]" in capsys.readouterr().err


def test_recorded_responses_are_read_through_their_native_api():
    native_cases = [c for c in CASES if c.wire]
    assert {c.wire for c in native_cases} >= {"openai", "anthropic"}
    assert any(c.sse for c in native_cases) and any(c.body for c in native_cases)
    assert all(c.family == f"sdk_{c.wire}" for c in native_cases)


def test_a_recorded_response_needs_a_known_wire_and_one_payload(tmp_path, capsys):
    from agentcli.evals.conformance import main

    base = {"id": "a", "source": {}, "family": "sdk_x", "model": "gpt-4o", "expected": {"calls": []}}
    for extra, needle in [({"wire": "telex", "body": {}}, "unknown wire"),
                          ({"wire": "openai", "body": {}, "sse": "data: {}"}, "exactly one of body"),
                          ({"wire": "openai"}, "exactly one of body")]:
        (tmp_path / "sdk__x.json").write_text(json.dumps([base | extra]), encoding="utf-8")
        assert main(["--cases", str(tmp_path)]) == 2
        assert needle in capsys.readouterr().err


def test_expected_thinking_of_a_recorded_response_is_judged():
    from agentcli.evals.conformance import Case, run_case

    body = {"type": "message", "role": "assistant", "model": "claude-sonnet-4-5", "stop_reason": "end_turn",
            "content": [{"type": "thinking", "thinking": "Two and two.", "signature": "x"},
                        {"type": "text", "text": "Four."}]}
    def case(thinking: str) -> Case:
        return Case(id="t", source={}, family="sdk_anthropic", model="claude-sonnet-4-5", tools=None, output="",
                    calls=[], text="Four.", wire="anthropic", body=body, thinking=thinking)
    assert run_case(case("Two and two.")).right
    wrong = run_case(case("Something else."))
    assert wrong.text_right is False and "thinking got" in wrong.explain()
