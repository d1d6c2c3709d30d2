"""`agent eval` and the offline profile end to end through the CLI (no network; --live hits loopback servers)."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_helpers import openai_call, run_agent, write_profile

from agentcli.evals.report import FIELDS
from agentcli.testing import OpenAIServer, openai_body


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_eval_json_schema_layers_on_and_off():
    out = _json(run_agent("eval", "--json", "--trials", "2", "--jobs", "3", "--profile", "noisy-openai",
                          "--profile", "anthropic-native", "--scenarios", "happy_path,xml_leak,malformed_json"))
    rows = out["results"]
    assert len(rows) == 2 * 3 * 2
    for r in rows:
        assert set(FIELDS) <= set(r), set(FIELDS) - set(r)
        assert r["layers"] in ("on", "off") and r["trials"] == 2
        assert isinstance(r["success_rate"], float) and isinstance(r["p95_ms"], float)
    on = [r for r in rows if r["layers"] == "on"]
    off = [r for r in rows if r["layers"] == "off"]
    assert all(r["success_rate"] == 1.0 for r in on)
    assert sum(r["success_rate"] for r in off) < sum(r["success_rate"] for r in on)
    assert {s["profile"] for s in out["summary"]} == {"noisy-openai", "anthropic-native"}


def test_eval_matrix_runs_golden_fixtures():
    out = _json(run_agent("eval", "--json", "--matrix", "--trials", "1", "--profile", "pythonic-emulated",
                          "--scenarios", "malformed_json"))
    assert out["golden"] and all("parsed" in g for g in out["golden"])
    assert any(g["family"] == "qwen" and g["parse_success"] == 1.0 for g in out["golden_matrix"])
    assert {m["layers"] for m in out["matrix"]} == {"on", "off"}
    assert out["matrix"][0]["mode"] == "emulated" and out["matrix"][0]["dialect"] == "pythonic"


def test_eval_table_output_and_offline_profile():
    result = run_agent("eval", "--profile", "offline", "--scenarios", "happy_path,chat_only", "--trials", "1")
    assert result.exit_code == 0, result.output
    assert "offline" in result.stdout and "happy_path" in result.stdout and "summary per profile" in result.stdout


def test_eval_shipped_profiles_offline_need_no_key(monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    out = _json(run_agent("eval", "--json", "--trials", "1", "--scenarios", "xml_leak,unknown_tool",
                          "--profile", "claude", "--profile", "boxxie"))
    assert {r["profile"] for r in out["results"]} == {"claude", "boxxie"}
    assert all(r["success_rate"] == 1.0 for r in out["results"] if r["layers"] == "on")


def test_eval_usage_errors():
    assert run_agent("eval", "--scenarios", "nope").exit_code == 2
    assert run_agent("eval", "--live").exit_code == 2
    assert run_agent("eval", "--trials", "0").exit_code == 2


def test_run_offline_profile_end_to_end(tmp_path: Path):
    from agentcli.cli.demo import GOAL, prepare

    ws = prepare(tmp_path)
    result = run_agent("run", GOAL, "--profile", "offline", "--workspace", str(ws), "--yes")
    assert result.exit_code == 0, result.output
    assert 'return f"Hello, {name}!"' in (ws / "greeting.py").read_text()
    assert "Hello" in result.stdout


def test_demo_entry_point(tmp_path: Path, capsys):
    from agentcli.cli.demo import main

    assert main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    fixed = list(tmp_path.glob("agentcli-demo-*/workspace/greeting.py"))
    assert len(fixed) == 1 and "Hello," in fixed[0].read_text() and str(fixed[0].parent) in out


def test_eval_live_against_a_loopback_server(tmp_path: Path):
    with OpenAIServer() as srv:
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o-mini")
        # happy_path: read, edit, answer; then chat_only: one answer.
        srv.queue(openai_body("", tool_calls=[openai_call("read_file", {"path": "greeting.py"}, "c1")]))
        srv.queue(openai_body("", tool_calls=[openai_call(
            "edit_file", {"path": "greeting.py", "old_content": "Helo", "new_content": "Hello"}, "c2")]))
        srv.queue(openai_body("I fixed the typo."))
        srv.queue(openai_body("6 times 7 is 42."))
        out = _json(run_agent("eval", "--live", "--json", "--profile", f"{profile}#e2e",
                              "--scenarios", "happy_path,chat_only", "--trials", "1"))
        assert len(srv.requests) == 4
        assert srv.requests[0].body["tools"] and srv.requests[0].body["model"] == "gpt-4o-mini"
    rows = {r["scenario"]: r for r in out["results"]}
    assert {r["layers"] for r in rows.values()} == {"on"}
    assert rows["happy_path"]["success_rate"] == 1.0 and rows["happy_path"]["turns"] == 3
    assert rows["chat_only"]["success_rate"] == 1.0
