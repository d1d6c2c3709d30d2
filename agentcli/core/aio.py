"""One event loop per process.

Every command that does async work (a run, the chat that follows `run -i`, doctor's checks,
`agent eval`, `agent parse` of a stream, MCP probes) runs it here, so what lives on the loop —
the provider's HTTP client, the MCP server sessions — can pass from one part to the next
instead of being rebuilt. `run` behaves like `asyncio.run` (Ctrl-C cancels the running task);
the REPL drives the same loop between prompts through `loop()`.
"""

from __future__ import annotations

import asyncio
import atexit
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")
_runner: asyncio.Runner | None = None


def _get() -> asyncio.Runner:
    global _runner
    if _runner is None:
        _runner = asyncio.Runner()
        atexit.register(close)
    return _runner


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to completion on the process's loop. If it ends by an exception (Ctrl-C
    among them), what it left running is cancelled and finished now, as `asyncio.run` does,
    so cleanup (an interrupted run's end record) happens before the caller goes on."""
    try:
        return _get().run(coro)
    except BaseException:
        close()
        raise


def loop() -> asyncio.AbstractEventLoop:
    """The process's loop, for code that drives it step by step (the REPL)."""
    return _get().get_loop()


def close() -> None:
    """Cancel what is left, finish async generators and the executor, close the loop (once)."""
    global _runner
    if _runner is not None:
        runner, _runner = _runner, None
        runner.close()
