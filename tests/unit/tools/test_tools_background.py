"""background: real processes in the real OS sandbox, tailed, stopped, and all stopped with the session."""

from __future__ import annotations

import asyncio
import socket
import urllib.request

import pytest
from _toolbox import Box

from agentcli.config.schema import BashConfig
from agentcli.tools import bwrap
from agentcli.tools.base import ToolContext

pytestmark = pytest.mark.skipif(not bwrap.status().available, reason="the OS sandbox cannot start here")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def _until(check, seconds: float = 10.0) -> bool:
    for _ in range(int(seconds / 0.05)):
        if check():
            return True
        await asyncio.sleep(0.05)
    return False


async def test_start_logs_status_stop(box: Box):
    r = await box.call("background", action="start",
                       command="for i in 1 2 3; do echo line-$i; done; echo to-stderr >&2; sleep 60")
    assert r.ok and "Started bg1" in r.content, r.content
    table = box.ctx.kept("background.processes", dict)
    assert await _until(lambda: b"to-stderr" in table.procs["bg1"].log)
    r = await box.call("background", action="logs", id="bg1", lines=2)
    assert r.ok and "line-3" in r.content and "to-stderr" in r.content and "line-1" not in r.content
    r = await box.call("background", action="status")
    assert r.ok and "bg1" in r.content and "running" in r.content
    r = await box.call("background", action="stop", id="bg1")
    assert r.ok and "stopped" in r.content
    assert not table.procs["bg1"].running
    r = await box.call("background", action="logs", id="bg9")
    assert not r.ok and "no background process" in r.content


async def test_an_immediate_failure_is_reported_by_start(box: Box):
    r = await box.call("background", action="start", command="echo boom; exit 3")
    assert r.ok and "ended at once" in r.content and "exit code 3" in r.content and "boom" in r.content


async def test_it_is_contained_like_bash(box: Box):
    target = box.outside / "from-background.txt"
    r = await box.call("background", action="start", command=f"echo pwned > {target}; cat {box.outside}/secret.txt")
    assert r.ok
    table = box.ctx.kept("background.processes", dict)
    await _until(lambda: not table.procs["bg1"].running)
    assert not target.exists() and box.outside_unchanged()
    assert b"CANARY" not in bytes(table.procs["bg1"].log)


async def test_a_server_answers_and_every_process_stops_with_the_session(tmp_path):
    box = Box(tmp_path, network=True)  # a server other programs reach needs the shared network
    (box.root / "index.html").write_text("hello from the sandbox\n")
    port = _free_port()
    r = await box.call("background", action="start", command=f"python3 -m http.server {port} --bind 127.0.0.1")
    assert r.ok, r.content
    r2 = await box.call("background", action="start", command="sleep 300")
    assert r2.ok

    def answers() -> bool:
        try:
            return b"hello from the sandbox" in urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html",
                                                                       timeout=1).read()
        except OSError:
            return False

    assert await _until(lambda: answers(), 15)
    table = box.ctx.kept("background.processes", dict)
    assert len(table.summary()) == 2 and all("running" in line for line in table.summary())
    await table.aclose()
    assert not any(bg.running for bg in table.procs.values())
    assert not answers()


def test_start_is_judged_by_the_shell_rules_and_the_rest_is_allowed(tmp_path):
    box = Box(tmp_path)
    ctx = ToolContext(box.ws, BashConfig(deny=["rm -rf"], allow=["sleep"]), 20_000)
    tool = box.registry.get("background")
    assert tool.judge({"action": "start", "command": "rm -rf /"}, ctx).decision == "refuse"
    assert tool.judge({"action": "start", "command": "sleep 5"}, ctx).decision == "allow"
    assert tool.judge({"action": "start", "command": "python3 server.py"}, ctx).decision == "ask"
    assert tool.judge({"action": "status"}, ctx).decision == "allow"


async def test_without_the_sandbox_nothing_starts(box: Box, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(bwrap, "status", lambda **_: SimpleNamespace(available=False, detail="bwrap is missing"))
    r = await box.call("background", action="start", command="touch started")
    assert not r.ok and "need the OS sandbox" in r.content and "bwrap is missing" in r.content
    assert not (box.root / "started").exists()
