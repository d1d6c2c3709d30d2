"""Every MCP server of one session: started together on first use, their tools registered
under SERVER_TOOL names, stopped together with the session."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.tools.base import BuiltinTool, ToolContext
from agentcli.tools.mcp.adapt import Listed, render_result, result_bytes, to_listed

if TYPE_CHECKING:
    from agentcli.config.mcp_schema import McpServerConfig
    from agentcli.core.types import Tool
    from agentcli.tools.mcp.connection import Connection
    from agentcli.tools.registry import ToolRegistry

PREVIEW_LIMIT = 2000


class McpTool(BuiltinTool):
    """A tool a server lists, callable like a built-in: same executor, approval and limits."""

    def __init__(self, spec: Tool, conn: Connection, remote: str) -> None:
        self.spec, self.conn, self.remote = spec, conn, remote

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.tools.mcp.connection import ServerFailure

        try:
            result = await self.conn.call(self.remote, args)
        except ServerFailure as exc:
            code = ErrorCode.TIMEOUT if exc.timeout else ErrorCode.EXECUTION
            fix = ("Call it again if you still need it; the server is started afresh."
                   if exc.broken and self.conn.restarts_left > 0 else
                   "Check the arguments." if not exc.broken else "Reach the goal without this server's tools.")
            failure = ToolFailure.of(code, exc.message, fix, server=self.conn.name, tool=self.remote)
            # The model decides whether to call again: a silent retry would wait out a hang twice.
            failure.error.retry_strategy = "rephrase"
            raise failure from None
        ok, text = render_result(result)
        size = result_bytes(result)
        if ok and size > ctx.max_output_bytes:
            # Said here rather than by the executor: its fix is for built-in tools (line ranges, head/grep).
            raise ToolFailure.of(
                ErrorCode.EXECUTION,
                f"TOOL_OUTPUT_TOO_LARGE: the result of {self.spec.name} was {size} bytes, over the "
                f"{ctx.max_output_bytes}-byte limit",
                "Ask the server for less: call the tool again with arguments that filter, page or limit what it "
                "returns (see its parameters), or use a narrower tool of the same server.",
                size=size, limit=ctx.max_output_bytes, server=self.conn.name, tool=self.remote)
        if not ok:
            raise ToolFailure.of(ErrorCode.EXECUTION, f"{self.spec.name} reported an error: {text[:4000]}",
                                 "Read the error, then change the arguments or try another tool.",
                                 server=self.conn.name, tool=self.remote)
        return text

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        body = json.dumps(args, indent=2, ensure_ascii=False, default=str)
        if len(body) > PREVIEW_LIMIT:
            body = body[:PREVIEW_LIMIT] + f"\n… ({len(body) - PREVIEW_LIMIT} more characters)"
        return f"MCP server {self.conn.name}, tool {self.remote}\n{body}"


@dataclass
class ServerStatus:
    """What `agent tools`, `agent doctor` and `/tools` show about one server."""

    name: str
    transport: str
    state: str
    server_info: str = ""
    error: str | None = None
    hint: str | None = None
    tools: list[Listed] = field(default_factory=list)


class McpManager:
    """The servers of one session. `start()` is idempotent and cheap once done."""

    def __init__(self, servers: dict[str, McpServerConfig], workspace: Path) -> None:
        from agentcli.tools.mcp.connection import Connection

        self.connections = {name: Connection(name, cfg, workspace) for name, cfg in servers.items()}
        self.listed: dict[str, list[Listed]] = {}

    def __bool__(self) -> bool:
        return bool(self.connections)

    async def start(self, registry: ToolRegistry) -> list[str]:
        """Start every server not yet running, in parallel; register their tools.
        Returns one warning per server that failed (the run goes on without it)."""
        import asyncio

        from agentcli.tools.mcp.connection import ServerFailure

        todo = [c for c in self.connections.values() if c.session is None and c.name not in self.listed]
        if not todo:
            return []
        outcomes = await asyncio.gather(*(c.ensure() for c in todo), return_exceptions=True)
        warnings = []
        for conn, outcome in zip(todo, outcomes):
            if isinstance(outcome, asyncio.CancelledError):
                raise outcome
            if isinstance(outcome, BaseException):
                failure = outcome if isinstance(outcome, ServerFailure) else ServerFailure(str(outcome))
                warnings.append(f"MCP server {conn.name!r} is unavailable: {failure.message}"
                                + (f" ({failure.hint})" if failure.hint else ""))
                self.listed[conn.name] = []  # not tried again on every turn; `agent doctor` shows why
                continue
            self._register(conn, registry)
        return warnings

    def _register(self, conn: Connection, registry: ToolRegistry) -> None:
        taken = set(registry.names())
        listed = []
        for raw in conn.tools:
            item = to_listed(conn.name, raw, conn.cfg, taken)
            listed.append(item)
            if item.spec is not None:
                taken.add(item.spec.name)
                registry.register(McpTool(item.spec, conn, item.remote))
        if conn.listed_more:
            from agentcli.tools.mcp.connection import MAX_TOOLS

            listed.append(Listed(conn.name, "…", None, f"error: the server lists more than {MAX_TOOLS} tools; "
                                 "the rest are not offered"))
        self.listed[conn.name] = listed

    def status(self) -> list[ServerStatus]:
        out = []
        for name, conn in self.connections.items():
            err = conn.error
            out.append(ServerStatus(name, conn.cfg.transport, conn.state, conn.server_info,
                                    err.message if err else None, err.hint if err else None,
                                    list(self.listed.get(name, []))))
        return out

    async def aclose(self) -> None:
        """Stop every server (the session ends, or its event loop does)."""
        import asyncio

        await asyncio.gather(*(c.close() for c in self.connections.values()), return_exceptions=True)


def manager_for(profile: Any, workspace: Path) -> tuple[McpManager | None, list[str]]:
    """The manager for a profile's servers (None when it has none), and config warnings."""
    from agentcli.config.mcp import resolve_servers

    servers, warnings = resolve_servers(profile)
    return (McpManager(servers, workspace) if servers else None), warnings


def probe(profile: Any, workspace: Path) -> tuple[list[ServerStatus], list[str]]:
    """Start each of the profile's servers, list its tools, stop it (for `agent doctor` and `agent tools`).
    Runs its own event loop: call it from synchronous code only."""
    from agentcli.core import aio
    from agentcli.tools.registry import ToolRegistry

    manager, warnings = manager_for(profile, workspace)
    if manager is None:
        return [], warnings

    async def collect() -> list[str]:
        try:
            return await manager.start(ToolRegistry())
        finally:
            await manager.aclose()

    aio.run(collect())
    return manager.status(), warnings
