"""Gemini adapter: declarations (schema subset), function_calling_config, signatures, parse, stream."""

from __future__ import annotations

import pytest
from native_data import NOARGS, READ, WEATHER, load, plan, settings

from agentcli.core.events import StreamKind
from agentcli.core.types import Message, Role, Tool, ToolCall, Usage
from agentcli.wire import native
from agentcli.wire.types import NativeParse

API = native.get("gemini")
FX = load("gemini")


def test_declarations_strip_rejected_keywords():
    tool = Tool("edit", "Edit.", {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "path": {"type": "string", "default": "a.txt", "format": "uri"},
            "mode": {"type": ["string", "null"], "enum": ["a", "b"]},
            "level": {"type": "integer", "enum": [1, 2, 3], "description": "How hard."},
            "opts": {"$ref": "#/$defs/Opts"},
        },
        "required": ["path"],
        "$defs": {"Opts": {"type": "object", "properties": {"dry": {"type": "boolean"}},
                           "additionalProperties": False}},
    })
    [decl] = API.render_tools([tool])[0]["functionDeclarations"]
    assert decl["parameters"] == {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "mode": {"type": "string", "nullable": True, "enum": ["a", "b"]},
            "level": {"type": "integer", "description": "How hard. Allowed values: 1, 2, 3."},
            "opts": {"type": "object", "properties": {"dry": {"type": "boolean"}}},
        },
        "required": ["path"],
    }


def test_no_arg_tool_has_no_parameters():
    [decl] = API.render_tools([NOARGS])[0]["functionDeclarations"]
    assert decl == {"name": "list_dir", "description": "List the workspace."}


@pytest.mark.parametrize(("choice", "expected"), [
    ("auto", None),
    ("none", {"functionCallingConfig": {"mode": "NONE"}}),
    ("required", {"functionCallingConfig": {"mode": "ANY"}}),
    ("read_file", {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": ["read_file"]}}),
])
def test_function_calling_config(choice, expected):
    body = API.build_body([Message.user("hi")], [WEATHER, READ], plan("gemini", tool_choice=choice), settings())
    assert body.get("toolConfig") == expected
    assert "model" not in body  # the model is part of the URL


def test_parse_text_and_single_call():
    p = API.parse_body(FX["text"])
    assert (p.text, p.finish_reason, p.usage) == ("AI learns patterns from data to make predictions.", "stop",
                                                  Usage(8, 10))
    p = API.parse_body(FX["single_call"])
    [c] = p.candidates
    assert (c.name, c.dialect, c.id) == ("schedule_meeting", "native_gemini", None)
    assert c.arguments["attendees"] == ["Bob", "Alice"]
    assert p.finish_reason == "tool_calls"


def test_parallel_signatures_round_trip():
    p = API.parse_body(FX["parallel_signed"])
    assert [c.arguments for c in p.candidates] == [{"location": "Paris"}, {"location": "London"}]
    assert p.provider_data["gemini"]["call_signatures"] == ["CiQBcsjafHjVRRfJ4Gm8FIPqxsWkG7q5wzzFSEoA5j3sMmQ4GhQKIgFyyNp8",
                                                            None]
    assert p.usage == Usage(90, 154)
    calls = [ToolCall(c.name, c.arguments, id=f"c{i}", dialect="native_gemini") for i, c in enumerate(p.candidates)]
    msg = Message(Role.ASSISTANT, tool_calls=calls, provider_data=p.provider_data)
    body = API.build_body([Message.user("temps"), msg], [], plan("gemini"), settings())
    assert body["contents"][1] == FX["parallel_signed"]["candidates"][0]["content"]


def test_thought_parts_and_text_signature():
    p = API.parse_body(FX["thought_and_text"])
    assert p.thinking.startswith("**Weighing the options**")
    assert p.text == "Python is easier to start with; Rust gives more control."
    assert p.provider_data["gemini"] == {"text_signature": "Ct4BAXLI2nwS1ZyY"}
    msg = Message(Role.ASSISTANT, p.text, provider_data=p.provider_data)
    body = API.build_body([Message.user("q"), msg], [], plan("gemini"), settings())
    assert body["contents"][1]["parts"] == [{"text": p.text, "thoughtSignature": "Ct4BAXLI2nwS1ZyY"}]


def test_malformed_and_blocked():
    p = API.parse_body(FX["malformed_call"])
    assert p.finish_reason == "error"
    assert "get_weather" in p.provider_data["gemini"]["finish_message"]
    assert API.parse_body(FX["blocked"]).finish_reason == "content_filter"


@pytest.mark.parametrize("body", [{}, {"candidates": [None]}, {"candidates": [{"content": {"parts": [None, 3]}}]},
                                  {"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}, None])
def test_odd_bodies_never_raise(body):
    assert isinstance(API.parse_body(body), NativeParse)  # type: ignore[arg-type]


def test_stream_events_and_equivalence():
    s = API.new_stream()
    events = [e for ch in FX["stream_call"] for e in s.feed(ch)]
    assert [e.kind for e in events] == [
        StreamKind.THINKING, StreamKind.TEXT, StreamKind.TEXT,
        StreamKind.TOOL_START, StreamKind.TOOL_ARGS, StreamKind.TOOL_START, StreamKind.TOOL_ARGS]
    assert [e.index for e in events if e.kind is StreamKind.TOOL_START] == [0, 1]
    assert s.complete
    full = {"candidates": [{"content": {"role": "model", "parts": [
        {"text": "Let me check", "thought": True},
        {"text": "I'll look up both cities."},
        {"functionCall": {"name": "get_current_temperature", "args": {"location": "Paris"}},
         "thoughtSignature": "CiQBcsjafHjVRRfJ"},
        {"functionCall": {"name": "get_current_temperature", "args": {"location": "London"}}},
    ]}, "finishReason": "STOP"}],
        "usageMetadata": {"promptTokenCount": 70, "candidatesTokenCount": 25, "thoughtsTokenCount": 40}}
    assert s.finish() == API.parse_body(full)
