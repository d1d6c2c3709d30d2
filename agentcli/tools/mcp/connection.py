"""One MCP server over stdio or streamable HTTP, through the official `mcp` SDK.

The SDK's transports and `ClientSession` are async context managers built on anyio task
groups, which must be entered and left by the same task. So each server lives in its own
task on the run's event loop: it opens the transport, initializes, lists the tools, then
waits for `close()`. Calls from the loop go through the session from any task.

A server that crashes, hangs or answers garbage fails the call it was serving with a
`ServerFailure`; the connection is dropped and the next call starts the server again, once:
a server that fails again before any call succeeds is given up for the session, and its
tools answer with an error at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.config.mcp_schema import McpServerConfig

STDERR_TAIL = 1500  # characters of a server's stderr quoted in an error
CONNECTION_CLOSED, REQUEST_TIMEOUT = -32000, -32001  # JSON-RPC codes the SDK uses for transport failures
MAX_TOOLS = 2000  # a server listing more tools than this is cut (and says so)
MAX_PAGES = 50


class ServerFailure(Exception):
    """The server could not serve: `message` for the model or user, `hint` for the user.

    `broken` says the connection is unusable (crash, hang, garbage); a server that answered
    with a JSON-RPC error is still healthy and `broken` is False."""

    def __init__(self, message: str, hint: str = "", *, broken: bool = True, timeout: bool = False) -> None:
        super().__init__(message)
        self.message, self.hint, self.broken, self.timeout = message, hint, broken, timeout


def _leaf(exc: BaseException) -> BaseException:
    """The first real error inside anyio's exception groups."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc


class Connection:
    """A server's lifecycle on one event loop: start (lazily), call, restart once, close."""

    def __init__(self, name: str, cfg: McpServerConfig, workspace: Path) -> None:
        self.name, self.cfg, self.workspace = name, cfg, workspace
        self.session: Any = None
        self.tools: list[dict[str, Any]] = []  # as listed, JSON dicts with the wire's aliases
        self.listed_more = False  # the server listed more than MAX_TOOLS tools; the rest are ignored
        self.server_info = ""
        self.error: ServerFailure | None = None
        self.starts = 0
        self.restarts_left = 1
        self._task: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stderr: Any = None
        self._mark: str | None = None  # in the environment of this start's server and all it starts

    # -- state ---------------------------------------------------------------------------
    @property
    def state(self) -> str:
        if self.session is not None:
            return "running"
        if self.error is not None:
            return "failed"
        return "not started" if self.starts == 0 else "stopped"

    def _bind_loop(self) -> asyncio.Lock:
        loop = asyncio.get_running_loop()
        if self._loop is not loop or self._lock is None:
            # A new event loop (a chat after `agent run -i`): nothing from the old one is usable.
            self._loop, self._lock, self.session, self._task = loop, asyncio.Lock(), None, None
        return self._lock

    # -- start -----------------------------------------------------------------------------
    def _env(self) -> dict[str, str]:
        env = dict(self.cfg.env)
        for var in self.cfg.env_from:
            value = os.environ.get(var)
            if value is None:
                raise ServerFailure(f"env_from names ${var}, which is not set",
                                    f"export {var}=... before starting agent", broken=False)
            env[var] = value
        from agentcli.tools.mcp.reap import MARK_VAR, new_mark

        self._mark = new_mark()
        env[MARK_VAR] = self._mark
        return env

    def _cwd(self) -> str:
        if not self.cfg.cwd:
            return str(self.workspace)
        cwd = Path(os.path.expanduser(self.cfg.cwd))
        return str(cwd if cwd.is_absolute() else self.workspace / cwd)

    def _transport(self) -> Any:
        if self.cfg.command is not None:
            from mcp.client.stdio import StdioServerParameters, stdio_client

            params = StdioServerParameters(command=self.cfg.command[0], args=list(self.cfg.command[1:]),
                                           env=self._env(), cwd=self._cwd(), encoding_error_handler="replace")
            if self._stderr is None:
                self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")
            return stdio_client(params, errlog=self._stderr)
        from mcp.client.streamable_http import streamable_http_client

        return streamable_http_client(str(self.cfg.url))

    def stderr_tail(self) -> str:
        """The end of what the server wrote to stderr (stdio servers)."""
        if self._stderr is None:
            return ""
        try:
            self._stderr.flush()
            self._stderr.seek(0, os.SEEK_END)
            size = self._stderr.tell()
            self._stderr.seek(max(0, size - STDERR_TAIL * 4))
            text = self._stderr.read()
        except (OSError, ValueError):
            return ""
        return text[-STDERR_TAIL:].strip()

    async def _list_tools(self, session: Any) -> list[dict[str, Any]]:
        tools: list[dict[str, Any]] = []
        cursor = None
        for _ in range(MAX_PAGES):
            if cursor is None:
                page = await session.list_tools()
            else:
                from mcp.types import PaginatedRequestParams

                page = await session.list_tools(params=PaginatedRequestParams(cursor=cursor))
            tools += [t.model_dump(by_alias=True, mode="json", exclude_none=True) for t in page.tools]
            cursor = page.next_cursor
            if not cursor or len(tools) >= MAX_TOOLS:
                break
        self.listed_more = len(tools) > MAX_TOOLS or bool(cursor)
        return tools[:MAX_TOOLS]

    async def _serve(self, ready: asyncio.Future[None]) -> None:
        from mcp import ClientSession

        assert self._stop is not None
        try:
            async with contextlib.AsyncExitStack() as stack:
                streams = await stack.enter_async_context(self._transport())
                session = await stack.enter_async_context(ClientSession(streams[0], streams[1]))
                init = await session.initialize()
                info = init.server_info
                self.server_info = f"{info.name} {info.version}"[:120] if info else ""
                self.tools = await self._list_tools(session)
                self.session = session
                ready.set_result(None)
                await self._stop.wait()
        except asyncio.CancelledError:
            if not ready.done():
                ready.cancel()
            raise
        except BaseException as exc:  # a server's failure is data for the caller, never a crash here
            if not ready.done():
                ready.set_exception(_leaf(exc) if isinstance(_leaf(exc), Exception) else RuntimeError(str(exc)))
        finally:
            self.session = None

    def _start_failure(self, exc: BaseException) -> ServerFailure:
        if isinstance(exc, ServerFailure):
            return exc
        tail = self.stderr_tail()
        said = f"; it wrote: {tail.splitlines()[-1][:300]}" if tail else ""
        if isinstance(exc, FileNotFoundError) and self.cfg.command:
            return ServerFailure(f"cannot start {self.cfg.command[0]!r}: no such program",
                                 "install it, or fix the server's command (a full path works)")
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)):
            return ServerFailure(f"did not finish starting within {self.cfg.startup_timeout:g} s{said}",
                                 f"raise startup_timeout for {self.name}, or check that the server starts by hand")
        what = f"{type(exc).__name__}: {exc}"[:300]
        where = f"at {self.cfg.url}" if self.cfg.url else "over stdio"
        return ServerFailure(f"could not connect {where} ({what}){said}",
                             "run the command by hand to see why it stops" if self.cfg.command
                             else "check that the server is running and the url is its MCP endpoint")

    async def _start(self) -> None:
        loop = asyncio.get_running_loop()
        self._stop = asyncio.Event()
        ready: asyncio.Future[None] = loop.create_future()
        self.starts += 1
        self._task = loop.create_task(self._serve(ready), name=f"mcp-server-{self.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.cfg.startup_timeout)
        except BaseException as exc:
            if self._task is not None:
                self._task.cancel()  # it is not waiting for a stop yet: cut the start short
            await self._drop()
            if isinstance(exc, asyncio.CancelledError) and not ready.done():
                raise
            self.error = self._start_failure(exc)
            raise self.error from None
        self.error = None

    async def ensure(self) -> None:
        """Start the server if it is not running: the first time, or once more after a failure."""
        async with self._bind_loop():
            if self.session is not None:
                return
            if self.starts and self.error is not None and self.error.broken:
                if self.restarts_left <= 0:
                    raise ServerFailure(f"MCP server {self.name!r} stopped working and was already restarted once; "
                                        f"its tools are unavailable for the rest of this session ({self.error.message})",
                                        self.error.hint)
                self.restarts_left -= 1
            await self._start()

    # -- calls ----------------------------------------------------------------------------
    async def call(self, remote: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """tools/call; the result as a JSON dict, or ServerFailure."""
        await self.ensure()
        session = self.session
        timeout = self.cfg.tool_timeout
        try:
            result = await asyncio.wait_for(session.call_tool(remote, arguments, read_timeout_seconds=timeout),
                                            timeout + 5)
            dumped: dict[str, Any] = result.model_dump(by_alias=True, mode="json", exclude_none=True)
            self.restarts_left = 1  # it works (again): a later failure may restart it once more
            return dumped
        except asyncio.CancelledError:
            raise
        except BaseException as exc:
            failure = self._call_failure(_leaf(exc), remote)
        if failure.broken:
            self.error = failure
            await self._drop()
        raise failure

    def _call_failure(self, exc: BaseException, remote: str) -> ServerFailure:
        from mcp.shared.exceptions import MCPError

        if isinstance(exc, MCPError) and exc.code not in (CONNECTION_CLOSED, REQUEST_TIMEOUT):
            # The server is alive and refused this call (unknown tool, invalid params, ...).
            return ServerFailure(f"{self.name} refused {remote}: {exc.message[:500]}", broken=False)
        restart = " It will be restarted for the next call." if self.restarts_left > 0 else ""
        if isinstance(exc, (asyncio.TimeoutError, TimeoutError)) or (isinstance(exc, MCPError) and exc.code == REQUEST_TIMEOUT):
            return ServerFailure(f"MCP server {self.name!r} did not answer {remote} within {self.cfg.tool_timeout:g} s."
                                 + restart, f"raise tool_timeout for {self.name} if the tool is slow", timeout=True)
        if isinstance(exc, MCPError):
            tail = self.stderr_tail()
            said = f" Its last words: {tail.splitlines()[-1][:300]}" if tail else ""
            return ServerFailure(f"MCP server {self.name!r} closed the connection during {remote} (it crashed or "
                                 f"exited).{said}{restart}", "run the server's command by hand to see why it stops")
        first = (str(exc).splitlines() or [""])[0][:200]
        return ServerFailure(f"MCP server {self.name!r} answered {remote} with something that is not a valid MCP "
                             f"result ({type(exc).__name__}: {first}).{restart}",
                             "the server may not speak this MCP version; check for an update")

    # -- stop -------------------------------------------------------------------------------
    async def _drop(self) -> None:
        """Stop the server task (the SDK closes stdin, then terminates, then kills)."""
        task, self._task = self._task, None
        self.session = None
        if self._stop is not None:
            self._stop.set()
        if task is None or task.get_loop() is not asyncio.get_running_loop():
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), 10)
        except BaseException:  # a server that will not stop is cancelled; its process is killed by the SDK
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
        self._reap()

    def _reap(self) -> None:
        """Kill whatever the server left running (daemons it forked, in its group or not)."""
        mark, self._mark = self._mark, None
        if mark is not None:
            from agentcli.tools.mcp.reap import reap

            reap(mark)

    async def close(self) -> None:
        """Stop the server; a later call starts it again (a new chat on a new event loop)."""
        if self._loop is asyncio.get_running_loop():
            await self._drop()
        self._reap()  # also when the server's task lived on an event loop that is gone
        self._loop = self._lock = None
        self.session = None
        if self._stderr is not None:
            self._stderr.close()
            self._stderr = None
