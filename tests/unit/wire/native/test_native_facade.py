"""The wire facade: request building (native and emulated), overrides, parse with name mapping."""

from __future__ import annotations

import subprocess
import sys

import pytest
from native_data import READ, WEATHER, history, load, settings

from agentcli.core.types import Message, Role, Tool, ToolResult
from agentcli.wire import build_request, parse_response, parse_text
from agentcli.wire.dialects import DIALECTS
from agentcli.wire.types import ParseContext, WirePlan

ALL = tuple(DIALECTS)


@pytest.mark.parametrize("key", ["model", "messages", "tools", "contents", "system", "input"])
def test_reserved_override_keys_are_refused(key):
    with pytest.raises(ValueError, match=repr(key)):
        build_request(WirePlan(api="openai"), [Message.user("hi")], [], settings(overrides={key: "x"}))


def test_overrides_merge_into_nested_tables():
    body = build_request(WirePlan(api="gemini"), [Message.user("hi")], [],
                         settings(temperature=0.1, overrides={"generationConfig": {"topK": 40}, "safetySettings": []}))
    assert body["generationConfig"] == {"temperature": 0.1, "topK": 40}
    assert body["safetySettings"] == []


@pytest.mark.parametrize("api", ["openai", "anthropic", "ollama", "gemini"])
def test_emulated_request_has_plain_history_and_no_tools(api):
    plan = WirePlan(api=api, native_tools=False, dialect="hermes", parsers=ALL, result="hermes")
    body = build_request(plan, history(), [WEATHER, READ], settings())
    assert "tools" not in body and "tool_choice" not in body and "toolConfig" not in body
    text = repr(body)
    assert "get_weather" in text  # the tool prompt
    assert "tool_call" in text  # the past call rendered as hermes text
    assert "tool_use" not in text and "functionCall" not in text and "'role': 'tool'" not in text


def test_parse_response_maps_namespaced_names_back():
    tool = Tool("search", "Search issues.", {"type": "object", "properties": {"q": {"type": "string"}}},
                namespace="github")
    body = {"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "github_search", "arguments": '{"q": "bug"}'}}]}, "finish_reason": "tool_calls"}]}
    parsed = parse_response(WirePlan(api="openai", parsers=ALL), body, ParseContext.of([tool]))
    [call] = parsed.tool_calls
    assert (call.name, call.arguments, call.unknown) == ("search", {"q": "bug"}, False)


def test_strict_nulls_for_optional_properties_are_dropped():
    body = {"choices": [{"message": {"tool_calls": [{"id": "c1", "type": "function", "function": {
        "name": "get_weather", "arguments": '{"location": "Oslo", "unit": null}'}}]}, "finish_reason": "tool_calls"}]}
    parsed = parse_response(WirePlan(api="openai", strict=True, parsers=ALL), body, ParseContext.of([WEATHER]))
    assert parsed.tool_calls[0].arguments == {"location": "Oslo"}


def test_malformed_native_arguments_reach_the_repair_layer():
    parsed = parse_response(WirePlan(api="openai", parsers=ALL), load("openai")["malformed_arguments"],
                            ParseContext.of([Tool("write_file", "Write.", {"type": "object", "properties": {
                                "path": {"type": "string"}, "content": {"type": "string"}}})]))
    [call] = parsed.tool_calls
    assert call.arguments == {"path": "a.txt", "content": "line1\nline2"}
    assert parsed.repairs


def test_conversation_moves_between_families():
    """Anthropic turn (with signed thinking) -> results -> requests for every other API."""
    ctx = ParseContext.of([WEATHER])
    parsed = parse_response(WirePlan(api="anthropic", parsers=ALL), load("anthropic")["thinking_call"], ctx)
    msgs = [Message.system("Be brief."), Message.user("Weather in Paris?"), Message.assistant(parsed),
            Message.results([ToolResult(parsed.tool_calls[0].id, "get_weather", True, "21C")])]
    oa = build_request(WirePlan(api="openai"), msgs, [WEATHER], settings())
    assert oa["messages"][2]["tool_calls"][0]["function"] == {"name": "get_weather", "arguments": '{"location":"Paris"}'}
    assert oa["messages"][3] == {"role": "tool", "tool_call_id": "toolu_01CswdEQBMshySk6Y9DFKrfq", "content": "21C"}
    gm = build_request(WirePlan(api="gemini"), msgs, [WEATHER], settings())
    assert gm["contents"][1]["parts"][0]["functionCall"] == {"name": "get_weather", "args": {"location": "Paris"}}
    assert gm["contents"][2]["parts"][0]["functionResponse"]["response"] == {"result": "21C"}
    ol = build_request(WirePlan(api="ollama"), msgs, [WEATHER], settings())
    assert ol["messages"][3] == {"role": "tool", "content": "21C", "tool_name": "get_weather"}
    an = build_request(WirePlan(api="anthropic"), msgs, [WEATHER], settings())
    assert [b["type"] for b in an["messages"][1]["content"]] == ["thinking", "redacted_thinking", "tool_use"]


def test_parse_text_reexport():
    parsed = parse_text('<tool_call>{"name": "get_weather", "arguments": {"location": "Rome"}}</tool_call>',
                        ParseContext.of([WEATHER]))
    assert parsed.tool_calls[0].arguments == {"location": "Rome"}


def test_assistant_role_order_is_preserved_for_unknown_roles():
    class Odd:
        role = "narrator"

    with pytest.raises(ValueError):
        build_request(WirePlan(api="openai"), [Message(Role.USER, "x"), Odd()], [], settings())  # type: ignore[list-item]


def test_import_is_cheap():
    code = ("import sys, agentcli.wire; "
            "print(sorted(m for m in sys.modules if m.startswith(('agentcli.wire.', 'httpx', 'pydantic', 'json_repair'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"
