"""The bash tool: process group, timeout, bounded output, no stdin, env scrubbing, network off."""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import threading
import uuid

import pytest
from _toolbox import Box

from agentcli.core.errors import ErrorCode
from agentcli.tools import bwrap, isolation

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")


def _survivors(tag: str) -> list[int]:
    """Host pids of live processes whose command line holds `tag` (pids inside the sandbox's own
    namespace mean nothing out here, so survivors are found by a unique word instead)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{name}/stat") as f:
                zombie = f.read().split(") ", 1)[1][0] == "Z"
        except (OSError, IndexError):
            continue
        if tag.encode() in cmd and not zombie and b"pytest" not in cmd:
            found.append(int(name))
    return found


async def _gone(tag: str) -> bool:
    for _ in range(50):
        if not _survivors(tag):
            return True
        await asyncio.sleep(0.05)
    return False


def _sleeper(tag: str) -> str:
    """A shell word that starts a long sleep whose command line carries `tag`."""
    return f"bash -c 'sleep 300; : {tag}'"


async def test_runs_in_the_workspace_with_exit_code_and_streams(box: Box):
    r = await box.call("bash", command="pwd; echo out; echo err >&2; exit 3")
    assert r.ok
    assert r.content.splitlines()[0] == "exit code: 3"
    assert str(box.root) in r.content and "out" in r.content and "[stderr]\nerr" in r.content
    r = await box.call("bash", command="pwd", working_directory="src/pkg")
    assert r.content.endswith(str(box.root / "src" / "pkg"))
    r = await box.call("bash", command="true")
    assert r.content == "exit code: 0\n(no output)"


async def test_working_directory_stays_inside(box: Box):
    for wd in ("..", "/tmp", "link_dir", "README.md"):
        r = await box.call("bash", command="ls", working_directory=wd)
        assert not r.ok and r.error.code in (ErrorCode.PERMISSION, ErrorCode.VALIDATION), wd


async def test_stdin_is_empty(box: Box):
    r = await box.call("bash", command="cat; read x; echo got:$?")
    assert r.ok and "got:1" in r.content  # a stdin left open would block `cat` until the call timed out


async def test_output_is_bounded_head_and_tail(box: Box):
    r = await box.call("bash", command="seq 1 200000")
    assert r.ok and len(r.content.encode()) <= box.ctx.max_output_bytes
    assert "\n1\n2\n3\n" in r.content and r.content.rstrip().endswith("200000")
    assert "bytes of stdout omitted" in r.content and "head, tail or grep" in r.content


async def test_timeout_kills_the_whole_tree(box: Box):
    tag = f"survivor-{uuid.uuid4().hex}"
    r = await box.call("bash", command=f"{_sleeper(tag)} & echo started; sleep 300", timeout_seconds=1)
    assert not r.ok and r.error.code is ErrorCode.TIMEOUT and "killed" in r.content
    assert await _gone(tag), "the child sleep survived the timeout"


@pytest.mark.parametrize("form", ["({s} &)", "setsid -f {s}", "nohup {s} >/dev/null 2>&1 &", "{s} & disown"])
async def test_background_children_do_not_outlive_the_call(box: Box, form: str):
    tag = f"survivor-{uuid.uuid4().hex}"
    r = await box.call("bash", command=form.format(s=_sleeper(tag)) + "; sleep 0.3; echo started")
    assert r.ok and "started" in r.content
    assert await _gone(tag), f"{form} outlived the call"


async def test_cancellation_kills_the_tree(box: Box):
    tag = f"survivor-{uuid.uuid4().hex}"
    marker = box.root / "c.txt"
    task = asyncio.create_task(box.call("bash", command=f"{_sleeper(tag)} & echo up > {marker}; wait"))
    for _ in range(200):
        if marker.exists() and _survivors(tag):
            break
        await asyncio.sleep(0.05)
    assert _survivors(tag), "the sleeper never started; the test would prove nothing"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert await _gone(tag)


async def test_env_is_scrubbed_and_cannot_be_readded(box: Box, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "sk-live-abcdefghijklmnop1234")
    monkeypatch.setenv("GH_TOKEN", "ghp_secretvalue123456")
    monkeypatch.setenv("DB_PASSWORD", "hunter2hunter2")
    monkeypatch.setenv("ALLOWED_TOKEN", "ok-to-see-1234")
    monkeypatch.setenv("PLAIN_SETTING", "visible")
    monkeypatch.setenv("NOT_LISTED", "not-inherited")
    monkeypatch.setenv("RENAMED", "prefix-sk-live-abcdefghijklmnop1234")  # a key under an innocent name
    box.ctx.bash = box.bash.model_copy(update={"env_allow": ["ALLOWED_TOKEN", "PLAIN_SETTING", "RENAMED"]})
    r = await box.call("bash", command="env", env={"OPENAI_API_KEY": "model-set-key", "EXTRA": "1"})
    assert r.ok
    names = {line.split("=", 1)[0] for line in r.content.splitlines() if "=" in line}
    assert {"MY_API_KEY", "GH_TOKEN", "DB_PASSWORD", "OPENAI_API_KEY", "NOT_LISTED", "RENAMED"}.isdisjoint(names)
    assert {"ALLOWED_TOKEN", "PLAIN_SETTING", "EXTRA"} <= names
    for value in ("sk-live-abcdefghijklmnop1234", "ghp_secretvalue123456", "hunter2hunter2", "model-set-key"):
        assert value not in r.content
    assert isolation.scrub_env({"A_SECRET": "x", "B": "y"}, {"C_PASSWORD": "z"}, [])[1] == ["A_SECRET", "C_PASSWORD"]


async def test_denied_commands_never_run(box: Box):
    box.ctx.bash = box.bash.model_copy(update={"deny": ["touch"]})
    r = await box.call("bash", command="echo hi; sh -c 'touch pwned'")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION and "deny" in r.content
    assert not (box.root / "pwned").exists()


async def test_preview_shows_command_directory_and_env(box: Box):
    tool = box.registry.get("bash")
    text = tool.preview({"command": "make test", "working_directory": "src", "env": {"X": "1"}}, box.ctx)
    assert text.splitlines()[:4] == ["$ make test", "(in src)", "env: X=1", "(network off)"]


class _Canary:
    """A loopback TCP listener that counts connections."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._t.join()
        self.sock.close()


def _probes(port: int) -> list[str]:
    py = shutil.which("python3") or shutil.which("python")
    cmds = [f"echo hi > /dev/tcp/127.0.0.1/{port}"]
    if shutil.which("curl"):
        cmds.append(f"curl -s -m 3 http://127.0.0.1:{port}/")
    if py:
        cmds.append(f"{py} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 3)\"")
    return cmds


async def test_network_off_makes_no_connections(box: Box):
    prefix, why = isolation.probe_network_isolation()
    canary = _Canary()
    try:
        box.ctx.bash = box.bash.model_copy(update={"network": True})
        for cmd in _probes(canary.port)[:1]:  # control: the canary does see a connection with network on
            await box.call("bash", command=cmd, timeout_seconds=10)
        await asyncio.sleep(0.3)
        assert canary.connections >= 1, "the canary listener does not work; the test would prove nothing"
        before = canary.connections
        box.ctx.bash = box.bash.model_copy(update={"network": False})
        results = [await box.call("bash", command=cmd, timeout_seconds=10) for cmd in _probes(canary.port)]
        await asyncio.sleep(0.3)
        if prefix is None and not bwrap.status().available:
            # No isolation here: the tool must refuse (fail closed), and nothing may connect.
            for r in results:
                assert not r.ok and r.error.code is ErrorCode.PERMISSION and "isolation" in r.content
            pytest.skip(f"network isolation unavailable ({why}); fail-closed refusal checked instead")
        assert canary.connections == before, "a command reached the loopback canary with network off"
        assert all(r.ok or r.error.code is not ErrorCode.PERMISSION for r in results)
    finally:
        canary.close()


async def test_network_off_fails_closed_without_isolation(box: Box):
    """Where neither the sandbox nor a network namespace can start, a (human-approved) command is refused."""
    saved = isolation.probe_network_isolation()
    isolation.set_probe_result((None, "unshare is not permitted here (test)"))
    bwrap.set_status(bwrap.SandboxStatus(False, "no sandbox (test)"))
    try:
        box.ctx.bash = box.bash.model_copy(update={"network": False})
        r = await box.call("bash", command="echo should-not-run > ran.txt")
        assert not r.ok and r.error.code is ErrorCode.PERMISSION
        assert "network isolation is unavailable" in r.content and "network = true" in r.content
        assert not (box.root / "ran.txt").exists()
    finally:
        isolation.set_probe_result(saved)
        bwrap.set_status(None)
