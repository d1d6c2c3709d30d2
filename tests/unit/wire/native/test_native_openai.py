"""OpenAI Chat Completions adapter: tools, tool_choice, parse_body, streaming."""

from __future__ import annotations

import copy

import pytest
from native_data import NOARGS, READ, WEATHER, load, plan, settings

from agentcli.core.events import StreamKind
from agentcli.core.types import Message, Tool, Usage
from agentcli.wire import native

API = native.get("openai")
FX = load("openai")


def test_strict_tools_transform_optional_to_nullable():
    [fn] = API.render_tools([WEATHER], strict=True)
    assert fn == {"type": "function", "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {
                "location": {"type": "string", "description": "City name"},
                "unit": {"type": ["string", "null"], "enum": ["celsius", "fahrenheit", None]},
            },
            "required": ["location", "unit"],
            "additionalProperties": False,
        },
        "strict": True,
    }}


def test_strict_off_for_schema_that_cannot_be_strict():
    free = Tool("set_env", "Set variables.", {"type": "object", "properties": {
        "vars": {"type": "object", "additionalProperties": {"type": "string"}}}})
    [fn] = API.render_tools([free], strict=True)
    assert "strict" not in fn["function"]
    assert fn["function"]["parameters"] == free.parameters


def test_no_args_tool_is_strict_with_empty_object():
    [fn] = API.render_tools([NOARGS], strict=True)
    assert fn["function"]["strict"] is True
    assert fn["function"]["parameters"] == {"type": "object", "properties": {}, "required": [],
                                            "additionalProperties": False}


def test_long_description_clipped_to_api_limit():
    long = Tool("t", "word " * 400, {"type": "object", "properties": {}})
    [fn] = API.render_tools([long])
    assert len(fn["function"]["description"]) <= 1024
    assert fn["function"]["description"].endswith("…")


@pytest.mark.parametrize(("choice", "expected"), [
    ("auto", "auto"),
    ("none", "none"),
    ("required", "required"),
    ("read_file", {"type": "function", "function": {"name": "read_file"}}),
    ("not_offered", "auto"),  # a tool hidden at this tier: fall back to auto
])
def test_tool_choice_mapping(choice, expected):
    body = API.build_body([Message.user("hi")], [WEATHER, READ], plan("openai", tool_choice=choice), settings())
    assert body.get("tool_choice") == expected


def test_parallel_off_and_stream_options():
    body = API.build_body([Message.user("hi")], [WEATHER], plan("openai", parallel=False), settings(stream=True))
    assert body["parallel_tool_calls"] is False
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}


def test_emulated_plan_sends_no_tools():
    body = API.build_body([Message.user("hi")], [WEATHER], plan("openai", native_tools=False, dialect="hermes"),
                          settings())
    assert "tools" not in body and "tool_choice" not in body


def test_unsafe_tool_names_are_sanitised_both_ways():
    odd = Tool("fs.read", "Read.", {"type": "object", "properties": {}}, namespace="mcp")
    [fn] = API.render_tools([odd])
    assert fn["function"]["name"] == "mcp_fs_read"


def test_parse_text_only():
    p = API.parse_body(FX["text"])
    assert (p.text, p.candidates, p.finish_reason) == ("Hello! How can I assist you today?", [], "stop")
    assert p.usage == Usage(19, 10)


def test_parse_single_call_keeps_arguments_string():
    p = API.parse_body(FX["single_call"])
    [c] = p.candidates
    assert (c.name, c.id, c.dialect) == ("get_current_weather", "call_abc123", "native_openai")
    assert c.arguments == '{\n"location": "Boston, MA"\n}'
    assert p.finish_reason == "tool_calls" and p.text == ""


def test_parse_parallel_calls_in_order():
    p = API.parse_body(FX["parallel"])
    assert [(c.name, c.id) for c in p.candidates] == [
        ("get_weather", "call_12345xyz"), ("get_weather", "call_67890abc"), ("send_email", "call_99999def")]
    assert p.candidates[1].arguments == '{"location":"Bogotá, Colombia"}'


def test_parse_reasoning_content_is_thinking():
    p = API.parse_body(FX["reasoning_content"])
    assert p.thinking == "Compare the tenths: 1 < 8, so 9.11 < 9.8."
    assert p.text == "9.11 is smaller than 9.8."
    p = API.parse_body(FX["vllm_reasoning_call"])
    assert p.thinking.startswith("The user wants the weather in Berlin")
    assert p.candidates[0].arguments == '{"city": "Berlin", "unit": "celsius"}'


def test_malformed_arguments_stay_a_string_for_repair():
    [c] = API.parse_body(FX["malformed_arguments"]).candidates
    assert isinstance(c.arguments, str) and c.arguments.endswith(',}')


def test_legacy_function_call():
    p = API.parse_body(FX["legacy_function_call"])
    [c] = p.candidates
    assert c.name == "get_current_weather" and c.id is None
    assert p.finish_reason == "tool_calls"


def test_length_finish():
    assert API.parse_body(FX["length"]).finish_reason == "length"


@pytest.mark.parametrize("body", [
    {}, {"choices": []}, {"choices": [None]}, {"choices": [{"message": None}]}, {"error": {"message": "x"}},
    {"choices": [{"message": {"tool_calls": [None, {"function": None}, {"function": {"name": 3}}]}}]},
    {"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]},
    [], "text", None,
])
def test_odd_bodies_never_raise(body):
    p = API.parse_body(body)  # type: ignore[arg-type]
    assert p.candidates == []


def test_stream_parallel_events_and_equivalence():
    chunks = FX["stream_parallel"]
    s = API.new_stream()
    events = [e for ch in chunks for e in s.feed(copy.deepcopy(ch))]
    starts = [e for e in events if e.kind is StreamKind.TOOL_START]
    assert [(e.index, e.call_id, e.name) for e in starts] == [
        (0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather"), (1, "call_ABcd1234", "get_weather")]
    args0 = [e.arguments for e in events if e.kind is StreamKind.TOOL_ARGS and e.index == 0]
    assert args0 == [{}, {"location": "Pa"}, {"location": "Paris, France"}]
    assert s.complete
    full = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_DdmO9pD3xa9XTPNJ32zg2hcA", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"location": "Paris, France"}'}},
        {"id": "call_ABcd1234", "type": "function",
         "function": {"name": "get_weather", "arguments": '{"location": "Bogotá, Colombia"}'}},
    ]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 85, "completion_tokens": 40}}
    assert s.finish() == API.parse_body(full)


def test_stream_reasoning_then_text():
    s = API.new_stream()
    events = [e for ch in FX["stream_reasoning_text"] for e in s.feed(ch)]
    assert "".join(e.text for e in events if e.kind is StreamKind.THINKING) == "Compare the tenths: 1 < 8."
    assert "".join(e.text for e in events if e.kind is StreamKind.TEXT) == "9.11 is smaller."
    p = s.finish()
    assert (p.text, p.thinking, p.usage) == ("9.11 is smaller.", "Compare the tenths: 1 < 8.", Usage(17, 20))


def test_stream_without_index_uses_ids():
    s = API.new_stream()
    s.feed({"choices": [{"delta": {"tool_calls": [{"id": "a", "function": {"name": "f", "arguments": "{}"}}]}}]})
    s.feed({"choices": [{"delta": {"tool_calls": [{"id": "b", "function": {"name": "g", "arguments": "{\"x\":"}}]}}]})
    s.feed({"choices": [{"delta": {"tool_calls": [{"function": {"arguments": "1}"}}]}}], "finish_reason": None})
    p = s.finish()
    assert [(c.id, c.name, c.arguments) for c in p.candidates] == [("a", "f", "{}"), ("b", "g", '{"x":1}')]


def _chunk(index: int, **delta: object) -> dict:
    return {"object": "chat.completion.chunk", "choices": [{"index": index, "delta": delta, "finish_reason": None}]}


def test_stream_with_several_choices_reads_only_the_first_like_a_body():
    stream = API.new_stream()
    for i, word in enumerate(["red", "green", "blue"]):
        stream.feed(_chunk(i, role="assistant", content=word))
    for i in range(3):
        stream.feed(_chunk(i, content="!"))
    done = stream.finish()
    body = {"choices": [{"index": i, "message": {"role": "assistant", "content": w + "!"}}
                        for i, w in enumerate(["red", "green", "blue"])]}
    assert done.text == "red!" == API.parse_body(body).text


def test_streamed_refusal_is_the_text_as_in_a_body():
    stream = API.new_stream()
    events = [e for part in ("I'm sorry, ", "I can't help with that.")
              for e in stream.feed(_chunk(0, content=None, refusal=part))]
    done = stream.finish()
    body = {"choices": [{"index": 0, "message": {"role": "assistant", "content": None,
                                                  "refusal": "I'm sorry, I can't help with that."}}]}
    assert done.text == API.parse_body(body).text == "I'm sorry, I can't help with that."
    assert "".join(e.text for e in events if e.kind is StreamKind.TEXT) == done.text
