"""`make test-real`: the reference MCP servers from npm (server-everything, server-filesystem), started
for real over stdio and streamable HTTP, called by a scripted model through every wire form.

The servers are installed by `make mcp-npm` (a prerequisite of test-real) under the venv.
Skipped unless AGENTCLI_REAL=1, like the rest of tests/real.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "e2e"))

from mcp_helpers import WIRE_FORMS, free_port, profile, run_goal, scripted, wait_for_port  # noqa: E402

from agentcli.core.errors import ErrorCode  # noqa: E402
from agentcli.core.events import CheckpointKind, ToolFinished  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("AGENTCLI_REAL") != "1", reason="real-server tier: run `make test-real`")

NPM_BIN = Path(os.environ.get("AGENTCLI_MCP_NPM") or Path(sys.prefix) / "mcp-npm") / "node_modules" / ".bin"
SECRET_ENV, SECRET = "AGENTCLI_MCP_TEST_API_KEY", "sk-mcp-canary-9f8e7d6c5b4a"


def _bin(name: str) -> str:
    path = NPM_BIN / name
    if not path.exists():
        pytest.fail(f"{path} is missing: run `make mcp-npm` (npm install of the MCP reference servers)")
    return str(path)


class Approver:
    def __init__(self, action: str) -> None:
        self.action, self.seen = action, []

    async def decide(self, cp):
        from agentcli.agent.approval import Decision

        self.seen.append(cp.kind)
        return Decision(self.action)


def _session(prof, ws, provider, tier="crawl"):
    from agentcli.agent.build import open_session

    return open_session(prof, ws, tier=tier, provider=provider, record=False)


def _results(events):
    return [e.result for e in events if isinstance(e, ToolFinished)]


@pytest.fixture
def ws(tmp_path):
    d = tmp_path / "ws"
    (d / "docs").mkdir(parents=True)
    (d / "docs" / "note.txt").write_text("the launch code is blue\n")
    return d


@pytest.mark.parametrize("form", list(WIRE_FORMS))
async def test_everything_server_tools_and_content_kinds(ws, form, monkeypatch):
    monkeypatch.setenv(SECRET_ENV, SECRET)  # in our environment, never in the server's
    plan = [("ev_get-sum", {"a": 19, "b": 23}), ("ev_echo", {"message": "ping"}), ("ev_get-tiny-image", {}),
            ("ev_get-structured-content", {"location": "New York"}), ("ev_get-resource-reference", {}),
            ("ev_get-env", {})]

    def model(v):
        n = len(v.results)
        if n < len(plan):
            return v.calls(plan[n])
        return v.answer(f"The sum is {v.results[0].content.split()[-1].rstrip('.')}")

    prof = profile({"ev": {"command": [_bin("mcp-server-everything")], "env": {"MCP_TEST_MARK": "m1"}}}, form)
    events, done = await run_goal(_session(prof, ws, scripted(model)), "use the everything server")
    total, echo, image, structured, resource, env = _results(events)
    assert all(r.ok for r in (total, echo, image, structured, resource, env)), [r.content for r in _results(events)]
    assert "42" in total.content and done.answer.endswith("42")
    assert "ping" in echo.content
    assert "[image: image/png" in image.content and "not shown" in image.content
    assert json.loads(structured.content)["conditions"]  # the structured result, as JSON
    assert "[resource " in resource.content
    assert "m1" in env.content and SECRET not in env.content and SECRET_ENV not in env.content


@pytest.mark.parametrize("form", list(WIRE_FORMS))
async def test_filesystem_server_reads_at_crawl_and_writes_only_when_approved(ws, form):
    target = ws / "docs" / "new.txt"

    def model(v):
        n = len(v.results)
        if n == 0:
            return v.calls(("fs_list_directory", {"path": str(ws / "docs")}),
                           ("fs_read_text_file", {"path": str(ws / "docs" / "note.txt")}))
        if n == 2:
            return v.calls(("fs_write_file", {"path": str(target), "content": "written"}))
        return v.answer("done")

    docs = {"fs": {"command": [_bin("mcp-server-filesystem"), str(ws)]}}
    # At crawl with a crawl cap: reads run without asking, the destructive write is refused.
    approver = Approver("yes")
    events, _ = await run_goal(_session(profile(docs, form, tools={"max_tier": "crawl"}), ws, scripted(model)),
                               "read the notes", approver)
    listing, note, write = _results(events)
    assert listing.ok and "note.txt" in listing.content and note.ok and "blue" in note.content
    assert not write.ok and write.error.code is ErrorCode.PERMISSION and not target.exists()
    assert approver.seen == []
    # At walk: the destructive write stops at an approval (the run tier); approved, it runs.
    approver = Approver("yes")
    events, _ = await run_goal(_session(profile(docs, form), ws, scripted(model), tier="walk"), "write it", approver)
    assert CheckpointKind.TIER_ESCALATION in approver.seen
    assert _results(events)[2].ok and target.read_text() == "written"
    # Refused at the checkpoint: nothing happens.
    target.unlink()
    events, _ = await run_goal(_session(profile(docs, form), ws, scripted(model), tier="walk"), "write it",
                               Approver("no"))
    assert not _results(events)[2].ok and not target.exists()


async def test_everything_server_over_streamable_http(ws):
    node = shutil.which("node")
    assert node, "node is needed for the npm MCP servers"
    port = free_port()
    main = NPM_BIN.parent / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
    proc = subprocess.Popen([node, "-r", str(Path(__file__).parent / "mcp_loopback.cjs"), str(main), "streamableHttp"],
                            env={**os.environ, "PORT": str(port)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)

        def model(v):
            if not v.results:
                return v.calls(("ev_get-sum", {"a": 1, "b": 2}))
            return v.answer(v.results[0].content)

        prof = profile({"ev": {"url": f"http://127.0.0.1:{port}/mcp"}})
        events, done = await run_goal(_session(prof, ws, scripted(model)), "add")
        assert _results(events)[0].ok and "3" in done.answer
    finally:
        proc.kill()
        proc.wait(timeout=10)


def test_doctor_lists_the_npm_servers_tools(tmp_path, ws, monkeypatch):
    from typer.testing import CliRunner

    from agentcli.cli.main import app

    p = tmp_path / "p.toml"
    p.write_text("\n".join([
        '[profiles.p]', 'provider = "scripted"', 'model = "scripted-model"', 'script = "s.json"',
        '[profiles.p.mcp_servers.ev]', f'command = {json.dumps([_bin("mcp-server-everything")])}',
        'startup_timeout = 180',
        '[profiles.p.mcp_servers.fs]', f'command = {json.dumps([_bin("mcp-server-filesystem"), str(ws)])}',
        'startup_timeout = 180', ""]))
    (tmp_path / "s.json").write_text('{"turns": []}')
    monkeypatch.chdir(ws)
    res = CliRunner().invoke(app, ["doctor", "-p", str(p), "--json"], catch_exceptions=False)
    report = json.loads(res.output)
    servers = {s["name"]: s for s in report["mcp_servers"]}
    assert res.exit_code == 0 and servers["ev"]["ok"] and servers["fs"]["ok"]
    fs = {t["name"]: t["tier"] for t in servers["fs"]["tools"]}
    assert fs["fs_read_text_file"] == "crawl" and fs["fs_create_directory"] == "walk" and fs["fs_write_file"] == "run"


@pytest.mark.parametrize("max_tier", ["crawl", "run"])
async def test_everything_server_run_tier_tool_stops_at_approval_or_is_refused(ws, max_tier):
    """gzip-file-as-resource is open-world (it fetches a URL), so it needs the run tier: from a walk
    session it stops at a checkpoint to raise the tier; under a crawl cap it is refused unasked."""
    def model(v):
        if not v.results:
            return v.calls(("ev_gzip-file-as-resource", {"name": "x.gz", "data": "data:text/plain,hello"}))
        return v.answer("done")

    prof = profile({"ev": {"command": [_bin("mcp-server-everything")]}}, tools={"max_tier": max_tier})
    approver = Approver("no")
    tier = "crawl" if max_tier == "crawl" else "walk"
    events, done = await run_goal(_session(prof, ws, scripted(model), tier=tier), "compress it", approver)
    (result,) = _results(events)
    assert not result.ok and result.error.code is ErrorCode.PERMISSION and done.stop == "answered"
    assert approver.seen == ([] if max_tier == "crawl" else [CheckpointKind.TIER_ESCALATION])


def _descendants(pid: int) -> set[int]:
    """Every live process below `pid` (read from /proc), so a server's own children count too."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rindex(")") + 2:].split()
            if fields[0] != "Z":
                parents[int(entry)] = int(fields[1])
    found, frontier = set(), {pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier} - found
        found |= frontier
    return found


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGHUP"])
def test_a_signal_mid_run_leaves_no_npm_server_running(tmp_path, ws, sig):
    """`timeout`, a CI cancellation or a closed terminal during a run: the run ends like Ctrl-C,
    says how to resume, and the real MCP server (node, and anything it started) is gone."""
    import signal
    import time

    from agentcli.testing import OpenAIServer, openai_body

    with OpenAIServer() as srv:
        srv.queue_slow(openai_body("too late"), delay=60)
        prof = tmp_path / "p.toml"
        prof.write_text(
            f'[profiles.m]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "{srv.url}"\napi_key_env = ""\nstream = false\n'
            f"[profiles.m.mcp_servers.everything]\ncommand = {json.dumps([_bin('mcp-server-everything')])}\n"
            "startup_timeout = 120\n")
        env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "c"), "XDG_DATA_HOME": str(tmp_path / "d")}
        proc = subprocess.Popen([sys.executable, "-m", "agentcli", "run", "slow question", "-p", f"{prof}#m",
                                 "-w", str(ws)], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        try:
            deadline = time.monotonic() + 120
            while not srv.requests:  # MCP servers start before the first request
                assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.stderr else ""
                time.sleep(0.05)
            servers = _descendants(proc.pid)
            assert servers, "the npm server is not running under the agent"
            proc.send_signal(getattr(signal, sig))
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 128 + getattr(signal, sig), err.decode()[-2000:]
    assert "agent run --resume" in err.decode()
    deadline = time.monotonic() + 30
    while servers & _descendants(1):  # bounded wait for the killed tree to be reaped
        assert time.monotonic() < deadline, f"left running: {sorted(servers & _descendants(1))}"
        time.sleep(0.1)
