"""`agent run "fix the typo in greeting.py" --profile offline` with no tier flag: the model asks for the
walk tier, a person (or --approve edits) says yes, and the file is fixed."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pexpect
from e2e_helpers import run_agent

GREETING = 'def greet(name):\n    return f"Helo, {name}!"\n'
GOAL = "fix the typo in greeting.py"


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "greeting.py").write_text(GREETING)
    return ws


def test_a_person_approves_the_tier_request_at_the_terminal(tmp_path):
    ws = _ws(tmp_path)
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    env.update(TERM="xterm", NO_COLOR="1", COLUMNS="120")
    child = pexpect.spawn(sys.executable, ["-m", "agentcli", "run", GOAL, "--profile", "offline", "--workspace", str(ws)],
                          env=env, encoding="utf-8", timeout=30, dimensions=(40, 120))
    try:
        child.expect("rises on your yes")  # the header says how the tier may rise
        child.expect("checkpoint: tier escalation")
        child.expect("raise the tier from crawl to walk")
        child.expect("> ")
        child.sendline("y")
        child.expect("checkpoint: approve tool")  # the edit itself is shown as a diff and approved
        child.expect(r"\+    return f\"Hello")
        child.expect("> ")
        child.sendline("y")
        child.expect("answered")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
    assert 'return f"Hello, {name}!"' in (ws / "greeting.py").read_text()


def test_approve_edits_preapproves_walk_and_the_json_shows_the_tier_request(tmp_path):
    ws = _ws(tmp_path)
    res = run_agent("run", GOAL, "--profile", "offline", "--workspace", str(ws), "--approve", "edits", "--json")
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    start = next(e for e in events if e["event"] == "session_start")
    assert start["tier"] == "crawl" and start["preapproved"] == "walk" and start["max_tier"] == "walk"
    calls = [e["call"]["name"] for e in events if e["event"] == "tool_result"]
    assert calls.count("request_tier") == 1 and "edit_file" in calls
    assert not any(e["event"] == "checkpoint" for e in events)  # pre-approved: nobody was asked
    assert 'return f"Hello, {name}!"' in (ws / "greeting.py").read_text()


def test_without_a_person_or_a_flag_the_refusal_names_the_flag(tmp_path):
    ws = _ws(tmp_path)
    res = run_agent("run", GOAL, "--profile", "offline", "--workspace", str(ws))
    assert res.exit_code == 3
    assert "--approve edits" in res.output and "--tier" not in res.output.split("refused", 1)[-1]
    assert (ws / "greeting.py").read_text() == GREETING
