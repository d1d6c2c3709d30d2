"""finalize / parse_text: reasoning split, chain order, native merge, names, repairs, stable ids."""

from __future__ import annotations

import pytest

from agentcli.core.types import Tool
from agentcli.wire.pipeline import finalize, parse_text, split_thinking
from agentcli.wire.types import Candidate, NativeParse, ParseContext

WEATHER = Tool("get_weather", "Weather.", {"type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}})
READ = Tool("read_file", "Read.", {"type": "object", "properties": {"path": {"type": "string"}}})
CTX = ParseContext.of([WEATHER, READ])
HERMES = '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris", "days": "3"}}\n</tool_call>'


def test_split_thinking_forms():
    assert split_thinking("<think>a</think>b") == ("b", "a")
    assert split_thinking("reason</think>answer") == ("answer", "reason")
    assert split_thinking("x<think>still thinking") == ("x", "still thinking")
    assert split_thinking("no reasoning") == ("no reasoning", "")


def test_calls_inside_thinking_are_never_parsed():
    resp = parse_text("<think>" + HERMES + "</think>I can answer directly.", CTX)
    assert resp.tool_calls == [] and resp.text == "I can answer directly."
    assert "get_weather" in resp.thinking


def test_coercion_by_schema_is_recorded():
    resp = parse_text(HERMES, CTX)
    (call,) = resp.tool_calls
    assert call.arguments == {"city": "Paris", "days": 3}
    assert [r.kind for r in resp.repairs] == ["coerce_type"] and resp.repairs[0].call_id == call.id
    assert resp.finish_reason == "tool_calls" and call.dialect == "hermes"


def test_names_resolve_or_are_flagged_unknown():
    resp = parse_text('<tool_call>{"name": "functions.Get_Weather", "arguments": {"city": "Oslo"}}</tool_call>', CTX)
    assert resp.tool_calls[0].name == "get_weather" and not resp.tool_calls[0].unknown
    resp = parse_text('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', CTX)
    assert resp.tool_calls[0].unknown and resp.tool_calls[0].name == "rm_rf"


def test_json_block_unknown_names_are_not_calls():
    text = 'Example:\n```json\n{"name": "not_a_tool", "arguments": {"x": 1}}\n```\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```'
    resp = parse_text(text, CTX, ("json_block",))
    assert [c.name for c in resp.tool_calls] == ["read_file"]
    assert "not_a_tool" in resp.text and "read_file" not in resp.text
    # Without offered tools there is nothing to check against: both are calls.
    assert len(parse_text(text, None, ("json_block",)).tool_calls) == 2


def test_native_first_and_echo_deduplicated():
    native = NativeParse(text=HERMES, candidates=[Candidate("get_weather", '{"city": "Paris", "days": 3}', "", "native_openai", id="call_1")])
    resp = finalize(native, CTX, ("hermes",))
    assert [(c.id, c.dialect) for c in resp.tool_calls] == [("call_1", "native_openai")]


def test_prefer_runs_first():
    text = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome"}}</tool_call>'
    resp = finalize(NativeParse(text=text), ParseContext.of([WEATHER], prefer=("tool_use_tag", "hermes")), ("json_block",))
    assert resp.tool_calls[0].dialect == "hermes"
    assert finalize(NativeParse(text=text), ParseContext(), ("json_block",)).tool_calls == []


def test_repair_disabled_sets_error():
    bad = '<tool_call>{"name": "get_weather", "arguments": {"city": "Rome",}}</tool_call>'
    assert parse_text(bad, CTX).tool_calls[0].error is None
    resp = parse_text(bad, ParseContext.of([WEATHER], repair=False))
    assert resp.tool_calls[0].error and resp.repairs == []


def test_unrecoverable_arguments_set_error_not_raise():
    resp = parse_text('[TOOL_CALLS]get_weather[ARGS]{"city": "Ro', CTX)
    assert resp.tool_calls[0].error and resp.tool_calls[0].arguments == {}


def test_ids_are_stable_across_parses():
    a, b = parse_text(HERMES + HERMES.replace("Paris", "Lyon"), CTX), parse_text(HERMES + HERMES.replace("Paris", "Lyon"), CTX)
    assert [c.id for c in a.tool_calls] == [c.id for c in b.tool_calls]
    assert len({c.id for c in a.tool_calls}) == 2


def test_text_values_decoded_then_coerced():
    text = "<tool_call>\n<function=get_weather>\n<parameter=city>\n123\n</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>"
    resp = parse_text(text, CTX)
    assert resp.tool_calls[0].arguments == {"city": "123", "days": 2}


def test_dialect_errors_degrade_to_text(monkeypatch):
    from agentcli.wire import dialects

    def boom(text):
        raise RuntimeError("parser bug")

    monkeypatch.setattr(dialects.get("hermes"), "parse", boom)
    monkeypatch.setattr(dialects.get("hermes"), "lane", boom)  # the usual reply's own reading too
    resp = parse_text(HERMES, CTX, ("hermes",))
    assert resp.tool_calls == [] and "get_weather" in resp.text


def test_plain_text_passes_through():
    resp = parse_text("Just an answer with {braces} and [brackets].")
    assert resp.text == "Just an answer with {braces} and [brackets]." and resp.finish_reason == "stop"


def test_prompted_json_dialect_keeps_unknown_names_as_calls():
    """A JSON call to a wrong name is prose when JSON was not asked for, but a (bad) call
    when the model was prompted to write JSON calls: it must hear "unknown tool"."""
    from agentcli.core.types import Tool
    from agentcli.wire.pipeline import parse_text
    from agentcli.wire.types import ParseContext

    tools = [Tool("read_file", "read", {"type": "object", "properties": {"path": {"type": "string"}}})]
    text = '```json\n{"name": "delete_all", "arguments": {}}\n```'
    assert parse_text(text, ParseContext.of(tools)).tool_calls == []
    calls = parse_text(text, ParseContext.of(tools, prompted="json_block")).tool_calls
    assert [(c.name, c.unknown) for c in calls] == [("delete_all", True)]


TRAFFIC = Tool("get_current_traffic", "Traffic.", {"type": "object", "properties": {"location": {"type": "string"}}})
UNCLOSED = '{"type": "function", "function": {"name": "get_current_traffic", "parameters": {"location": "Sydney"}}'


def test_unclosed_call_object_is_repaired_and_recorded():
    resp = parse_text(UNCLOSED, ParseContext.of([TRAFFIC]))
    (call,) = resp.tool_calls
    assert call.arguments == {"location": "Sydney"} and not call.error and call.dialect == "json_block"
    assert [r.kind for r in resp.repairs] == ["close_brackets"] and resp.repairs[0].call_id == call.id
    assert resp.text == ""


def test_unclosed_call_object_with_repair_off_is_an_error_call():
    resp = parse_text(UNCLOSED, ParseContext.of([TRAFFIC], repair=False))
    (call,) = resp.tool_calls
    assert call.error and "closing brace" in call.error and resp.repairs == []


def test_unclosed_call_object_needs_an_offered_name_and_whole_arguments():
    assert parse_text(UNCLOSED, CTX).tool_calls == []  # not an offered tool: prose
    cut = '{"name": "get_weather", "arguments": {"city": "Oslo", "days": {"n": 3}'
    assert parse_text(cut, CTX).tool_calls == []  # the arguments themselves never closed
    assert parse_text('{"name": "get_weather", "arguments": {"city": "Os', CTX).tool_calls == []


def test_failed_call_attempt_is_markup_without_a_usable_call():
    from agentcli.wire.pipeline import failed_call_attempt

    def failed(text: str) -> bool:
        return failed_call_attempt(parse_text(text, CTX))

    assert failed('<tool_call>\n{"name": read_file, "arguments": {"path": "a"}}\n</tool_call>')
    assert failed('I will call it: {"name": "read_file", "arguments": {"path": "a"')  # cut mid-arguments
    assert failed("<function_calls>\n<invoke name=>")
    assert not failed("The answer is 42.")
    assert not failed("Use functools and Action: items, as in >>> print(1)")  # word markers are prose
    assert not failed('<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>')
    assert failed('<tool_call>{"name": "read_file", "arguments": {"path": "a"</tool_call>') is False  # repaired
    resp = parse_text('<tool_call>{"name": "read_file", "arguments": {"path": "a"', CTX)
    assert resp.tool_calls and resp.tool_calls[0].error and failed_call_attempt(resp)


def test_a_family_wrapper_is_read_by_its_owner_whatever_the_chain_order():
    # Generic dialects earlier in the chain can read the inner call (<function=..>, <invoke name=..>);
    # the dialect whose own markup wraps it must read it, wrapper and all, even when preferred last.
    wrapped = {
        "seed_oss": "hi <seed:tool_call>\n<function=f>\n<parameter=a>1</parameter>\n</function>\n</seed:tool_call>",
        "minimax_m2": 'hi <minimax:tool_call>\n<invoke name="f">\n<parameter name="a">1</parameter>\n</invoke>\n</minimax:tool_call>',
        "step3": 'hi <｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="f">'
        '<steptml:parameter name="a">1</steptml:parameter></steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>',
    }
    for owner, text in wrapped.items():
        out = parse_text(text, ParseContext(prefer=("qwen3_coder", "claude_xml")))
        assert [(c.name, c.dialect) for c in out.tool_calls] == [("f", owner)]
        assert out.text == "hi"


def test_text_beside_native_calls_is_never_a_call():
    # An Anthropic text block quoting an old <function_calls> example next to a real tool_use: the
    # example stays text; an exact echo of the native call is dropped with its text.
    quoted = '<function_calls>\n<invoke name="old">\n<parameter name="a">1</parameter>\n</invoke>\n</function_calls>'
    native = [Candidate("get_weather", {"city": "Paris"}, "", "native", id="t1")]
    out = finalize(NativeParse(text=f"I used to write:\n{quoted}\nNow:", candidates=native), ParseContext(), ("claude_xml",))
    assert [c.name for c in out.tool_calls] == ["get_weather"]
    assert quoted in out.text
    echo = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'
    out = finalize(NativeParse(text=f"Checking.{echo}", candidates=native), ParseContext(), ("hermes",))
    assert [c.name for c in out.tool_calls] == ["get_weather"] and out.text == "Checking."


def test_escaped_json_for_an_array_parameter_is_typed_by_the_schema():
    schema = {"type": "object", "properties": {"items": {"type": "array"}, "note": {"type": "string"}}}
    ctx = ParseContext.of([Tool(name="f", description="", parameters=schema)])
    text = '<tool_call>f\n<arg_key>items</arg_key>\n<arg_value>[\\"a\\", \\"b\\"]</arg_value>\n' \
        '<arg_key>note</arg_key>\n<arg_value>[\\"kept\\"]</arg_value>\n</tool_call>'
    out = parse_text(text, ctx)
    assert out.tool_calls[0].arguments == {"items": ["a", "b"], "note": '[\\"kept\\"]'}
    assert [r.kind for r in out.repairs] == ["escaped_json"]


def test_functiongemma_nested_scalars_are_typed():
    out = parse_text("<start_function_call>call:f{cfg:{n:3,ok:true,xs:[1,2.5,null,1e999,abc]}}<end_function_call>")
    assert out.tool_calls[0].arguments == {"cfg": {"n": 3, "ok": True, "xs": [1, 2.5, None, "1e999", "abc"]}}


def test_reasoning_delimiters_of_every_family_go_to_thinking():
    for open_tag, close_tag in (("[THINK]", "[/THINK]"), ("<|START_THINKING|>", "<|END_THINKING|>"), ("<seed:think>", "</seed:think>")):
        out = parse_text(f"{open_tag}plan{close_tag}Answer")
        assert (out.text, out.thinking) == ("Answer", "plan")


@pytest.mark.parametrize("text, calls, visible, thinking", [
    ('<|channel|>analysis<|message|>Need the weather.<|end|><|start|>assistant<|channel|>commentary '
     'to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>',
     [("get_weather", {"city": "Tokyo"})], "", "Need the weather."),
    ("<|start|>assistant<|channel|>analysis<|message|>Two and two.<|end|>"
     "<|start|>assistant<|channel|>final<|message|>It is 4.<|return|>", [], "It is 4.", "Two and two."),
    ('<|channel|>analysis to=functions.f<|message|>{"a": 1}<|call|>', [("f", {"a": 1})], "", ""),
    ("<|channel|>analysis<|message|>cut off while thinking", [], "", "cut off while thinking"),
])
def test_harmony_analysis_is_thinking_and_an_addressed_analysis_message_a_call(text, calls, visible, thinking):
    """gpt-oss reasons in the analysis channel: that goes to thinking, as every family's reasoning does;
    a message addressed to a function is a call whatever its channel."""
    resp = parse_text(text)
    assert [(c.name, c.arguments) for c in resp.tool_calls] == calls
    assert resp.text == visible and resp.thinking == thinking


@pytest.mark.parametrize("content", ["Models write <think>...</think> first.", "the </think> tag", "<think>open only",
                                     "[THINK]x[/THINK] and <seed:think>y</seed:think>"])
def test_think_tags_inside_a_calls_arguments_are_its_text(content):
    """A file that mentions reasoning tags is written whole: tags inside a call's arguments are its
    value, never reasoning to split off (that cut the value, or took the call into thinking)."""
    import json

    text = "<tool_call>" + json.dumps({"name": "write_file", "arguments": {"path": "a.md", "content": content}}) + "</tool_call>"
    resp = parse_text(text)
    assert [(c.name, c.arguments["content"]) for c in resp.tool_calls] == [("write_file", content)]
    assert resp.thinking == ""


def test_reasoning_around_calls_is_still_split_off():
    text = ('<think>plan</think>Answer<tool_call>{"name": "f", "arguments": {"x": "<think>y</think>"}}</tool_call>')
    resp = parse_text(text)
    assert resp.thinking == "plan" and resp.text == "Answer"
    assert [c.arguments for c in resp.tool_calls] == [{"x": "<think>y</think>"}]
