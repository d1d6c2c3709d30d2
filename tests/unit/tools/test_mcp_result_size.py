"""An MCP result over the output limit: its whole size, and a fix an MCP tool can follow."""

from __future__ import annotations

import pytest

from agentcli.core.errors import ErrorCode
from agentcli.core.types import Tool, ToolCall
from agentcli.tools.executor import execute
from agentcli.tools.mcp.adapt import MAX_RESULT_CHARS, render_result, result_bytes
from agentcli.tools.mcp.manager import McpTool
from agentcli.tools.registry import ToolRegistry


class _Conn:
    """A connection that answers every call with one result."""

    name = "fx"
    restarts_left = 1

    def __init__(self, result: dict) -> None:
        self.result = result

    async def call(self, remote: str, args: dict) -> dict:
        return self.result


def _registry(result: dict) -> ToolRegistry:
    reg = ToolRegistry()
    reg.register(McpTool(Tool("fx_dump", "Dump everything.", namespace="fx"), _Conn(result), "dump"))
    return reg


@pytest.mark.parametrize("text", ["é" * 30_000, "x" * (MAX_RESULT_CHARS + 10)], ids=["multibyte", "past-the-clip"])
async def test_an_mcp_result_over_the_limit_says_its_whole_size_and_an_mcp_fix(box, text):
    result = {"content": [{"type": "text", "text": text}, {"type": "text", "text": "tail"}]}
    size = len(text.encode()) + 1 + 4
    assert result_bytes(result) == size
    if len(text) > MAX_RESULT_CHARS:  # the rendered text is clipped: its size would understate the result's
        assert len(render_result(result)[1].encode()) < size
    r = await execute(ToolCall("fx_dump", {}), _registry(result), box.ctx)
    assert not r.ok and r.error.code is ErrorCode.EXECUTION
    assert r.error.message == (f"TOOL_OUTPUT_TOO_LARGE: the result of fx_dump was {size} bytes, over the "
                               f"{box.ctx.max_output_bytes}-byte limit")
    assert "Ask the server for less" in r.error.suggested_fix and "head/grep" not in r.error.suggested_fix
    assert r.error.details["server"] == "fx" and r.error.details["size"] == size


async def test_an_mcp_result_within_the_limit_goes_through(box):
    r = await execute(ToolCall("fx_dump", {}), _registry({"content": [{"type": "text", "text": "small"}]}), box.ctx)
    assert r.ok and r.content == "small"


def test_structured_content_counts_when_there_is_no_text():
    assert result_bytes({"content": [], "structuredContent": {"n": 1}}) == len('{"n": 1}')
