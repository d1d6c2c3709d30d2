"""Emulation: prompts per style, plain history rendering, fitting tools into a budget."""

from __future__ import annotations

import pytest

from agentcli.core.types import Message, ParsedResponse, Role, Tool, ToolCall, ToolResult
from agentcli.wire import dialects
from agentcli.wire.emulate import estimate_tokens, optimize_tool_definitions, render_plain_history
from agentcli.wire.pipeline import parse_text
from agentcli.wire.types import ParseContext

READ = Tool("read_file", "Read a text file from the workspace.", {"type": "object", "properties": {"path": {"type": "string", "description": "Relative path"}}, "required": ["path"]})
GREP = Tool("grep", "Search files for a pattern.", {"type": "object", "properties": {"pattern": {"type": "string"}, "max": {"type": "integer"}}, "required": ["pattern", "max"]})
TOOLS = [READ, GREP]
STYLES = ["hermes", "json", "xml", "pythonic", "mistral", "qwen_xml"]


@pytest.mark.parametrize("style", STYLES)
def test_prompt_says_how_to_call_one_and_several_and_to_stop(style):
    d = dialects.get(dialects.SHORTHANDS[style])
    prompt = d.render_prompt(TOOLS)
    assert "read_file" in prompt and "grep" in prompt
    assert "several tools" in prompt and "Write nothing after your tool calls" in prompt
    compact = d.render_prompt(TOOLS, compact=True)
    assert len(compact) < len(prompt) and "read_file" in compact


@pytest.mark.parametrize("style", STYLES)
def test_rendered_calls_parse_back(style):
    """What we show the model as its own past calls is exactly what we parse."""
    name = dialects.SHORTHANDS[style]
    d = dialects.get(name)
    calls = [ToolCall("read_file", {"path": "a b/\u00e9.py"}), ToolCall("grep", {"pattern": 'x "y"\n', "max": 3})]
    text = "\n".join(d.render_call(c) for c in calls)
    resp = parse_text(text, ParseContext.of(TOOLS), (name,))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [(c.name, c.arguments) for c in calls]


def test_plain_history():
    call = ToolCall("read_file", {"path": "a.txt"}, id="call_1")
    history = [
        Message.system("Be brief."),
        Message.user("Read a.txt"),
        Message.assistant(ParsedResponse(text="Reading.", tool_calls=[call])),
        Message.results([ToolResult("call_1", "read_file", True, "hello"), ToolResult("call_2", "grep", False, "no such file")]),
        Message.user("thanks"),
    ]
    out = render_plain_history(history, "hermes", TOOLS)
    assert [m.role for m in out] == [Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER]
    assert out[0].text.startswith("Be brief.") and "<tools>" in out[0].text
    assert out[2].tool_calls == [] and "<tool_call>" in out[2].text and out[2].text.startswith("Reading.")
    assert "hello" in out[3].text and "ERROR" in out[3].text and out[3].text.endswith("thanks")
    assert history[2].tool_calls == [call]  # the internal history is untouched


def test_plain_history_adds_a_system_message():
    out = render_plain_history([Message.user("hi")], "xml", TOOLS)
    assert out[0].role is Role.SYSTEM and "read_file" in out[0].text


def _many():
    return [Tool(f"tool_{i}", f"This is tool number {i} with a moderately long description. " * 5, {"type": "object", "properties": {"arg": {"type": "string", "description": "An argument " * 5}}}) for i in range(50)]


def test_optimize_keeps_everything_when_it_fits():
    tools = _many()
    assert optimize_tool_definitions(tools, 10**6, "anything") == tools


def test_optimize_shortens_before_dropping():
    tools = _many()
    full = sum(estimate_tokens(t) for t in tools)
    out = optimize_tool_definitions(tools, int(full * 0.6), "")
    assert len(out) == 50 and sum(estimate_tokens(t) for t in out) <= full * 0.6


def test_optimize_drops_least_relevant_and_fits():
    tools = _many() + [Tool("write_file", "Write content to a file.", {"type": "object", "properties": {}})]
    out = optimize_tool_definitions(tools, 400, "write a python file")
    assert out[0].name == "write_file"
    assert sum(estimate_tokens(t) for t in out) <= 400 and len(out) < len(tools)
