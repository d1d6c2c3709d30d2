"""`agent eval` and the offline profile end to end through the CLI (no network; --live hits loopback servers)."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_helpers import openai_call, run_agent, write_profile

from agentcli.agent.layers import LAYERS
from agentcli.evals.report import CONTRIBUTION_FIELDS, FIELDS
from agentcli.testing import OpenAIServer, openai_body


def _json(result) -> dict:
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_eval_json_schema_layers_on_and_off():
    out = _json(run_agent("eval", "--json", "--trials", "2", "--jobs", "3", "--profile", "noisy-openai",
                          "--profile", "anthropic-native", "--scenarios", "happy_path,xml_leak,malformed_json",
                          "--layers", "on,off"))
    rows = out["results"]
    assert len(rows) == 2 * 3 * 2 and out["source"] == "scripted"
    for r in rows:
        assert set(FIELDS) <= set(r), set(FIELDS) - set(r)
        assert r["layers"] in ("on", "off") and r["trials"] == 2
        assert isinstance(r["success_rate"], float) and isinstance(r["p95_ms"], float)
    assert all(r["success_rate"] == 1.0 for r in rows if r["layers"] == "on")
    assert {s["profile"] for s in out["summary"]} == {"scripted: noisy-openai", "scripted: anthropic-native"}
    assert {(c["profile"], c["layer"]) for c in out["layers"]} == {
        ("scripted: noisy-openai", "all"), ("scripted: anthropic-native", "all")}


def test_eval_json_reports_each_layers_contribution():
    out = _json(run_agent("eval", "--json", "--trials", "1", "--profile", "openai-native", "--layers", "all"))
    contrib = {c["layer"]: c for c in out["layers"]}
    assert set(contrib) == {*LAYERS, "all"}
    for c in contrib.values():
        assert set(CONTRIBUTION_FIELDS) <= set(c)
        assert c["contribution"] == round(c["success_on"] - c["success_without"], 3)
        assert c["unexpected"] == []
    assert "repeat_loop" in contrib["repeat_guard"]["changed"] and "xml_leak" in contrib["fallback"]["changed"]
    # a layer that only saves a retry changes no outcome here, and the report says so
    assert contrib["repair"]["changed"] == [] and contrib["repair"]["turns_saved"] > 0
    assert {r["layers"] for r in out["results"]} == {"on", "off", *(f"no-{n}" for n in LAYERS)}


def test_eval_matrix_runs_golden_fixtures():
    out = _json(run_agent("eval", "--json", "--matrix", "--trials", "1", "--profile", "pythonic-emulated",
                          "--scenarios", "malformed_json", "--layers", "on,off"))
    assert out["golden"] and all("parsed" in g for g in out["golden"])
    assert any(g["family"] == "qwen" and g["parse_success"] == 1.0 for g in out["golden_matrix"])
    assert {m["layers"] for m in out["matrix"]} == {"on", "off"}
    assert out["matrix"][0]["mode"] == "emulated" and out["matrix"][0]["dialect"] == "pythonic"


def test_eval_table_output_and_offline_profile():
    result = run_agent("eval", "--profile", "offline", "--scenarios", "happy_path,chat_only", "--trials", "1")
    assert result.exit_code == 0, result.output
    assert "scripted: " in result.stdout and "offline-demo" in result.stdout and "happy_path" in result.stdout
    assert "what each layer contributes" in result.stdout and "summary per profile" in result.stdout


def test_eval_shipped_profiles_offline_need_no_key(monkeypatch):
    for var in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    out = _json(run_agent("eval", "--json", "--trials", "1", "--scenarios", "xml_leak,unknown_tool",
                          "--profile", "claude", "--profile", "boxxie"))
    names = {r["profile"] for r in out["results"]}
    assert len(names) == 2 and all(n.startswith("scripted: ") for n in names), names
    assert not any("claude" == n or "boxxie" in n for n in names), "an offline row carries a real profile's name"
    assert all(r["success_rate"] == 1.0 for r in out["results"] if r["layers"] == "on")


def test_eval_usage_errors():
    assert run_agent("eval", "--scenarios", "nope").exit_code == 2
    assert run_agent("eval", "--live").exit_code == 2
    assert run_agent("eval", "--trials", "0").exit_code == 2
    assert run_agent("eval", "--layers", "sparkle").exit_code == 2


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


def _queue_live_answers(srv) -> None:
    # happy_path with the layers on, then off: read, edit, answer; then chat_only on and off: one answer.
    for _ in range(2):
        srv.queue(openai_body("", tool_calls=[openai_call("read_file", {"path": "greeting.py"}, "c1")]))
        srv.queue(openai_body("", tool_calls=[openai_call(
            "edit_file", {"path": "greeting.py", "old_content": "Helo", "new_content": "Hello"}, "c2")]))
        srv.queue(openai_body("I fixed the typo."))
    for _ in range(2):
        srv.queue(openai_body("6 times 7 is 42."))


def test_eval_live_against_a_loopback_server(tmp_path: Path):
    with OpenAIServer() as srv:
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o-mini")
        _queue_live_answers(srv)  # layers on, then all off: the same scenarios against the same endpoint
        out = _json(run_agent("eval", "--live", "--json", "--profile", f"{profile}#e2e",
                              "--scenarios", "happy_path,chat_only", "--trials", "1"))
        assert len(srv.requests) == 8
        assert srv.requests[0].body["tools"] and srv.requests[0].body["model"] == "gpt-4o-mini"
    assert out["source"] == "live"
    rows = {(r["scenario"], r["layers"]): r for r in out["results"]}
    assert {r["profile"] for r in rows.values()} == {"e2e"}
    assert {r["layers"] for r in rows.values()} == {"on", "off"}
    for layers in ("on", "off"):
        assert rows[("happy_path", layers)]["success_rate"] == 1.0 and rows[("happy_path", layers)]["turns"] == 3
        assert rows[("chat_only", layers)]["success_rate"] == 1.0


def test_eval_live_shows_why_an_endpoint_could_not_be_used(tmp_path: Path):
    with OpenAIServer() as srv:
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o-mini")
        for _ in range(2):
            srv.queue_error(401, {"error": {"message": "Incorrect API key provided", "type": "invalid_request_error"}})
        result = run_agent("eval", "--live", "--profile", f"{profile}#e2e", "--scenarios", "chat_only",
                           "--trials", "1")
    assert result.exit_code == 1, result.output
    assert "endpoint" in result.stdout and "could not use the endpoint" in result.stderr
    assert "Incorrect API key" in result.stdout + result.stderr


def test_eval_live_exits_non_zero_when_nothing_listens(tmp_path: Path):
    import socket

    with socket.socket() as sock:  # a port that was free a moment ago: nothing listens there now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    profile = write_profile(tmp_path, "openai", f"http://127.0.0.1:{port}/v1", "gpt-4o-mini",
                            limits={"max_retries": 0})
    result = run_agent("eval", "--live", "--json", "--profile", f"{profile}#e2e", "--scenarios", "chat_only",
                       "--trials", "1")
    assert result.exit_code == 1
    rows = json.loads(result.stdout)["results"]
    assert all(r["success_rate"] == 0.0 and r["endpoint_errors"] == 1 for r in rows)
    assert all(r["failures"][0].startswith("endpoint: ") for r in rows)
