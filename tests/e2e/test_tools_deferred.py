"""`agent tools` says which tools a run holds behind `tool_search`, instead of calling them visible."""

from __future__ import annotations

import json

from e2e_helpers import run_agent
from mcp_helpers import fixture_command


def _profile(tmp_path, window: int) -> str:
    lines = ["[profiles.t]", 'provider = "scripted"', 'model = "scripted-model"', 'script = "s.json"',
             "[profiles.t.capabilities]", f"context_window = {window}",
             "[profiles.t.mcp_servers.fx]", f"command = {json.dumps(fixture_command('--tools', '200'))}",
             "startup_timeout = 180"]
    (tmp_path / "s.json").write_text('{"turns": []}')
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_tools_held_back_behind_tool_search_are_listed_as_deferred(tmp_path):
    res = run_agent("tools", "-p", _profile(tmp_path, 8192), "--tier", "walk", "--json")
    assert res.exit_code == 0, res.output
    rows = {r["name"]: r for r in json.loads(res.output)["tools"]}
    gen = [r for name, r in rows.items() if name.startswith("fx_gen_")]
    assert len(gen) == 200 and all(r["state"] == "deferred" and not r["visible"] for r in gen), gen[:2]
    assert "tool_search" in gen[0]["hidden_because"]
    assert rows["read_file"]["state"] == "visible"  # built-ins stay on offer
    text = run_agent("tools", "-p", _profile(tmp_path, 8192), "--tier", "walk").output
    assert "deferred" in text


def test_tools_that_fit_stay_visible(tmp_path):
    res = run_agent("tools", "-p", _profile(tmp_path, 10_000_000), "--tier", "walk", "--json")
    rows = {r["name"]: r for r in json.loads(res.output)["tools"]}
    assert rows["fx_gen_017_list_refund"]["state"] == "visible"
