"""The multi-hunk edit scenarios: each edit tool form edits the files through the real loop, the
session offers the scenario's form, and the report gives success and turns per edit tool."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.agent.layers import ALL_ON
from agentcli.core.events import Done, StopReason
from agentcli.evals import edit_scenarios, report, runner
from agentcli.evals import scenarios as sc_table

FORMS = {"multi_hunk_apply_patch": "apply_patch", "multi_hunk_str_replace": "str_replace_based_edit_tool",
         "multi_hunk_edit_file": "edit_file"}


@pytest.mark.parametrize("persona", ["anthropic-native", "hermes-emulated"])
def test_each_form_edits_the_files_and_is_reported_per_tool(persona: str):
    jobs = runner.plan_jobs([runner.subject_for_persona(persona)], list(FORMS), 1, {"on": ALL_ON})
    trials = asyncio.run(runner.run_jobs(jobs))
    assert {t.scenario: (t.passed, t.reason) for t in trials} == {name: (True, None) for name in FORMS}
    assert {t.scenario: t.edit_tool for t in trials} == FORMS
    rows = {r["edit_tool"]: r for r in report.per_edit_tool(trials)}
    assert set(rows) == set(FORMS.values())
    assert rows["apply_patch"]["turns"] < rows["edit_file"]["turns"]  # one patch call against one call per hunk
    assert report.to_json(trials)["edit_tools"] == report.per_edit_tool(trials)


def test_the_check_fails_on_unedited_or_wrong_bytes(tmp_path: Path):
    for rel, text in edit_scenarios.FILES.items():
        (tmp_path / rel).write_text(text)
    done = Done(stop=StopReason.ANSWERED, answer="done")
    outcome = sc_table.Outcome(tmp_path, tmp_path.parent, [], done, {})
    assert "cart.py" in (edit_scenarios._check(outcome) or "")
    for rel, text in edit_scenarios.EXPECTED.items():
        (tmp_path / rel).write_text(text)
    assert edit_scenarios._check(outcome) is None
    (tmp_path / "VERSION").write_text("1.5.0")  # the newline lost
    assert "VERSION" in (edit_scenarios._check(outcome) or "")
