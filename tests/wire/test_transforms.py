"""Opt-in provider quirk transforms and [request] overrides."""

from __future__ import annotations

import json

import pytest

from agentcli.core.errors import ConfigError
from agentcli.providers.transforms import TRANSFORMS, apply_overrides, pipeline


def body_with(msg: dict, finish: str = "stop") -> dict:
    return {"choices": [{"index": 0, "message": msg, "finish_reason": finish}]}


def msg_of(body: dict) -> dict:
    return body["choices"][0]["message"]


def test_function_call_to_tool_calls():
    body = body_with({"role": "assistant", "content": None,
                      "function_call": {"name": "read_file", "arguments": '{"path":"a.py"}'}}, "function_call")
    out = pipeline(["function_call_to_tool_calls"]).on_response(body)
    calls = msg_of(out)["tool_calls"]
    assert calls[0]["function"] == {"name": "read_file", "arguments": '{"path":"a.py"}'}
    assert calls[0]["id"].startswith("call_") and "function_call" not in msg_of(out)
    assert out["choices"][0]["finish_reason"] == "tool_calls"


def test_function_call_delta_in_a_stream_chunk():
    chunk = {"choices": [{"index": 0, "delta": {"function_call": {"name": "ls", "arguments": ""}}}]}
    out = pipeline(["function_call_to_tool_calls"]).on_chunk(chunk)
    call = out["choices"][0]["delta"]["tool_calls"][0]
    assert call["index"] == 0 and call["function"]["name"] == "ls" and call["id"].startswith("call_")
    more = pipeline(["function_call_to_tool_calls"]).on_chunk({"choices": [{"delta": {"function_call": {"arguments": "{}"}}}]})
    assert "id" not in more["choices"][0]["delta"]["tool_calls"][0]


def test_tool_calls_object_to_array():
    one = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    out = pipeline(["tool_calls_object_to_array"]).on_response(body_with({"tool_calls": one}))
    assert msg_of(out)["tool_calls"] == [one]
    keyed = pipeline(["tool_calls_object_to_array"]).on_response(body_with({"tool_calls": {"0": one, "1": one}}))
    assert msg_of(keyed)["tool_calls"] == [one, one]


def test_arguments_object_to_string_and_back():
    out = pipeline(["arguments_object_to_string"]).on_response(
        body_with({"tool_calls": [{"id": "c", "function": {"name": "ls", "arguments": {"path": "."}}}]}))
    assert json.loads(msg_of(out)["tool_calls"][0]["function"]["arguments"]) == {"path": "."}
    req = {"messages": [{"role": "assistant", "tool_calls": [{"id": "c", "function": {"name": "ls", "arguments": '{"path": "."}'}}]}]}
    back = pipeline(["arguments_string_to_object"]).on_request(req)
    assert back["messages"][0]["tool_calls"][0]["function"]["arguments"] == {"path": "."}


def test_blank_arguments_on_bodies_but_not_on_chunks():
    p = pipeline(["blank_arguments_to_empty_object"])
    out = p.on_response(body_with({"tool_calls": [{"id": "c", "function": {"name": "ls", "arguments": "  "}}]}))
    assert msg_of(out)["tool_calls"][0]["function"]["arguments"] == "{}"
    chunk = {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "ls", "arguments": ""}}]}}]}
    assert p.on_chunk(chunk)["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] == ""


def test_request_shims_for_strict_servers():
    req = {"messages": [
        {"role": "user", "content": ""},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "c", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "assistant", "content": "plain"},
    ]}
    out = pipeline(["null_content_when_blank", "deepseek_reasoning_content"]).on_request(req)
    assert out["messages"][0] == {"role": "user", "content": ""}
    assert out["messages"][1]["content"] is None and out["messages"][1]["reasoning_content"] == ""
    assert "reasoning_content" not in out["messages"][2]


def test_content_tag_fallback():
    text = 'Let me look.\n<tool_call>{"name": "read_file", "arguments": {"path": "a.py"}}</tool_call>\n<tool_call>{bad</tool_call>'
    out = pipeline(["content_tag_fallback"]).on_response(body_with({"role": "assistant", "content": text}))
    msg = msg_of(out)
    assert [c["function"]["name"] for c in msg["tool_calls"]] == ["read_file"]
    assert json.loads(msg["tool_calls"][0]["function"]["arguments"]) == {"path": "a.py"}
    assert msg["content"].startswith("Let me look.") and "read_file" not in msg["content"]
    assert "<tool_call>{bad</tool_call>" in msg["content"]  # unparseable tags stay as text
    assert out["choices"][0]["finish_reason"] == "tool_calls"


def test_stages_and_order():
    p = pipeline(["deepseek_reasoning_content", "function_call_to_tool_calls"])
    assert [t.stage for t in p.request] == ["request"] and [t.stage for t in p.response] == ["response"]
    assert set(TRANSFORMS) >= {"function_call_to_tool_calls", "tool_calls_object_to_array", "arguments_object_to_string",
                               "arguments_string_to_object", "blank_arguments_to_empty_object", "null_content_when_blank",
                               "deepseek_reasoning_content", "content_tag_fallback"}


def test_unknown_transform_is_a_profile_error():
    with pytest.raises(ConfigError) as info:
        pipeline(["deepseek_reasoning_contnet"])
    assert "transforms" in info.value.message and "deepseek_reasoning_content" in (info.value.hint or "")


def test_overrides_merge_and_reserved_keys_are_refused():
    body = {"model": "m", "messages": [], "provider": {"order": ["a"]}}
    out = apply_overrides(body, {"temperature": 0.2, "provider": {"allow_fallbacks": False}, "transforms": ["middle-out"]})
    assert out["temperature"] == 0.2 and out["provider"] == {"order": ["a"], "allow_fallbacks": False}
    for key in ("model", "messages", "tools"):
        with pytest.raises(ConfigError) as info:
            apply_overrides({"model": "m"}, {key: "x"})
        assert f"request.{key}" in info.value.message
