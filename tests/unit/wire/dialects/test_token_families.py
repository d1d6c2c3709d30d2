"""Hand-written checks for the token-delimited families (Kimi K2/K3, DeepSeek, GLM, MiniMax M2/M3,
Hunyuan), parsed the way a run with that model parses them: wrapper markup never left on screen,
reasoning moved to thinking, prose and quoted markup never a call, a broken call reported next to
its good siblings, and arguments typed by the offered schema."""

from __future__ import annotations

from typing import Any

import pytest

from agentcli.core.types import ParsedResponse, Tool
from agentcli.wire.model_parse import context_for, parse_for

KIMI, KIMI3 = "moonshotai/Kimi-K2-Instruct", "moonshotai/Kimi-K3"
GLM, MINIMAX, MINIMAX3 = "zai-org/GLM-4.6", "MiniMaxAI/MiniMax-M2", "MiniMaxAI/MiniMax-M3"
DEEPSEEK, HY = "deepseek-ai/DeepSeek-V3.1", "tencent/Hy3-preview"
SB, SE, CB, CE, AB = (
    "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>", "<|tool_call_begin|>", "<|tool_call_end|>",
    "<|tool_call_argument_begin|>",
)
NS = "]<]minimax[>["


def tool(name: str, props: dict[str, Any] | None = None, required: list[str] | None = None) -> Tool:
    schema: dict[str, Any] = {"type": "object", "properties": props or {}}
    if required:
        schema["required"] = required
    return Tool(name, f"{name} tool", schema)


WEATHER = tool("get_weather", {"city": {"type": "string"}, "days": {"type": "integer"}}, ["city"])
READ = tool("read_file", {"path": {"type": "string"}}, ["path"])


def good(resp: ParsedResponse) -> list[tuple[str, Any]]:
    return [(c.name, c.arguments) for c in resp.tool_calls if not c.error]


def kimi_call(call_id: str, args: str) -> str:
    return f"{CB}{call_id}{AB}{args}{CE}"


# --- Kimi K2 -------------------------------------------------------------------------------------


def test_kimi_section_tokens_never_stay_on_screen() -> None:
    text = "Before." + SB + kimi_call("functions.get_weather:0", '{"city": "Oslo"}') + SE + " Between. " + SE + "After."
    resp = parse_for(text, KIMI, [WEATHER])
    assert good(resp) == [("get_weather", {"city": "Oslo"})]
    assert "<|" not in resp.text and resp.text.split() == ["Before.", "Between.", "After."]


def test_kimi_prose_quoting_its_tokens_is_left_alone() -> None:
    text = "Kimi opens a call with `<|tool_call_begin|>` and closes the section with `<|tool_calls_section_end|>`."
    resp = parse_for(text, KIMI, [WEATHER])
    assert resp.tool_calls == [] and resp.text == text


def test_kimi_call_written_mid_thought_ends_the_reasoning() -> None:
    text = "<think>I should look it up" + SB + kimi_call("functions.get_weather:3", '{"city": "Lima"}') + SE
    resp = parse_for(text, KIMI, [WEATHER])
    assert good(resp) == [("get_weather", {"city": "Lima"})]
    assert resp.thinking == "I should look it up" and resp.text == ""


def test_kimi_id_without_a_name_is_named_by_its_arguments_only_when_one_tool_fits() -> None:
    text = SB + kimi_call("call_7", '{"path": "/etc/hosts"}') + kimi_call("toolu_01X", '{"colour": "red"}') + SE
    resp = parse_for(text, KIMI, [WEATHER, READ])
    assert good(resp) == [("read_file", {"path": "/etc/hosts"})]
    [bad] = [c for c in resp.tool_calls if c.error]
    assert "names no tool" in bad.error and resp.text == ""


def test_kimi_broken_call_is_reported_beside_its_good_siblings() -> None:
    text = SB + kimi_call("functions.get_weather:0", '{"city": "Rome"}') + kimi_call("functions.get_weather:1", "[1, 2")
    text += kimi_call("functions.read_file:2", '{"path": "a.txt"}') + SE
    resp = parse_for(text, KIMI, [WEATHER, READ])
    assert good(resp) == [("get_weather", {"city": "Rome"}), ("read_file", {"path": "a.txt"})]
    assert [c.name for c in resp.tool_calls if c.error] == ["get_weather"]


def test_kimi_arguments_are_typed_by_the_schema() -> None:
    text = SB + kimi_call("functions.get_weather:0", '{"city": "Rome", "days": "3"}') + SE
    assert good(parse_for(text, KIMI, [WEATHER])) == [("get_weather", {"city": "Rome", "days": 3})]


# --- Kimi K3 -------------------------------------------------------------------------------------


def k3_call(name: str, **args: tuple[str, str]) -> str:
    inner = "".join(f'<|open|>argument key="{k}" type="{t}"<|sep|>{v}<|close|>argument<|sep|>' for k, (t, v) in args.items())
    return f'<|open|>call tool="{name}" index="1"<|sep|>{inner}<|close|>call<|sep|>'


def test_kimi_k3_channels_split_into_reasoning_reply_and_calls() -> None:
    text = (
        "<|open|>think<|sep|>weather first<|close|>think<|sep|><|open|>response<|sep|>Checking.<|close|>response<|sep|>"
        "<|open|>tools<|sep|>" + k3_call("get_weather", city=("string", "Oslo"), days=("integer", "2"))
        + '<|open|>call tool="read_file" index="2"<|sep|><|open|>argument key="path" type="string"<|sep|>a.t'
    )
    resp = parse_for(text, KIMI3, [WEATHER, READ])
    assert good(resp) == [("get_weather", {"city": "Oslo", "days": 2})]
    assert [c.name for c in resp.tool_calls if c.error] == ["read_file"]  # cut off: never run
    assert (resp.thinking, resp.text) == ("weather first", "Checking.")


def test_kimi_k3_plain_text_with_angle_brackets_is_untouched() -> None:
    text = "is 3 < 4? yes, and a |> b"
    assert parse_for(text, KIMI3, [WEATHER]).text == text


# --- GLM -----------------------------------------------------------------------------------------


def test_glm_value_missing_its_tags_is_read_as_ollama_repairs_it() -> None:
    text = "<tool_call>get_weather\n<arg_key>city</arg_key>\nParis</arg_value>\n<arg_key>days</arg_key>\n<arg_value>2</tool_call>"
    assert good(parse_for(text, GLM, [WEATHER])) == [("get_weather", {"city": "Paris", "days": 2})]


@pytest.mark.parametrize(
    ("tail", "called"),
    [
        ("<arg_key>city</arg_key>\n<arg_value>Oslo</arg_value>", True),  # whole: an offered tool, required present
        ("<arg_key>days</arg_key>\n<arg_value>2</arg_value>", False),  # required city missing
        ("<arg_key>city</arg_key>\n<arg_value>Os", False),  # cut inside a value
    ],
)
def test_glm_call_cut_before_its_close_tag(tail: str, called: bool) -> None:
    resp = parse_for("Sure.<tool_call>get_weather\n" + tail, GLM, [WEATHER])
    assert bool(good(resp)) is called
    assert resp.text == "Sure." and (called or all(c.error for c in resp.tool_calls))


def test_glm_escaped_json_array_unescapes_backslashes_too() -> None:
    todo = tool("todo", {"items": {"type": "array"}})
    text = '<tool_call>todo<arg_key>items</arg_key><arg_value>[{\\"p\\": \\"C:\\\\\\\\tmp\\"}]</arg_value></tool_call>'
    assert good(parse_for(text, GLM, [todo])) == [("todo", {"items": [{"p": "C:\\tmp"}]})]


# --- MiniMax M2 / M3 -----------------------------------------------------------------------------


def test_minimax_value_may_hold_its_own_close_tag() -> None:
    note = tool("note", {"body": {"type": "string"}})
    text = '<minimax:tool_call><invoke name="note"><parameter name="body">a </parameter> b</parameter></invoke></minimax:tool_call>'
    assert good(parse_for(text, MINIMAX, [note])) == [("note", {"body": "a </parameter> b"})]


def test_minimax_cut_off_call_is_truncated_and_its_wrapper_leaves_the_text() -> None:
    text = 'Done.<minimax:tool_call><invoke name="get_weather"><parameter name="city">Os'
    resp = parse_for(text, MINIMAX, [WEATHER])
    assert good(resp) == [] and resp.text == "Done."
    assert [c.error for c in resp.tool_calls] == ["truncated tool call (output ended inside it)"]


def test_minimax_m3_nested_tags_are_typed_by_the_nested_schema() -> None:
    order = tool("order", {"ship": {"type": "object", "properties": {"zip": {"type": "integer"}}},
                           "lines": {"type": "array", "items": {"type": "integer"}}, "note": {"type": "string"}})
    text = (
        f"Ok.\n{NS}<tool_call>\n{NS}<invoke name=\"order\">{NS}<ship>{NS}<zip>02134{NS}</zip>{NS}</ship>"
        f"{NS}<lines>{NS}<item>1{NS}</item>{NS}<item>2{NS}</item>{NS}</lines>{NS}<note><b>fragile</b>{NS}</note>"
        f"{NS}</invoke>\n{NS}</tool_call>"
    )
    resp = parse_for(text, MINIMAX3, [order])
    assert good(resp) == [("order", {"ship": {"zip": 2134}, "lines": [1, 2], "note": "<b>fragile</b>"})]
    assert resp.text == "Ok."


def test_minimax_m3_tags_that_do_not_nest_are_a_broken_call() -> None:
    text = f'{NS}<tool_call>{NS}<invoke name="get_weather">{NS}<city>Oslo{NS}</days>{NS}</invoke>{NS}</tool_call>'
    resp = parse_for(text, MINIMAX3, [WEATHER])
    assert good(resp) == [] and [bool(c.error) for c in resp.tool_calls] == [True]


# --- DeepSeek, Hunyuan ---------------------------------------------------------------------------


def test_deepseek_call_section_ends_reasoning_left_open() -> None:
    text = "<think>need the weather<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Oslo\"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>"
    resp = parse_for(text, DEEPSEEK, [WEATHER])
    assert good(resp) == [("get_weather", {"city": "Oslo"})] and resp.thinking == "need the weather"


def test_deepseek_prose_naming_the_tokens_is_no_call() -> None:
    text = "DeepSeek writes `<｜tool▁calls▁begin｜>` before its calls."
    resp = parse_for(text, DEEPSEEK, [WEATHER])
    assert resp.tool_calls == []


def test_hunyuan_reads_its_own_wrapper_without_a_separator() -> None:
    suf = ":opensource"
    text = (f"Sure.<tool_calls{suf}><tool_call{suf}>get_weather<arg_key{suf}>days</arg_key{suf}>"
            f"<arg_value{suf}>4</arg_value{suf}><arg_key{suf}>city</arg_key{suf}><arg_value{suf}>Oslo</arg_value{suf}>"
            f"</tool_call{suf}></tool_calls{suf}>")
    resp = parse_for(text, HY, [WEATHER])
    assert good(resp) == [("get_weather", {"days": 4, "city": "Oslo"})] and resp.text == "Sure."


# --- routing -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "dialect"),
    [
        ("moonshotai/Kimi-K2.5", "kimi_k2"), ("moonshotai/Kimi-K2.6-Thinking", "kimi_k2"), ("moonshotai/Kimi-K3", "kimi_k3"),
        ("MiniMaxAI/MiniMax-M2.1", "minimax_m2"), ("MiniMaxAI/MiniMax-M3", "minimax_m3"),
        ("deepcogito/cogito-671b-v2.1", "deepseek_v3"), ("tencent/Hy3-preview", "hunyuan"),
    ],
)
def test_family_ids_route_to_their_dialect(model: str, dialect: str) -> None:
    assert context_for(model, [])[1][0] == dialect
