"""Runs against real MCP servers over stdio: mcp-server-time and mcp-server-git from PyPI, and a
fixture server that can crash, hang and answer garbage. The model is scripted; it writes its calls
in each wire form (native, Hermes, JSON text) and answers from what the servers returned."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess

import pytest
from mcp_helpers import (
    WIRE_FORMS,
    child_pids,
    fixture_command,
    profile,
    run_goal,
    scripted,
    server_command,
)

from agentcli.core.errors import ErrorCode
from agentcli.core.events import Checkpoint, CheckpointKind, ToolFinished


def _session(prof, ws, provider, tier="crawl"):
    from agentcli.agent.build import open_session

    return open_session(prof, ws, tier=tier, provider=provider, record=False)


def _results(events):
    return [e.result for e in events if isinstance(e, ToolFinished)]


@pytest.mark.parametrize("form", list(WIRE_FORMS))
async def test_time_tool_through_the_real_server_in_every_wire_form(workspace, form):
    def model(v):
        if not v.results:
            assert {"time_get_current_time", "time_convert_time"} <= v.tool_names
            return v.calls(("time_get_current_time", {"timezone": "Asia/Tokyo"}))
        data = json.loads(v.results[-1].content)
        return v.answer(f"In Tokyo it is {data['datetime']} ({data['day_of_week']}).")

    prof = profile({"time": {"command": server_command("mcp-server-time")}}, form)
    session = _session(prof, workspace, scripted(model))
    events, done = await run_goal(session, "What time is it in Tokyo?")
    assert done.stop == "answered", done.error
    (result,) = _results(events)
    assert result.ok and result.tool_name == "time_get_current_time"
    assert re.search(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+09:00", done.answer)
    call = next(e.call for e in events if isinstance(e, ToolFinished))
    assert call.dialect.startswith("native") if form == "native" else call.dialect in ("hermes", "json_block")


def _git_repo(path):
    path.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@e"}
    subprocess.run(["git", "init", "-q", str(path)], check=True, env=env)
    (path / "a.txt").write_text("one\n")
    subprocess.run(["git", "-C", str(path), "add", "a.txt"], check=True, env=env)
    subprocess.run(["git", "-C", str(path), "commit", "-qm", "first commit here"], check=True, env=env)
    (path / "a.txt").write_text("two\n")
    subprocess.run(["git", "-C", str(path), "add", "a.txt"], check=True, env=env)
    return path


async def test_read_only_git_tool_runs_at_crawl_and_a_write_is_refused(workspace):
    repo = _git_repo(workspace / "repo")

    def model(v):
        if not v.results:
            assert "git_log" in v.tool_names and "git_commit" not in v.tool_names  # crawl hides writes
            return v.calls(("git_log", {"repo_path": str(repo)}), ("git_commit", {"repo_path": str(repo), "message": "x"}))
        return v.answer("The last commit is: " + v.results[0].content.splitlines()[0])

    # A window where every tool fits: deferring tools behind tool_search has its own test below.
    prof = profile({"git": {"command": server_command("mcp-server-git")}}, tools={"max_tier": "crawl"},
                   capabilities={"context_window": 32768})
    session = _session(prof, workspace, scripted(model))
    events, done = await run_goal(session, "show the git log")
    assert done.stop == "answered"
    log, commit = _results(events)
    assert log.ok and "first commit here" in log.content
    assert not commit.ok and commit.error.code is ErrorCode.PERMISSION and "walk" in commit.content
    assert not any(isinstance(e, Checkpoint) for e in events)  # crawl tools never ask
    count = subprocess.run(["git", "-C", str(repo), "rev-list", "--count", "HEAD"],  # noqa: ASYNC221
                           capture_output=True, text=True, check=True)
    assert count.stdout.strip() == "1"


class Recorder:
    def __init__(self, action="no"):
        self.action, self.seen = action, []

    async def decide(self, cp):
        from agentcli.agent.approval import Decision

        self.seen.append(cp.kind)
        return Decision(self.action)


@pytest.mark.parametrize("max_tier", ["walk", "run"])
async def test_destructive_tool_stops_at_approval_or_is_refused(workspace, max_tier):
    def model(v):
        if not v.results:
            return v.calls(("fx_note", {"text": "n"}))
        if len(v.results) == 1:
            return v.calls(("fx_wipe", {}))
        return v.answer("done")

    prof = profile({"fx": {"command": fixture_command()}}, tools={"max_tier": max_tier})
    approver = Recorder("no")
    events, done = await run_goal(_session(prof, workspace, scripted(model), tier="walk"), "tidy notes", approver)
    note, wipe = _results(events)
    assert CheckpointKind.APPROVE_TOOL in approver.seen  # a walk write asks first
    assert not note.ok and "Not approved" in note.content
    assert not wipe.ok and wipe.error.code is ErrorCode.PERMISSION
    if max_tier == "run":  # destructive: needs the run tier, so the session asks to raise it
        assert CheckpointKind.TIER_ESCALATION in approver.seen
    else:  # above the profile's cap: refused without asking
        assert CheckpointKind.TIER_ESCALATION not in approver.seen and "run" in wipe.content
    assert done.stop == "answered"


async def test_killing_a_server_mid_run_gives_a_structured_error_and_the_run_goes_on(workspace):
    call = ("time_get_current_time", {"timezone": "Europe/Paris"})

    def model(v):
        n = len(v.results)
        if n == 1:
            pids = child_pids("mcp-server-time")
            assert pids, "the server should be running"
            for pid in pids:
                os.kill(pid, signal.SIGKILL)
        if n < 3:
            return v.calls(call)
        return v.answer("ok")

    prof = profile({"time": {"command": server_command("mcp-server-time")}})
    events, done = await run_goal(_session(prof, workspace, scripted(model)), "time in Paris, three times")
    first, killed, again = _results(events)
    assert first.ok and again.ok and "Europe/Paris" in again.content
    assert not killed.ok and killed.error.code is ErrorCode.EXECUTION
    assert "closed the connection" in killed.content and "restarted" in killed.content
    assert done.stop == "answered"


async def test_crash_hang_and_garbage_each_fail_one_call_and_the_server_restarts(workspace, tmp_path):
    starts = tmp_path / "starts"
    plan = ["fx_garbage", "fx_echo", "fx_hang", "fx_echo", "fx_crash", "fx_echo", "fx_fail", "fx_media"]

    def model(v):
        n = len(v.results)
        return v.calls((plan[n], {"text": "hi"} if plan[n] in ("fx_echo", "fx_fail") else {})) if n < len(plan) \
            else v.answer("done")

    prof = profile({"fx": {"command": fixture_command("--starts", str(starts)), "tool_timeout": 1}},
                   limits={"max_turns": 20})
    events, done = await run_goal(_session(prof, workspace, scripted(model)), "exercise the server")
    results = _results(events)
    assert [r.ok for r in results] == [False, True, False, True, False, True, False, True]
    garbage, _, hang, _, crash, _, fail, media = results
    assert "not a valid MCP result" in garbage.content
    assert hang.error.code is ErrorCode.TIMEOUT and "did not answer" in hang.content
    assert "closed the connection" in crash.content
    assert "reported an error" in fail.content and "the backend said no" in fail.content
    assert "[image: image/png" in media.content and "memo body" in media.content and "x.txt" in media.content
    assert starts.read_text().count("start") == 4  # first start + one restart after each failure
    assert done.stop == "answered"


async def test_a_server_failing_again_right_after_its_restart_is_given_up(workspace, tmp_path):
    starts = tmp_path / "starts"

    def model(v):
        return v.calls(("fx_crash", {})) if len(v.results) < 3 else v.answer("gave up")

    prof = profile({"fx": {"command": fixture_command("--starts", str(starts))}})
    events, done = await run_goal(_session(prof, workspace, scripted(model)), "crash it")
    results = _results(events)
    assert not any(r.ok for r in results)
    assert "already restarted once" in results[2].content
    assert starts.read_text().count("start") == 2 and done.stop == "answered"


async def test_model_switch_to_another_provider_keeps_the_mcp_calls_in_history(workspace):
    from e2e_helpers import KEY_ENV

    from agentcli.agent.switch import apply_profile
    from agentcli.config.schema import Profile
    from agentcli.testing import AnthropicServer, anthropic_body

    def model(v):
        if not v.results:
            return v.calls(("fx_echo", {"text": "kept across providers"}))
        return v.answer("It said " + v.results[0].content)

    session = _session(profile({"fx": {"command": fixture_command()}}), workspace, scripted(model))
    _, done = await run_goal(session, "echo something")
    assert done.stop == "answered"
    with AnthropicServer() as srv:
        srv.queue(anthropic_body("Noted."))
        apply_profile(session, Profile(name="c", provider="anthropic", model="claude-sonnet-4-5", url=srv.url,
                                       api_key_env=KEY_ENV, stream=False))
        _, done2 = await run_goal(session, "thanks")  # the server starts again on this run's first call
        body = srv.chat_requests()[0].body
    assert done2.stop == "answered"
    blocks = [b for m in body["messages"] if isinstance(m["content"], list) for b in m["content"]]
    use = next(b for b in blocks if b["type"] == "tool_use")
    res = next(b for b in blocks if b["type"] == "tool_result")
    assert use["name"] == "fx_echo" and use["input"] == {"text": "kept across providers"}
    assert res["tool_use_id"] == use["id"] and "kept across providers" in json.dumps(res["content"])
    assert "fx_echo" in {t["name"] for t in body.get("tools", [])}


@pytest.mark.parametrize("form", list(WIRE_FORMS))
async def test_two_hundred_tools_in_a_small_window_go_through_tool_search(workspace, form):
    seen: list[set[str]] = []

    def model(v):
        seen.append(set(v.tool_names))
        n = len(v.results)
        if n == 0:
            search = next(t for t in v.tools if t.name == "tool_search")
            assert "fx (" in search.description  # deferred tools are counted by server namespace
            return v.calls(("tool_search", {"query": "refund records"}))
        if n == 1:
            return v.calls(("fx_gen_017_list_refund", {"text": "r1"}))
        return v.answer(v.results[-1].content)

    prof = profile({"fx": {"command": fixture_command("--tools", "200")}}, form,
                   capabilities={"context_window": 8192})
    session = _session(prof, workspace, scripted(model))
    events, done = await run_goal(session, "refund the last order")
    search, refund = _results(events)
    first, second = seen[0], seen[1]
    assert "tool_search" in first and "read_file" in first
    assert not any(n.startswith("fx_gen_") for n in first)  # held back, not sent
    assert "fx_gen_017_list_refund" in search.content and "fx_gen_017_list_refund" in second
    assert refund.ok and done.answer == "gen_017_list_refund: r1"  # the server echoes its own name
    assert len(session.registry.all()) > 200  # every tool is still there to find


def _write(path, text):
    path.write_text(text)
    return path


@pytest.mark.parametrize("trusted", [True, False])
def test_agent_run_uses_a_shared_server_from_config_toml(tmp_path, workspace, trusted):
    """A read-only claim runs at crawl unasked only when the server's annotations are trusted;
    otherwise the call needs an approval (here: none possible, exit 3, nothing run)."""
    from e2e_helpers import run_agent

    cfg = tmp_path / "cfgdir"
    os.environ["XDG_CONFIG_HOME"] = str(cfg)  # restored by the suite's autouse fixture
    time_cmd = json.dumps(server_command("mcp-server-time"))
    _write(cfg.joinpath("agentcli").mkdir(parents=True) or cfg / "agentcli" / "config.toml",
           f"[mcp_servers.time]\ncommand = {time_cmd}\nstartup_timeout = 180\n"
           + ("trust_annotations = true\n" if trusted else ""))
    turns = {"api": "openai", "turns": [
        {"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "time_get_current_time",
                                                          "arguments": "{\"timezone\": \"Asia/Tokyo\"}"}}]},
            "finish_reason": "tool_calls"}]}},
        {"text": "Done."}]}
    _write(tmp_path / "script.json", json.dumps(turns))
    prof = _write(tmp_path / "p.toml", '[profiles.p]\nprovider = "scripted"\nmodel = "scripted-model"\n'
                  'script = "script.json"\nmcp = ["time"]\n[profiles.p.capabilities]\nnative_tools = true\n')
    res = run_agent("run", "time in Tokyo", "-p", str(prof), "-w", str(workspace), "--json", "--tier", "crawl")
    events = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    if not trusted:
        assert res.exit_code == 3 and events[-1]["stop"] == "refused", res.output
        assert not any(e["event"] == "tool_result" for e in events)
        return
    assert res.exit_code == 0, res.output
    finished = next(e for e in events if e["event"] == "tool_result")
    assert finished["result"]["ok"] and "+09:00" in finished["result"]["content"]


def test_doctor_and_tools_list_each_servers_tools_or_its_error(tmp_path, workspace):
    from e2e_helpers import run_agent

    def write_profile(name, servers):
        lines = [f'[profiles.{name}]', 'provider = "scripted"', 'model = "scripted-model"', 'script = "s.json"']
        for server, table in servers.items():
            lines.append(f'[profiles.{name}.mcp_servers.{server}]')
            lines += [f"{k} = {json.dumps(v)}" for k, v in {"startup_timeout": 180, **table}.items() if k != "tools"]
            for tool, override in table.get("tools", {}).items():
                lines += [f'[profiles.{name}.mcp_servers.{server}.tools.{tool}]', f'tier = "{override}"']
        return _write(tmp_path / f"{name}.toml", "\n".join(lines) + "\n")

    _write(tmp_path / "s.json", '{"turns": []}')
    fx = {"command": fixture_command(), "disabled_tools": ["wipe"], "tools": {"note": "run"}}
    doctor = write_profile("d", {"git": {"command": server_command("mcp-server-git"), "trust_annotations": True}, "fx": fx,
                                 "gone": {"command": ["no-such-mcp-server-anywhere"]}})
    res = run_agent("doctor", "-p", str(doctor), "--json")
    assert res.exit_code == 1  # one server does not start
    report = json.loads(res.output)
    servers = {s["name"]: s for s in report["mcp_servers"]}
    git_tools = {t["name"]: t for t in servers["git"]["tools"]}
    assert git_tools["git_status"]["tier"] == "crawl" and git_tools["git_add"]["tier"] == "walk"
    assert git_tools["git_reset"]["tier"] == "run" and git_tools["git_status"]["tier_from"] == "annotations"
    fx_tools = {t["name"]: t for t in servers["fx"]["tools"]}
    assert "fx_wipe" not in fx_tools and fx_tools["fx_note"]["tier_from"] == "tool override"
    assert not servers["gone"]["ok"] and "no such program" in servers["gone"]["error"] and servers["gone"]["hint"]
    check = next(c for c in report["checks"] if c["name"] == "mcp git")
    assert check["ok"] and "git_status (crawl)" in check["detail"]

    tools = write_profile("t", {"fx": fx, "gone": {"command": ["no-such-mcp-server-anywhere"]}})
    # A window the tools fit in: in a small one a run holds MCP tools behind tool_search (shown "deferred").
    tools.write_text(tools.read_text() + "[profiles.t.capabilities]\ncontext_window = 131072\n")
    res = run_agent("tools", "-p", str(tools), "--tier", "walk", "--json")
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output)
    rows = {r["name"]: r for r in doc["tools"]}
    assert rows["fx_echo"]["server"] == "fx" and rows["fx_echo"]["state"] == "visible"
    assert rows["fx_note"]["state"] == "hidden" and "needs tier run" in rows["fx_note"]["hidden_because"]
    assert rows["wipe"]["state"] == "disabled" and rows["bad.schema/tool"]["state"].startswith("error")
    assert rows["read_file"]["server"] is None
    assert any(s["name"] == "gone" and s["state"] == "failed" for s in doc["mcp_servers"])
    text = run_agent("tools", "-p", str(tools)).output
    assert "fx_echo" in text and "no such program" in text


@pytest.fixture
def http_server():
    from mcp_helpers import FIXTURE_SERVER, free_port, wait_for_port

    port = free_port()
    script = FIXTURE_SERVER.parent / "http_server.py"
    proc = subprocess.Popen([os.sys.executable, str(script), str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, proc)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.kill()
        proc.wait(timeout=10)


@pytest.mark.parametrize("form", ["native", "hermes"])
async def test_streamable_http_server(workspace, http_server, form):
    def model(v):
        if not v.results:
            assert "web_add" in v.tool_names and "web_shout" not in v.tool_names  # run tier: hidden at crawl
            return v.calls(("web_add", {"a": 2, "b": 40}), ("web_shout", {"text": "hi"}))
        return v.answer(f"The sum is {v.results[0].content}.")

    prof = profile({"web": {"url": http_server}}, form)
    events, done = await run_goal(_session(prof, workspace, scripted(model), tier="crawl"), "add 2 and 40", Recorder("no"))
    added, shouted = _results(events)
    assert added.ok and added.content.strip() == "42" and done.answer == "The sum is 42."
    assert not shouted.ok and shouted.error.code is ErrorCode.PERMISSION  # unannotated: run tier, escalation refused


async def test_real_schemas_go_through_every_native_adapter_and_argument_validation(workspace):
    from agentcli.agent.validate import validate_arguments
    from agentcli.tools.mcp.manager import McpManager
    from agentcli.tools.registry import ToolRegistry
    from agentcli.wire import native
    from agentcli.wire.names import SAFE_NAME

    manager = McpManager(profile({"git": {"command": server_command("mcp-server-git")},
                                  "fx": {"command": fixture_command()}}).mcp_servers, workspace)
    registry = ToolRegistry()
    try:
        assert await manager.start(registry) == []
    finally:
        await manager.aclose()
    specs = [t for t in registry.all() if t.namespace]
    assert len(specs) > 15
    for api in ("openai", "anthropic", "gemini", "ollama"):  # the APIs that take tool definitions
        for strict in (False, True):
            rendered = json.dumps(native.get(api).render_tools(specs, strict=strict))
            assert "git_log" in rendered and "$schema" not in rendered
    assert all(SAFE_NAME.match(t.name) for t in specs)
    log = registry.get("git_log").spec
    bad = validate_arguments(log, {"repo_path": "/x", "max_count": "ten"})
    assert bad is not None and bad.code is ErrorCode.VALIDATION and "max_count" in bad.message
    assert validate_arguments(log, {"repo_path": "/x", "max_count": 3}) is None


async def test_chat_slash_tools_shows_mcp_tools_and_servers_not_running(workspace):
    import io

    from rich.console import Console

    from agentcli.ui.slash import Repl, dispatch

    prof = profile({"fx": {"command": fixture_command()}, "gone": {"command": ["no-such-mcp-server-anywhere"]}})
    session = _session(prof, workspace, scripted(lambda v: v.answer("hi")))
    out = io.StringIO()
    repl = Repl(session, Console(file=out, width=160, no_color=True))
    dispatch(repl, "/tools")
    before = out.getvalue()
    assert "MCP server fx: not started" in before and "fx_echo" not in before  # lazy: nothing started yet
    warnings = await session.open_tool_sources()
    try:
        assert len(warnings) == 1 and "'gone'" in warnings[0]
        out.truncate(0)
        dispatch(repl, "/tools")
        after = out.getvalue()
    finally:
        await session.close_tool_sources()
    assert "fx_echo" in after and "MCP server gone: failed" in after and "MCP server fx" not in after
    row = next(line for line in after.splitlines() if "fx_wipe" in line)
    assert "fx" in row.split() and "run" in row.split()


def test_a_server_failure_notice_is_shown_as_text_not_markup(tmp_path, workspace):
    from e2e_helpers import run_agent

    script = tmp_path / "bad_server.py"
    script.write_text("import sys\nsys.stderr.write('[bold red]pwned[/] [link=http://x]click[/link]\\n')\nsys.exit(1)\n")
    _write(tmp_path / "s.json", json.dumps({"turns": [{"text": "fine without it"}]}))
    prof = _write(tmp_path / "p.toml", '[profiles.p]\nprovider = "scripted"\nmodel = "scripted-model"\n'
                  'script = "s.json"\n[profiles.p.mcp_servers.bad]\n'
                  f'command = {json.dumps([os.sys.executable, str(script)])}\n')
    res = run_agent("run", "hello", "-p", str(prof), "-w", str(workspace))
    assert res.exit_code == 0, res.output
    assert "MCP server 'bad' is unavailable" in res.output
    assert "[bold red]pwned[/]" in res.output  # the server's words, printed as they are


async def test_a_server_that_never_starts_is_given_up_at_its_startup_timeout_and_killed(workspace):
    from agentcli.tools.mcp.manager import McpManager
    from agentcli.tools.registry import ToolRegistry

    servers = {"mute": {"command": ["sleep", "300"], "startup_timeout": 1}}
    manager = McpManager(profile(servers).mcp_servers, workspace)
    warnings = await manager.start(ToolRegistry())
    await manager.aclose()
    assert len(warnings) == 1 and "did not finish starting within 1 s" in warnings[0] and "startup_timeout" in warnings[0]
    assert child_pids("sleep 300") == []
    (status,) = manager.status()
    assert status.state == "failed" and status.tools == []
