"""An MCP server's own daemons end with it: children it forked into its process group, and ones
that left the group with setsid, are gone once the run closes the server, whether the server
exits cleanly when stdin closes or has to be killed."""

from __future__ import annotations

import os
import uuid

import pytest
from mcp_helpers import fixture_command, profile


def _alive_with(tag: str) -> list[int]:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/cmdline", "rb") as f:
                    cmd = f.read()
                with open(f"/proc/{name}/stat", "rb") as f:
                    state = f.read().rsplit(b")", 1)[1].split()[0]
            except OSError:
                continue
            if tag.encode() in cmd and state != b"Z":
                out.append(int(name))
    return out


@pytest.mark.parametrize("spawn", ["sleep {t} &", "setsid sleep {t} &", "(sleep {t} &) ; sleep {t} &"])
async def test_daemons_a_server_started_do_not_outlive_it(workspace, spawn):
    from agentcli.tools.mcp.manager import McpManager
    from agentcli.tools.registry import ToolRegistry

    tag = str(900000 + uuid.uuid4().int % 99999)  # a sleep length no other process uses
    shell = spawn.format(t=tag) + " exec " + " ".join(f"'{a}'" for a in fixture_command())
    manager = McpManager(profile({"fx": {"command": ["sh", "-c", shell]}}).mcp_servers, workspace)
    try:
        assert await manager.start(ToolRegistry()) == []
        assert _alive_with(tag), "the daemon did not start"
    finally:
        await manager.aclose()
    assert _alive_with(tag) == []
