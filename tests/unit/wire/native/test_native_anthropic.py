"""Anthropic Messages adapter: tools, tool_choice, thinking round trip, parse_body, streaming."""

from __future__ import annotations

import pytest
from native_data import READ, WEATHER, history, load, plan, settings

from agentcli.core.events import StreamKind
from agentcli.core.types import Message, Role, ToolCall, ToolResult, Usage
from agentcli.wire import native
from agentcli.wire.types import NativeParse

API = native.get("anthropic")
FX = load("anthropic")


def test_tools_use_input_schema():
    assert API.render_tools([READ]) == [{"name": "read_file", "description": "Read a file.", "input_schema": {
        "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}]


@pytest.mark.parametrize(("choice", "parallel", "expected"), [
    ("auto", True, None),
    ("auto", False, {"type": "auto", "disable_parallel_tool_use": True}),
    ("required", True, {"type": "any"}),
    ("read_file", True, {"type": "tool", "name": "read_file"}),
    ("read_file", False, {"type": "tool", "name": "read_file", "disable_parallel_tool_use": True}),
])
def test_tool_choice_mapping(choice, parallel, expected):
    body = API.build_body([Message.user("hi")], [WEATHER, READ],
                          plan("anthropic", tool_choice=choice, parallel=parallel), settings())
    assert body.get("tool_choice") == expected
    assert len(body["tools"]) == 2


def test_tool_choice_none_sends_no_tools():
    body = API.build_body([Message.user("hi")], [WEATHER], plan("anthropic", tool_choice="none"), settings())
    assert "tools" not in body and "tool_choice" not in body


def test_tool_choice_none_with_tool_history_keeps_definitions():
    # the API refuses tool_use blocks in history without tool definitions
    body = API.build_body(history(), [WEATHER, READ], plan("anthropic", tool_choice="none"), settings())
    assert body["tool_choice"] == {"type": "none"} and len(body["tools"]) == 2


def test_max_tokens_always_sent():
    body = API.build_body([Message.user("hi")], [], plan("anthropic"), settings())
    assert body["max_tokens"] == 4096
    assert "system" not in body


def test_consecutive_user_messages_merge_and_empty_assistant_dropped():
    msgs = [Message.user("a"), Message(Role.ASSISTANT, ""), Message.user("b")]
    body = API.build_body(msgs, [], plan("anthropic"), settings())
    assert body["messages"] == [{"role": "user", "content": [{"type": "text", "text": "a"},
                                                              {"type": "text", "text": "b"}]}]


def test_unsafe_call_ids_are_sanitised_consistently():
    msgs = [
        Message.user("go"),
        Message(Role.ASSISTANT, tool_calls=[ToolCall("read_file", {"path": "x"}, id="functions.read_file:0")]),
        Message.results([ToolResult("functions.read_file:0", "read_file", True, "data")]),
    ]
    body = API.build_body(msgs, [READ], plan("anthropic"), settings())
    use_id = body["messages"][1]["content"][0]["id"]
    result_id = body["messages"][2]["content"][0]["tool_use_id"]
    assert use_id == result_id and ":" not in use_id and "." not in use_id


def test_parse_text():
    p = API.parse_body(FX["text"])
    assert (p.text, p.finish_reason, p.usage) == ("Hi! My name is Claude.", "stop", Usage(2095, 503))


def test_parse_single_call():
    p = API.parse_body(FX["single_call"])
    [c] = p.candidates
    assert (c.name, c.id, c.dialect, c.arguments) == (
        "get_weather", "toolu_01A09q90qw90lq917835lq9", "native_anthropic",
        {"location": "San Francisco, CA", "unit": "celsius"})
    assert p.text == "I'll check the current weather in San Francisco for you."
    assert p.finish_reason == "tool_calls"


def test_parse_parallel_and_cache_usage():
    p = API.parse_body(FX["parallel"])
    assert [c.id for c in p.candidates] == ["toolu_01", "toolu_02", "toolu_03"]
    assert p.usage == Usage(620, 160)


def test_thinking_signature_round_trips():
    p = API.parse_body(FX["thinking_call"])
    assert p.thinking.startswith("The user wants to know the current weather in Paris")
    blocks = p.provider_data["anthropic"]["thinking"]
    assert [b["type"] for b in blocks] == ["thinking", "redacted_thinking"]
    assert blocks[0]["signature"].startswith("BDaL4Vrb")
    # the assistant turn, re-rendered, sends both blocks back first, verbatim
    msg = Message(Role.ASSISTANT, p.text, p.thinking, [ToolCall("get_weather", {"location": "Paris"},
                                                               id="toolu_01CswdEQBMshySk6Y9DFKrfq")],
                  provider_data=p.provider_data)
    body = API.build_body([Message.user("weather?"), msg], [WEATHER], plan("anthropic"), settings())
    content = body["messages"][1]["content"]
    assert content[:2] == FX["thinking_call"]["content"][:2]
    assert content[2]["type"] == "tool_use"


def test_thinking_without_signature_is_not_sent():
    msg = Message(Role.ASSISTANT, "ok", thinking="from another provider")
    body = API.build_body([Message.user("q"), msg], [], plan("anthropic"), settings())
    assert body["messages"][1]["content"] == [{"type": "text", "text": "ok"}]


def test_max_tokens_and_error():
    assert API.parse_body(FX["max_tokens"]).finish_reason == "length"
    assert API.parse_body(FX["error"]).finish_reason == "error"


@pytest.mark.parametrize("body", [{}, {"content": None}, {"content": [None, {"type": "tool_use"}, 5]}, [], None])
def test_odd_bodies_never_raise(body):
    assert isinstance(API.parse_body(body), NativeParse)  # type: ignore[arg-type]


def test_malformed_input_string_passes_through():
    body = {"content": [{"type": "tool_use", "id": "t", "name": "f", "input": '{"a": 1,'}], "stop_reason": "tool_use"}
    [c] = API.parse_body(body).candidates
    assert c.arguments == '{"a": 1,'


def test_stream_events_and_equivalence():
    s = API.new_stream()
    events = [e for ev in FX["stream_thinking_call"] for e in s.feed(ev)]
    kinds = [e.kind for e in events]
    assert kinds[:2] == [StreamKind.THINKING, StreamKind.THINKING]
    assert "".join(e.text for e in events if e.kind is StreamKind.TEXT) == (
        "Okay, let's check the weather for San Francisco, CA:")
    [start] = [e for e in events if e.kind is StreamKind.TOOL_START]
    assert (start.index, start.call_id, start.name) == (0, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather")
    args = [e.arguments for e in events if e.kind is StreamKind.TOOL_ARGS]
    assert args[0] == {} and {"location": "San"} in args
    assert args[-1] == {"location": "San Francisco, CA", "unit": "fahrenheit"}
    assert s.complete
    assert s.finish() == API.parse_body(FX["stream_thinking_call_body"])


def test_stream_truncated_tool_input_kept_as_text():
    s = API.new_stream()
    s.feed({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "f", "input": {}}})
    s.feed({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"a": "b'}})
    p = s.finish()
    assert p.candidates[0].arguments == '{"a": "b' and not s.complete


def test_stream_no_arg_tool_gets_empty_object():
    s = API.new_stream()
    s.feed({"type": "content_block_start", "index": 0,
            "content_block": {"type": "tool_use", "id": "t1", "name": "list_dir", "input": {}}})
    s.feed({"type": "content_block_stop", "index": 0})
    assert s.finish().candidates[0].arguments == {}
