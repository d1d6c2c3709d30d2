"""Shared data for the native adapter tests: recorded bodies, tools, one internal history."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.types import Message, Role, Tool, ToolCall, ToolResult
from agentcli.wire.types import RequestSettings, WirePlan

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "native"


def load(api: str) -> dict:
    return json.loads((FIXTURES / f"{api}.json").read_text(encoding="utf-8"))


WEATHER = Tool(
    "get_weather",
    "Current weather for a city.",
    {
        "type": "object",
        "properties": {
            "location": {"type": "string", "description": "City name"},
            "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
        },
        "required": ["location"],
    },
)
READ = Tool("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})
NOARGS = Tool("list_dir", "List the workspace.", {"type": "object", "properties": {}})


def tools() -> list[Tool]:
    return [WEATHER, READ]


def history() -> list[Message]:
    """system, user, assistant with two calls, their results (one failed), user, assistant."""
    calls = [
        ToolCall("get_weather", {"location": "Paris"}, id="call_1", dialect="native_openai"),
        ToolCall("read_file", {"path": "a.txt"}, id="toolu_01A09q90qw90lq917835lq9", dialect="hermes"),
    ]
    err = ToolError.of(ErrorCode.NOT_FOUND, "a.txt does not exist")
    return [
        Message.system("You are terse."),
        Message.user("Weather in Paris, and show a.txt"),
        Message(Role.ASSISTANT, "Checking.", tool_calls=calls),
        Message.results([
            ToolResult("call_1", "get_weather", True, "18C sunny"),
            ToolResult("toolu_01A09q90qw90lq917835lq9", "read_file", False, "", error=err),
        ]),
        Message.user("Thanks"),
        Message(Role.ASSISTANT, "Paris is 18C; a.txt is missing."),
    ]


def plan(api: str, **kw) -> WirePlan:
    return WirePlan(api=api, **kw)


def settings(**kw) -> RequestSettings:
    return RequestSettings(model=kw.pop("model", "m"), **kw)
