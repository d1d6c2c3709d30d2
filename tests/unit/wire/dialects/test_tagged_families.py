"""Hand-written checks for the tagged / XML families, read the way a run with the model reads them.

Each family: its wrapper markup never reaches the visible text, its reasoning goes to thinking,
prose or fenced examples that only name its tags give no call, a broken call is reported next to its
good siblings, and arguments are typed by the offered schema.
"""

from __future__ import annotations

import pytest

from agentcli.core.types import ParsedResponse, Tool
from agentcli.wire.model_parse import parse_for

Q = '<|"|>'
GEMMA4 = "google/gemma-4-26b-a4b-it"
NEMOTRON3 = "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B"
OLMO3 = "allenai/Olmo-3-7B-Instruct"


def _tool(name: str, **props: dict) -> Tool:
    return Tool(name, "", {"type": "object", "properties": props})


WEATHER = _tool("get_weather", city={"type": "string"}, days={"type": "integer"}, metric={"type": "boolean"})
FLIGHT = _tool("book_flight", **{"from": {"type": "string"}, "to": {"type": "string"}, "class": {"type": "string"}})


def _parse(output: str, model: str, tools: list[Tool] | None = None) -> ParsedResponse:
    return parse_for(output, model, tools if tools is not None else [WEATHER])


def _calls(resp: ParsedResponse) -> list[tuple[str, dict]]:
    return [(c.name, c.arguments) for c in resp.tool_calls if not c.error]


# --- Gemma 4 -------------------------------------------------------------------------------------

def test_gemma4_markup_and_turn_tokens_never_visible():
    out = _parse(f"Checking.<|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<tool_call|><tool_call|><|tool_response>",
                 GEMMA4)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert out.text.strip() == "Checking."


def test_gemma4_reasoning_channel_goes_to_thinking():
    out = _parse(f"<|channel>thought\nUser wants Oslo.<channel|><|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<tool_call|>",
                 GEMMA4)
    assert "User wants Oslo." in out.thinking
    assert out.text.strip() == ""
    assert "<|channel>" not in out.text and "<channel|>" not in out.text


def test_gemma4_arguments_typed_by_schema():
    out = _parse(f"<|tool_call>call:get_weather{{city:{Q}7{Q},days:3,metric:true}}<tool_call|>", GEMMA4)
    assert _calls(out) == [("get_weather", {"city": "7", "days": 3, "metric": True})]


def test_gemma4_strings_are_verbatim():
    out = _parse(f'<|tool_call>call:get_weather{{city:{Q}C:\\dir "x", y{Q}}}<tool_call|>', GEMMA4)
    assert _calls(out) == [("get_weather", {"city": 'C:\\dir "x", y'})]


def test_gemma4_parameter_named_input_is_not_unwrapped():
    tool = _tool("search", input={"type": "object"})
    out = _parse("<|tool_call>call:search{input:{all:true}}<tool_call|>", GEMMA4, [tool])
    assert _calls(out) == [("search", {"input": {"all": True}})]


def test_gemma4_bare_call_reads_only_as_an_offered_tool_at_a_line_start():
    out = _parse(f"Let me look.\ncall:get_weather{{city:{Q}Oslo{Q}}}", GEMMA4)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert out.text.strip() == "Let me look."
    assert _calls(_parse(f"Let me look.\ncall:bash{{command:{Q}ls{Q}}}", GEMMA4)) == []  # not offered: prose
    assert _calls(_parse(f"Say call:get_weather{{city:{Q}Oslo{Q}}} to check.", GEMMA4)) == []  # mid-line: prose
    assert _calls(_parse(f"call:get_weather{{city:{Q}Oslo", GEMMA4)) == []  # cut off


def test_gemma4_call_closed_by_the_turn_end_token():
    out = _parse(f"<|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<turn|>", GEMMA4)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert out.text.strip() == ""


def test_gemma4_broken_call_beside_good_one():
    out = _parse(f"<|tool_call>call:get_weather{{city:{Q}Oslo{Q}}}<tool_call|>"
                 f"<|tool_call>call:get_weather{{city:{Q}Rome{Q},days:}}}}<tool_call|>", GEMMA4)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert [c.name for c in out.tool_calls] == ["get_weather", "get_weather"]
    assert out.tool_calls[1].error
    assert "tool_call" not in out.text


@pytest.mark.parametrize("output", [
    "Gemma 4 wraps calls in <|tool_call> and <tool_call|> tokens.",
    "```\n<|tool_call>call:get_weather{city:<|\"|>Oslo<|\"|>\n```\nthat is the format, cut short.",
])
def test_gemma4_prose_naming_the_tokens_is_no_call(output: str):
    assert _calls(_parse(output, GEMMA4)) == []


# --- Nemotron ------------------------------------------------------------------------------------

def test_nemotron3_reads_qwen3_coder_xml_and_strips_reasoning():
    out = _parse("Check first.</think>\nOn it.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nOslo\n"
                 "</parameter>\n<parameter=days>\n2\n</parameter>\n</function>\n</tool_call>", NEMOTRON3)
    assert _calls(out) == [("get_weather", {"city": "Oslo", "days": 2})]
    assert out.text.strip() == "On it."
    assert out.thinking == "Check first."


def test_nemotron_toolcall_list_with_string_arguments():
    out = _parse('<TOOLCALL>[{"name": "get_weather", "arguments": "{\\"city\\": \\"Oslo\\"}"}, '
                 '{"name": "get_weather", "arguments": {"city": "Rome"}}]</TOOLCALL>', "nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert _calls(out) == [("get_weather", {"city": "Oslo"}), ("get_weather", {"city": "Rome"})]
    assert "TOOLCALL" not in out.text


def test_nemotron_prose_naming_the_tag_is_no_call():
    out = _parse("I would answer with a <TOOLCALL> block, but no tool fits.", "nvidia/NVIDIA-Nemotron-Nano-9B-v2")
    assert _calls(out) == []


# --- OLMo 3 --------------------------------------------------------------------------------------

def test_olmo3_argument_named_like_a_python_keyword():
    out = _parse('<function_calls>book_flight(from="SFO", to="NYC", class="economy")</function_calls>', OLMO3, [FLIGHT])
    assert _calls(out) == [("book_flight", {"from": "SFO", "to": "NYC", "class": "economy"})]
    assert out.text.strip() == ""


def test_olmo3_keyword_inside_a_string_is_untouched():
    out = _parse('<function_calls>book_flight(to="(from=x, class=y)", from="A")</function_calls>', OLMO3, [FLIGHT])
    assert _calls(out) == [("book_flight", {"to": "(from=x, class=y)", "from": "A"})]


def test_olmo3_json_literals_at_any_depth():
    tool = _tool("create", data={"type": "object"})
    out = _parse('<function_calls>create(data={"u": {"ok": true, "n": null}, "xs": [false]})</function_calls>', OLMO3, [tool])
    assert _calls(out) == [("create", {"data": {"u": {"ok": True, "n": None}, "xs": [False]}})]


# --- reasoning ----------------------------------------------------------------------------------

def test_close_tag_without_opener_ends_reasoning_past_a_quoted_pair():
    out = _parse("I recall <think>a</think> from before. Done</think>Answer.", OLMO3)
    assert out.text.strip() == "Answer."
    assert "</think>" not in out.text


# --- Qwen3-Coder XML ----------------------------------------------------------------------------

def test_qwen3_coder_near_json_array_parameter_is_typed_by_schema():
    tool = _tool("todo", todos={"type": "array"}, note={"type": "string"})
    out = _parse("<tool_call>\n<function=todo>\n<parameter=todos>\n[{'task': 'a', 'done': True,}]\n</parameter>\n"
                 "<parameter=note>\n['kept as text']\n</parameter>\n</function>\n</tool_call>",
                 "Qwen/Qwen3-Coder-30B-A3B-Instruct", [tool])
    assert _calls(out) == [("todo", {"todos": [{"task": "a", "done": True}], "note": "['kept as text']"})]
    assert "function" not in out.text and "tool_call" not in out.text


def test_qwen3_coder_quoted_names_are_the_names():
    out = _parse('<tool_call>\n<function="get_weather">\n<parameter="city">\nOslo\n</parameter>\n'
                 "<parameter='days'>\n3\n</parameter>\n</function>\n</tool_call>", "Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert _calls(out) == [("get_weather", {"city": "Oslo", "days": 3})]


@pytest.mark.parametrize("output", ["<function=<<not xml>></function>", "<function=a<b>\n<parameter=x>1</parameter>\n</function>"])
def test_qwen3_coder_a_name_with_an_angle_bracket_is_no_call(output):
    out = _parse(output, "Qwen/Qwen3-Coder-30B-A3B-Instruct")
    assert out.tool_calls == []
    assert out.text == output


def test_qwen3_coder_wrapped_call_cut_after_its_name_is_reported_not_shown():
    out = _parse("Plan</think>Before<tool_call><function=get_weather>", "Qwen/Qwen3.5-27B")
    assert _calls(out) == [] and [c.name for c in out.tool_calls if c.error] == ["get_weather"]
    assert out.text == "Before"
    prose = _parse("Write <function=get_weather> to call it.", "Qwen/Qwen3.5-27B")
    assert prose.tool_calls == [] and prose.text == "Write <function=get_weather> to call it."


# --- Hermes <tool_call> JSON -------------------------------------------------------------------

@pytest.mark.parametrize("body", [
    '{"name": "获取天气", "arguments": {"城市": "北京"}}',
    '{"function": {"name": "获取天气", "arguments": {"城市": "北京"}}}',
])
def test_hermes_wrapped_call_name_need_not_be_an_identifier(body):
    out = parse_for(f"<tool_call>\n{body}\n</tool_call>", "Qwen/Qwen3-8B", [])
    assert _calls(out) == [("获取天气", {"城市": "北京"})] and out.text == ""
    assert [c.name for c in out.tool_calls] == ["获取天气"]


@pytest.mark.parametrize("body", [
    '{"name": "a\\nb", "arguments": {}}', '{"name": "get weather", "arguments": "not an object"}',
    '{"name": "get weather", "arguments": {}, "description": "a tool"}', '{"name": "<x>", "arguments": {}}',
])
def test_hermes_wrapped_object_that_is_not_a_call_stays_text(body):
    from agentcli.wire.dialects import get

    cands, rest = get("hermes").parse(f"<tool_call>{body}</tool_call>")
    assert cands == [] and body in rest


# --- LFM2 ---------------------------------------------------------------------------------------

LFM2 = "LiquidAI/LFM2-1.2B"


def test_lfm2_unescaped_quotes_in_one_string_argument():
    tool = _tool("bash", command={"type": "string"})
    out = _parse("<|tool_call_start|>[bash(command='grep -n 'a, b' f.txt')]<|tool_call_end|>Running.", LFM2, [tool])
    assert _calls(out) == [("bash", {"command": "grep -n 'a, b' f.txt"})]
    assert out.text.strip() == "Running."


def test_lfm2_broken_list_is_not_merged_into_one_string():
    tool = _tool("bash", command={"type": "string"})
    out = _parse("<|tool_call_start|>[bash(command='ls'), bash(command='x' y')]<|tool_call_end|>", LFM2, [tool])
    assert ("bash", {"command": "ls"}) in _calls(out)
    assert all(args.get("command") != "ls'), bash(command='x' y" for _, args in _calls(out))


def test_lfm2_prose_naming_the_tokens_is_no_call():
    assert _calls(_parse("LFM2 puts calls between <|tool_call_start|> and <|tool_call_end|>.", LFM2)) == []


# --- negatives across the tagged families -------------------------------------------------------

NEGATIVES = [
    ("Qwen/Qwen2.5-7B-Instruct", "Use <tool_call> and </tool_call> tags to wrap calls."),
    ("Qwen/Qwen2.5-7B-Instruct", "<tool_call> and </tool_call> are the tags."),
    ("Qwen/Qwen2.5-7B-Instruct",
     'The format is:\n```\n<tool_call>\n{"name": "search_web", "arguments": {"q": "x"}}\n</tool_call>\n```\nNo call.'),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "Write <function=name> and <parameter=x> to call."),
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", "```xml\n<function=delete_all>\n<parameter=path>/</parameter>\n</function>\n```\nAn example."),
    ("allenai/Olmo-3-7B-Instruct", "```\n<function_calls>rm_rf(path='/')</function_calls>\n```\nexample only"),
    ("anthropic/claude-sonnet-4", 'Claude used to write <function_calls><invoke name="x"> blocks.'),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", "The model writes <seed:tool_call> blocks."),
    (GEMMA4, "~~~\n<|tool_call>call:wipe{all:true}<tool_call|>\n~~~"),
]


@pytest.mark.parametrize(("model", "output"), NEGATIVES)
def test_prose_and_fenced_examples_give_no_call_and_keep_their_text(model: str, output: str):
    out = _parse(output, model)
    assert out.tool_calls == []
    assert out.text.strip() == output.strip()


def test_fenced_call_to_an_offered_tool_is_still_a_call():
    out = _parse('```\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n```',
                 "Qwen/Qwen2.5-7B-Instruct")
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]


# --- GigaChat 3.5 -------------------------------------------------------------------------------

GIGA35 = "ai-sage/GigaChat3.5-432B-A28B"
_B = "\uff5c"


def _gcml(*invokes: str) -> str:
    return f"<{_B}GCML{_B}tool_calls>{''.join(invokes)}</{_B}GCML{_B}tool_calls>"


def _invoke(name: str, body: str, close: bool = True) -> str:
    return f'<{_B}GCML{_B}invoke name="{name}">{body}' + (f"</{_B}GCML{_B}invoke>" if close else "")


def _param(name: str, value: str, string: bool = True) -> str:
    return f'<{_B}GCML{_B}parameter name="{name}" string="{str(string).lower()}">{value}</{_B}GCML{_B}parameter>'


def test_gigachat35_markup_never_visible_and_values_typed():
    out = _parse("Checking." + _gcml(_invoke("get_weather", _param("city", "7") + _param("days", "3", False))), GIGA35)
    assert _calls(out) == [("get_weather", {"city": "7", "days": 3})]
    assert out.text.strip() == "Checking."


def test_gigachat35_broken_invoke_reported_beside_good_one():
    out = _parse(_gcml(_invoke("get_weather", _param("city", "Oslo")),
                       _invoke("get_weather", f'<{_B}GCML{_B}parameter name="city">Rome')), GIGA35)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert len(out.tool_calls) == 2 and out.tool_calls[1].error


def test_gigachat35_prose_naming_the_markup_is_no_call():
    text = f"GigaChat 3.5 opens calls with <{_B}GCML{_B}tool_calls> and closes them again."
    out = _parse(text, GIGA35)
    assert out.tool_calls == [] and out.text == text


# --- reasoning delimiters -----------------------------------------------------------------------

@pytest.mark.parametrize(("output", "text", "thinking"), [
    ("<|channel>thought\n<channel|>Hello.<channel|>", "Hello.", "thought"),  # a stray close after the answer
    ("First</think>Second</think>Answer.", "Answer.", "First\n\nSecond"),  # reasoning runs to the last orphan
    ("[THINK]plan[/THINK]Answer.[/THINK]", "Answer.", "plan"),
    ("prefilled plan<|END_THINKING|>Answer.", "Answer.", "prefilled plan"),  # Cohere's template opens it
    ("only reasoning</think>", "", "only reasoning"),
])
def test_reasoning_close_tags_never_visible(output: str, text: str, thinking: str):
    from agentcli.wire.pipeline import split_thinking

    got_text, got_thinking = split_thinking(output)
    assert (got_text.strip(), got_thinking) == (text, thinking)


@pytest.mark.parametrize(("model", "wrap"), [
    ("Qwen/Qwen3-Coder-30B-A3B-Instruct", ("<tool_call>\n", "\n</tool_call>")),
    ("ByteDance-Seed/Seed-OSS-36B-Instruct", ("<seed:tool_call>\n", "\n</seed:tool_call>")),
])
def test_xml_parameter_layout_newlines_versus_value_newlines(model: str, wrap: tuple[str, str]):
    tool = _tool("edit", old={"type": "string"}, new={"type": "string"})
    body = "<function=edit>\n<parameter=old>\nframed\n</parameter>\n<parameter=new>inline\n</parameter>\n</function>"
    out = _parse(wrap[0] + body + wrap[1], model, [tool])
    assert _calls(out) == [("edit", {"old": "framed", "new": "inline\n"})]


# --- gpt-oss harmony ----------------------------------------------------------------------------

GPT_OSS = "openai/gpt-oss-20b"


def test_harmony_plain_answer_shows_only_the_final_body():
    out = _parse("<|channel|>analysis<|message|>User greets.<|end|><|start|>assistant<|channel|>final<|message|>Hi!", GPT_OSS)
    assert out.tool_calls == []
    assert out.text.strip() == "Hi!"


def test_harmony_recipient_makes_a_call_in_any_channel():
    out = _parse('<|channel|>analysis to=functions.get_weather<|message|>{"city": "Oslo"}', GPT_OSS)
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert out.text.strip() == ""


def test_harmony_builtin_tool_is_never_run_nor_shown_and_note_to_assistant_is_no_call():
    out = _parse("<|start|>assistant<|channel|>commentary to=python <|constrain|>code<|message|>print(1)", GPT_OSS)
    assert out.tool_calls == [] and out.text.strip() == ""
    note = _parse("<|channel|>commentary to=assistant<|channel|>final<|message|>Done.", GPT_OSS)
    assert note.tool_calls == [] and note.text.strip() == "Done."


# --- turn markup around the answer --------------------------------------------------------------

@pytest.mark.parametrize(("model", "output", "text"), [
    ("Qwen/Qwen2.5-7B-Instruct", 'Reading.<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call><|im_end|>',
     "Reading."),
    ("Qwen/Qwen2.5-7B-Instruct", "Plain answer.<|im_end|><|endoftext|>", "Plain answer."),
    ("ibm-granite/granite-3.3-8b-instruct", "<think>plan</think><response>Done.</response>", "Done."),
    ("ibm-granite/granite-3.3-8b-instruct", "Write <response> and </response> around answers.",
     "Write <response> and </response> around answers."),
])
def test_turn_markup_never_visible(model: str, output: str, text: str):
    assert _parse(output, model).text == text


def test_gigachat_malformed_call_after_header_is_reported_not_shown():
    header = "<|message_sep|>\n\nfunction call<|role_sep|>\n"
    out = _parse("Sure." + header + '{"name": "get_weather", "arguments": {city: Oslo}}</s>', "ai-sage/GigaChat3-10B-A1.8B")
    assert [c.name for c in out.tool_calls] == ["get_weather"]
    assert out.text == "Sure."


def test_fence_emptied_by_a_call_is_not_left_on_screen():
    out = _parse('Calling:\n```json\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Oslo"}}\n</tool_call>\n```',
                 "Qwen/Qwen2.5-7B-Instruct")
    assert _calls(out) == [("get_weather", {"city": "Oslo"})]
    assert out.text == "Calling:"


@pytest.mark.parametrize("model", ["ibm-granite/granite-20b-functioncalling", "some-org/unknown-model-7b"])
def test_an_unclosed_function_call_tag_is_read_whole_and_never_left_on_screen(model):
    """`<function_call> {json}` lines (Granite-20B-FunctionCalling) are owned by their dialect, so a
    JSON dialect that a model is prompted with never takes the object and leaves the tag visible."""
    out = ('Let me check.\n<function_call> {"name": "get_weather", "arguments": {"city": "Tokyo"}}\n'
           '<function_call> {"name": "get_weather", "arguments": {"city": "Oslo"}}')
    resp = _parse(out, model, [Tool("get_weather", "", {"type": "object", "properties": {"city": {"type": "string"}}})])
    assert [c.arguments for c in resp.tool_calls] == [{"city": "Tokyo"}, {"city": "Oslo"}]
    assert resp.text.strip() == "Let me check." and "function_call" not in resp.text


def test_dots_sections_leave_no_wrapper_and_a_section_without_a_call_shows_its_content():
    tools = [Tool("search", "", {"type": "object", "properties": {"query": {"type": "string"}}})]
    out = ('<dots_function_call>not a call</dots_function_call>'
           '<dots_function_call><invoke name="search"><parameter name="query">chairs</parameter></invoke>'
           '</dots_function_call> done')
    resp = _parse(out, "rednote-hilab/dots.llm1.inst", tools)
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("search", {"query": "chairs"})]
    # The section tokens are markup: a section holding no call shows its content without them.
    assert resp.text.strip() == "not a call done"
