"""The streaming assembler: events while streaming, and the same ParsedResponse as a whole body."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core.events import StreamKind
from agentcli.core.types import Tool
from agentcli.wire import new_stream, parse_response
from agentcli.wire.dialects import DIALECTS
from agentcli.wire.types import ParseContext, WirePlan

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "native"
WEATHER = Tool("get_weather", "Weather.", {"type": "object", "properties": {
    "location": {"type": "string"}, "unit": {"type": "string"}}, "required": ["location"]})
CTX = ParseContext.of([WEATHER])
ALL = tuple(DIALECTS)


def load(api: str) -> dict:
    return json.loads((FIXTURES / f"{api}.json").read_text(encoding="utf-8"))


def run(plan: WirePlan, chunks: list[dict], ctx: ParseContext = CTX):
    asm = new_stream(plan, ctx)
    events = [e for ch in chunks for e in asm.feed(copy.deepcopy(ch))]
    tail, parsed = asm.finish()
    return events + tail, parsed


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c for c in cuts if 0 < c < len(text)})
    return [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]


def openai_chunks(content_parts: list[str], calls: list[tuple[str, str, list[str]]]) -> list[dict]:
    chunks = [{"choices": [{"index": 0, "delta": {"role": "assistant", "content": p}, "finish_reason": None}]}
              for p in content_parts]
    for i, (call_id, name, parts) in enumerate(calls):
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": i, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}}]})
        for p in parts:
            chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": i, "function": {"arguments": p}}]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}]})
    return chunks


def openai_body(content: str, calls: list[tuple[str, str, str]]) -> dict:
    msg: dict = {"role": "assistant", "content": content or None}
    if calls:
        msg["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}}
                             for i, n, a in calls]
    return {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if calls else "stop"}]}


def test_openai_recorded_stream_events():
    plan = WirePlan(api="openai", parsers=ALL)
    events, parsed = run(plan, load("openai")["stream_parallel"])
    kinds = [e.kind for e in events]
    assert kinds.count(StreamKind.TOOL_START) == 2 and kinds.count(StreamKind.TOOL_END) == 2
    assert kinds[-1] is StreamKind.DONE and events[-1].response is parsed
    starts = {e.index: e.call_id for e in events if e.kind is StreamKind.TOOL_START}
    ends = {e.index: e.call_id for e in events if e.kind is StreamKind.TOOL_END}
    assert starts == ends
    assert [c.arguments for c in parsed.tool_calls] == [{"location": "Paris, France"}, {"location": "Bogotá, Colombia"}]
    ends_args = [e.arguments for e in events if e.kind is StreamKind.TOOL_END]
    assert ends_args == [c.arguments for c in parsed.tool_calls]


ARGS = st.fixed_dictionaries({"location": st.text(max_size=12)},
                             optional={"unit": st.sampled_from(["celsius", "fahrenheit", "k\"elvin\\"])})


@settings(max_examples=120, deadline=None)
@given(ARGS, ARGS, st.text(max_size=30), st.lists(st.integers(0, 80), max_size=8), st.data())
def test_openai_any_split_equals_whole_body(a1, a2, content, cuts, data):
    s1, s2 = json.dumps(a1), json.dumps(a2, indent=data.draw(st.sampled_from([None, 1])))
    cuts2 = data.draw(st.lists(st.integers(0, 80), max_size=8))
    ccuts = data.draw(st.lists(st.integers(0, 30), max_size=4))
    plan = WirePlan(api="openai", parsers=ALL)
    chunks = openai_chunks(split(content, ccuts), [("call_a", "get_weather", split(s1, cuts)),
                                                   ("call_b", "get_weather", split(s2, cuts2))])
    events, parsed = run(plan, chunks)
    whole = parse_response(plan, openai_body(content, [("call_a", "get_weather", s1), ("call_b", "get_weather", s2)]),
                           CTX)
    assert parsed == whole
    assert [c.arguments for c in parsed.tool_calls] == [a1, a2]
    partial = [e.arguments for e in events if e.kind is StreamKind.TOOL_ARGS and e.index == 0]
    for snap in partial:  # every partial view is a prefix-consistent subset of the final arguments
        assert set(snap) <= set(a1)


HERMES_TEXT = ('Let me check.\n<tool_call>\n{"name": "get_weather", "arguments": {"location": "Oslo"}}\n'
               '</tool_call>')


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(0, len(HERMES_TEXT)), max_size=10))
def test_emulated_text_call_any_split(cuts):
    plan = WirePlan(api="openai", native_tools=False, dialect="hermes", parsers=ALL, result="hermes")
    events, parsed = run(plan, openai_chunks(split(HERMES_TEXT, cuts), []))
    assert parsed == parse_response(plan, openai_body(HERMES_TEXT, []), CTX)
    assert [(c.name, c.arguments, c.dialect) for c in parsed.tool_calls] == [
        ("get_weather", {"location": "Oslo"}, "hermes")]
    assert parsed.text == "Let me check."
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    assert "<tool_call>" not in shown and shown.strip() == "Let me check."
    [start] = [e for e in events if e.kind is StreamKind.TOOL_START]
    [end] = [e for e in events if e.kind is StreamKind.TOOL_END]
    assert start.index == end.index and end.call.arguments == {"location": "Oslo"}


def _anthropic_rechunk(events: list[dict], data) -> list[dict]:
    out = []
    for ev in events:
        delta = ev.get("delta", {})
        key = {"text_delta": "text", "input_json_delta": "partial_json", "thinking_delta": "thinking"}.get(
            delta.get("type"))
        if ev["type"] != "content_block_delta" or key is None:
            out.append(ev)
            continue
        value = delta[key]
        for part in split(value, data.draw(st.lists(st.integers(0, max(len(value), 1)), max_size=4))):
            out.append({**ev, "delta": {**delta, key: part}})
    return out


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_anthropic_any_rechunking_equals_whole_body(data):
    fx = load("anthropic")
    plan = WirePlan(api="anthropic", parsers=ALL)
    events, parsed = run(plan, _anthropic_rechunk(fx["stream_thinking_call"], data))
    assert parsed == parse_response(plan, fx["stream_thinking_call_body"], CTX)
    assert parsed.tool_calls[0].arguments == {"location": "San Francisco, CA", "unit": "fahrenheit"}
    assert parsed.provider_data["anthropic"]["thinking"][0]["signature"].startswith("EqQB")
    assert "".join(e.text for e in events if e.kind is StreamKind.THINKING) == "I need the weather in San Francisco."


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_ollama_and_gemini_text_rechunking(data):
    text = "Checking the forecast now. It will take a second."
    parts = split(text, data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    plan = WirePlan(api="ollama", parsers=ALL)
    chunks = [{"message": {"role": "assistant", "content": p}, "done": False} for p in parts]
    chunks.append({"message": {"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "get_weather", "arguments": {"location": "Oslo"}}}]}, "done": False})
    chunks.append({"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"})
    _, parsed = run(plan, chunks)
    body = {"message": {"role": "assistant", "content": text, "tool_calls": [
        {"function": {"name": "get_weather", "arguments": {"location": "Oslo"}}}]}, "done": True, "done_reason": "stop"}
    assert parsed == parse_response(plan, body, CTX)

    plan = WirePlan(api="gemini", parsers=ALL)
    chunks = [{"candidates": [{"content": {"role": "model", "parts": [{"text": p}]}}]} for p in parts]
    chunks[-1]["candidates"][0]["finishReason"] = "STOP"
    _, parsed = run(plan, chunks)
    whole = {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP"}]}
    assert parsed == parse_response(plan, whole, CTX)
    assert parsed.text == text


def test_thinking_tags_in_text_stream_as_thinking():
    plan = WirePlan(api="ollama", parsers=ALL)
    text = "<think>plan the call</think>The answer is 4."
    chunks = [{"message": {"content": text[i:i + 3]}, "done": False} for i in range(0, len(text), 3)]
    chunks.append({"done": True, "message": {"content": ""}, "done_reason": "stop"})
    events, parsed = run(plan, chunks)
    assert parsed.thinking == "plan the call" and parsed.text == "The answer is 4."
    assert "".join(e.text for e in events if e.kind is StreamKind.THINKING).strip() == "plan the call"


def test_finish_twice_is_an_error():
    asm = new_stream(WirePlan(api="openai"), CTX)
    asm.finish()
    try:
        asm.finish()
    except RuntimeError:
        return
    raise AssertionError("finish() twice must raise")
