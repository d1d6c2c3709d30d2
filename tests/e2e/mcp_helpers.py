"""Helpers for runs against real MCP servers: profiles, a scripted model that writes its calls in
the session's wire form (native, Hermes or JSON text), and finding a server's process."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentcli.core.types import Message, Role, Tool, ToolResult

TEST_STARTUP_S = 180
FIXTURE_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "fixture_server.py"
# tool_format -> what makes the plan use it (the scripted model id is unknown: capabilities say native)
WIRE_FORMS: dict[str, dict[str, Any]] = {
    "native": {"capabilities": {"native_tools": True}},
    "hermes": {"tools": {"tool_format": "hermes"}},
    "json": {"tools": {"tool_format": "json"}},
}


def server_command(name: str) -> list[str]:
    """The console script of a Python MCP server installed next to this interpreter."""
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    assert found, f"{name} is not installed; `make install` installs the test extras"
    return [found]


def fixture_command(*args: str) -> list[str]:
    return [sys.executable, str(FIXTURE_SERVER), *args]


def profile(servers: dict[str, dict[str, Any]], form: str = "native", **extra: Any) -> Any:
    from agentcli.config.schema import Profile

    # A loaded test machine can take many seconds to import a Python server: time is not under test here.
    # These servers are ours, so their read-only claims are believed (trust_annotations); the
    # default, where a claim asks, has its own tests.
    servers = {name: {"startup_timeout": TEST_STARTUP_S, "trust_annotations": True, **table}
               for name, table in servers.items()}
    table: dict[str, Any] = {"name": "mcp", "provider": "scripted", "model": "scripted-model",
                             "mcp_servers": servers, **WIRE_FORMS[form]}
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(table.get(key), dict):
            table[key] = {**table[key], **value}
        else:
            table[key] = value
    return Profile.model_validate(table)


class View:
    """What the scripted model sees on one request."""

    def __init__(self, messages: list[Message], tools: list[Tool], plan: Any) -> None:
        self.messages, self.tools, self.plan = messages, tools, plan

    @property
    def tool_names(self) -> set[str]:
        return {t.name for t in self.tools}

    @property
    def results(self) -> list[ToolResult]:
        return [r for m in self.messages if m.role is Role.TOOL for r in m.tool_results]

    def calls(self, *outs: tuple[str, dict[str, Any]], text: str = "") -> dict[str, Any]:
        from agentcli.providers.scripted.writers import Out, write_turn

        return write_turn(self.plan, text, [Out(n, a) for n, a in outs])

    def answer(self, text: str) -> dict[str, Any]:
        return self.calls(text=text)


def scripted(policy: Callable[[View], dict[str, Any]], api: str = "openai") -> Any:
    from agentcli.providers.scripted import ScriptedProvider

    return ScriptedProvider.from_function(lambda m, t, p: policy(View(m, t, p)), api=api)


async def run_goal(session: Any, goal: str, approver: Any = None) -> tuple[list[Any], Any]:
    """Run one goal through the real loop; (events, Done). Servers are stopped afterwards."""
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.loop import Agent

    events = []
    try:
        async for ev in Agent(session, approver or PolicyApprover(approve_all=False)).run(goal):
            events.append(ev)
    finally:
        await session.close_tool_sources()
    return events, events[-1]


def child_pids(marker: str) -> list[int]:
    """Processes started by this one whose command line contains `marker` (Linux /proc)."""
    me, out = os.getpid(), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        if ppid == me and marker in cmd:
            out.append(int(entry))
    return out


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, proc: Any, limit_s: float = 30.0) -> None:
    """Block until something accepts on 127.0.0.1:port (or the process died)."""
    import socket
    import time

    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode} before listening")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")
