"""Ollama /api/chat adapter: tools, no tool_choice, object arguments, thinking, NDJSON stream."""

from __future__ import annotations

import pytest
from native_data import READ, WEATHER, load, plan, settings

from agentcli.core.events import StreamKind
from agentcli.core.types import Message, Tool, Usage
from agentcli.wire import native
from agentcli.wire.types import NativeParse

API = native.get("ollama")
FX = load("ollama")


def test_descriptions_clipped_and_never_strict():
    long = Tool("t", "x " * 600, {"type": "object", "properties": {"a": {"type": "string"}}})
    [fn] = API.render_tools([long], strict=True)
    assert len(fn["function"]["description"]) <= 500 and "strict" not in fn["function"]


def test_stream_flag_always_explicit_and_none_drops_tools():
    body = API.build_body([Message.user("hi")], [WEATHER], plan("ollama", tool_choice="none"), settings())
    assert body["stream"] is False and "tools" not in body
    body = API.build_body([Message.user("hi")], [WEATHER, READ], plan("ollama"), settings(stream=True))
    assert body["stream"] is True and len(body["tools"]) == 2 and "tool_choice" not in body


def test_parse_text_and_call():
    p = API.parse_body(FX["text"])
    assert (p.text, p.finish_reason, p.usage) == ("The sky is blue because of Rayleigh scattering.", "stop",
                                                  Usage(26, 282))
    p = API.parse_body(FX["single_call"])
    [c] = p.candidates
    assert (c.name, c.arguments, c.dialect) == ("get_current_weather", {"format": "celsius", "location": "Toronto"},
                                                "native_ollama")
    assert p.finish_reason == "tool_calls"


def test_parse_parallel_with_ids_and_thinking():
    p = API.parse_body(FX["parallel_with_ids"])
    assert [(c.id, c.arguments) for c in p.candidates] == [("call_8kq2w1x3", {"city": "New York"}),
                                                          ("call_p0z9a7b2", {"city": "London"})]
    assert p.thinking == "The user asked for two cities, so two calls."
    assert API.parse_body(FX["thinking"]).thinking.startswith("Let me count")


def test_string_arguments_pass_through():
    body = {"message": {"tool_calls": [{"function": {"name": "f", "arguments": "{\"a\": 1"}}]}, "done": True}
    assert API.parse_body(body).candidates[0].arguments == '{"a": 1'


@pytest.mark.parametrize("body", [{}, {"message": None}, {"message": {"tool_calls": [None, {}]}}, None, []])
def test_odd_bodies_never_raise(body):
    assert isinstance(API.parse_body(body), NativeParse)  # type: ignore[arg-type]


def test_stream_events_and_equivalence():
    s = API.new_stream()
    events = [e for ch in FX["stream_tool"] for e in s.feed(ch)]
    assert [e.kind for e in events] == [StreamKind.THINKING, StreamKind.THINKING, StreamKind.TEXT, StreamKind.TEXT,
                                        StreamKind.TOOL_START, StreamKind.TOOL_ARGS]
    assert events[-1].arguments == {"format": "celsius", "location": "Toronto"}
    assert s.complete
    full = {"model": "qwen3", "message": {"role": "assistant", "content": "Checking now.", "thinking": "Need the weather.",
                                          "tool_calls": [{"function": {"name": "get_current_weather", "arguments": {
                                              "format": "celsius", "location": "Toronto"}}}]},
            "done_reason": "stop", "done": True, "prompt_eval_count": 213, "eval_count": 30}
    assert s.finish() == API.parse_body(full)


def test_stream_error_line():
    s = API.new_stream()
    s.feed({"error": "model 'x' not found"})
    assert s.complete and s.finish().finish_reason == "error"
