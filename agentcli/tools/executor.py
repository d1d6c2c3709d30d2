"""Run one tool call and always come back with a ToolResult (cancellation aside).

Tier, schema, approval and repeat checks happen in the loop before this; here a
failure of any kind becomes a structured ToolError, secrets are scrubbed from the
output, and an over-size result is refused rather than silently cut.
"""

from __future__ import annotations

import asyncio

from agentcli.core.errors import ErrorCode, ToolError, ToolFailure
from agentcli.core.redaction import redact
from agentcli.core.types import ToolCall, ToolResult
from agentcli.tools.base import ToolContext
from agentcli.tools.registry import ToolRegistry


def _fail(call: ToolCall, error: ToolError) -> ToolResult:
    return ToolResult(call.id, call.name, ok=False, content=error.render(), error=error)


async def execute(call: ToolCall, registry: ToolRegistry, ctx: ToolContext, *, timeout: float | None = None) -> ToolResult:
    """Run `call`; never raises except to pass on cancellation."""
    tool = registry.get(call.name)
    if tool is None:
        return _fail(call, ToolError.of(ErrorCode.NOT_FOUND, f"there is no tool named {call.name!r}",
                                        "Use one of the tools you were offered."))
    args = call.arguments if isinstance(call.arguments, dict) else {}
    try:
        if timeout is not None:
            content = await asyncio.wait_for(tool.run(args, ctx), timeout)
        else:
            content = await tool.run(args, ctx)
    except ToolFailure as exc:
        err = exc.error
        err.message = redact(err.message)
        return _fail(call, err)
    except TimeoutError:
        return _fail(call, ToolError.of(ErrorCode.TIMEOUT, f"{call.name} did not finish within {timeout:g} s",
                                        "Narrow the request so it finishes sooner.", timeout_seconds=timeout))
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # a bug in a tool must not end the run
        return _fail(call, ToolError.of(ErrorCode.EXECUTION, redact(f"{call.name} failed: {type(exc).__name__}: {exc}"),
                                        "Try different arguments or another tool."))
    if not isinstance(content, str):
        content = str(content)
    content = redact(content)
    size = len(content.encode("utf-8", errors="replace"))
    if size > ctx.max_output_bytes:
        return _fail(call, ToolError.of(
            ErrorCode.EXECUTION,
            f"TOOL_OUTPUT_TOO_LARGE: the result of {call.name} was {size} bytes, over the {ctx.max_output_bytes}-byte limit",
            "Narrow the request: a smaller line range, a more specific pattern or path, or a command piped through "
            "head/grep.", size=size, limit=ctx.max_output_bytes,
        ))
    return ToolResult(call.id, call.name, ok=True, content=content)
