"""The token-delimited, model-specific dialects parse their fixtures directly.

Each fixture case holds a real model output (from the vLLM / SGLang parser tests or the
model's documented format), the calls expected and the text left once they are removed.
Arguments are checked the way the pipeline will decode them: JSON strings are loaded,
text-valued parameters that are valid JSON are loaded, other text stays a string.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentcli.wire.dialects import DIALECTS, get
from agentcli.wire.types import Candidate

TOKEN_DIALECTS = [
    "deepseek_v3", "deepseek_v31", "deepseek_v32", "kimi_k2", "kimi_k3", "glm4_moe", "hunyuan", "minimax_m3",
    "minimax", "minimax_m2", "phi4_mini", "firefunction", "functionary", "command_r",
    "lfm2", "seed_oss", "functiongemma", "step3", "harmony", "internlm2", "jamba",
    "granite", "xlam", "solar_open2", "cwm", "hyperclovax", "rwkv", "laguna", "minicpm5",
]
FIXTURES = Path(__file__).parents[3] / "fixtures" / "dialects"


def _load(name: str) -> list[dict[str, Any]]:
    data = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    assert data["dialect"] == name
    return data["cases"]


CASES = [pytest.param(name, case, id=f"{name}:{case['id']}") for name in TOKEN_DIALECTS for case in _load(name)]


def _decode_text_value(value: Any) -> Any:
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


def decoded_arguments(cand: Candidate) -> Any:
    """What the pipeline makes of a candidate's arguments (before schema coercion)."""
    args = cand.arguments
    if isinstance(args, str):
        return json.loads(args)
    if args is None:
        return {}
    if cand.text_values:
        return {k: _decode_text_value(v) for k, v in args.items()}
    return args


def test_every_token_dialect_is_registered_and_has_fixtures() -> None:
    for name in TOKEN_DIALECTS:
        assert name in DIALECTS
        dialect = get(name)
        assert dialect.name == name
        assert not dialect.emulation
        cases = _load(name)
        kinds = {bool(c["calls"]) for c in cases}
        assert kinds == {True, False}, f"{name} needs cases with and without calls"
        assert all(c.get("source") for c in cases)


@pytest.mark.parametrize(("name", "case"), CASES)
def test_fixture_case(name: str, case: dict[str, Any]) -> None:
    dialect = get(name)
    text = case["text"]
    cands, rest = dialect.parse(text)
    assert [c.name for c in cands] == [c["name"] for c in case["calls"]]
    for cand, want in zip(cands, case["calls"]):
        assert cand.dialect == name
        assert cand.raw and cand.raw in text
        assert decoded_arguments(cand) == want["arguments"]
    if "text_after" in case:
        assert rest.strip() == case["text_after"].strip()
    if not cands and "text_after" not in case:
        assert rest == text  # no call found: the text is handed back untouched (or as text_after pins it:
        # a dialect strips its own non-call markup, such as Command A's response tokens)
    if dialect.markers and cands:
        assert any(m in text for m in dialect.markers)


@pytest.mark.parametrize(("name", "case"), [p for p in CASES if p.values[1]["calls"]])
def test_removed_calls_do_not_parse_again(name: str, case: dict[str, Any]) -> None:
    dialect = get(name)
    _, rest = dialect.parse(case["text"])
    again, rest2 = dialect.parse(rest)
    assert again == [] and rest2 == rest


@pytest.mark.parametrize("name", TOKEN_DIALECTS)
def test_every_prefix_is_safe(name: str) -> None:
    """A stream can stop anywhere: parsing any prefix returns, and never invents a call."""
    dialect = get(name)
    for case in _load(name):
        text = case["text"]
        want = [c["name"] for c in case["calls"]]
        for cut in range(len(text) + 1):
            cands, rest = dialect.parse(text[:cut])
            assert isinstance(cands, list) and isinstance(rest, str)
            # a call reported cut off is never run; one cut after a whole pair is the pipeline's to judge
            names = [c.name for c in cands if not c.error and not c.cut_off]
            assert names == want[: len(names)], (cut, names)
            for c in cands:
                if c.error:
                    continue
                if isinstance(c.arguments, str):
                    json.loads(c.arguments)  # a cut-off call only counts with whole JSON arguments


@pytest.mark.parametrize("name", TOKEN_DIALECTS)
def test_garbage_never_raises(name: str) -> None:
    dialect = get(name)
    samples = ["", " ", "\x00", "{", "[", "<", ">>>", "```", "functools[", '{"name": 1}', "[{}]"]
    samples += [m + tail for m in dialect.markers for tail in ("", "{", "[", "<", "}", "]]", "\n", '"')]
    for s in samples:
        cands, rest = dialect.parse(s)
        assert isinstance(cands, list) and isinstance(rest, str)


@pytest.mark.parametrize("name", TOKEN_DIALECTS)
def test_one_megabyte_of_repeated_markers(name: str) -> None:
    dialect = get(name)
    marker = (dialect.markers or (">>>",))[0]
    junk = (marker + " junk {\"a\": [1, 2 <x> ") * (1_000_000 // (len(marker) + 20))
    cands, rest = dialect.parse(junk)
    assert cands == []  # completes; linear work is tests/unit/wire/test_parse_complexity.py's
    # The text stays, less any stray wrapper tokens of the dialect's own (never prose).
    assert rest == junk or rest == junk.replace(marker, "")


# --- dialect-specific behaviour the shared fixtures do not pin down ---


def test_deepseek_v3_keeps_undecodable_arguments_as_text() -> None:
    text = (
        "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
        '{"city": "Tokyo"\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    )
    cands, rest = get("deepseek_v3").parse(text)
    assert [c.name for c in cands] == ["get_weather"]
    assert cands[0].arguments == '{"city": "Tokyo"'  # the repair layer decides
    assert rest == ""


def test_deepseek_v3_and_v31_read_each_others_layout() -> None:
    v31 = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>foo<｜tool▁sep｜>{"x":1}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'
    assert [c.name for c in get("deepseek_v3").parse(v31)[0]] == ["foo"]


def test_kimi_k2_keeps_written_id_and_marks_bare_counters() -> None:
    s, e = "<|tool_calls_section_begin|>", "<|tool_calls_section_end|>"
    text = (
        f"Help. {s}<|tool_call_begin|>functions.get_weather:3 <|tool_call_argument_begin|>"
        '{"city": "Tokyo"}<|tool_call_end|><|tool_call_begin|>0 <|tool_call_argument_begin|>{}<|tool_call_end|>' + e
    )
    cands, _ = get("kimi_k2").parse(text)
    assert [(c.name, c.id, c.name_from_args) for c in cands] == [
        ("get_weather", "functions.get_weather:3", False),
        ("0", "0", True),  # a bare counter names no tool: the pipeline infers it from the arguments
    ]


def test_hunyuan_suffixed_tokens() -> None:
    text = (
        "<tool_calls:opensource><tool_call:opensource>get_weather<tool_sep:opensource>"
        "<arg_key:opensource>city</arg_key:opensource><arg_value:opensource>Boston</arg_value:opensource>"
        "</tool_call:opensource></tool_calls:opensource>"
    )
    cands, rest = get("hunyuan").parse(text)
    assert [(c.name, c.arguments, c.text_values) for c in cands] == [("get_weather", {"city": "Boston"}, True)]
    assert rest == ""


def test_granite_string_arguments_stay_undecoded() -> None:
    text = '<tool_call> {"name": "find_bbox", "arguments": "{\\"a\\": 1}"} </tool_call>'
    (cand,), _ = get("granite").parse(text)
    assert cand.arguments == '{"a": 1}'


def test_command_r_ids_and_xml_values_keep_whitespace() -> None:
    text = '<|START_ACTION|>[{"tool_call_id": "7", "tool_name": "foo", "parameters": {}}]<|END_ACTION|>'
    (cand,), _ = get("command_r").parse(text)
    assert cand.id == "7"
    step = (
        '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="edit">'
        '<steptml:parameter name="old">  x = 1\n</steptml:parameter></steptml:invoke>'
        "<｜tool_call_end｜><｜tool_calls_end｜>"
    )
    (cand,), _ = get("step3").parse(step)
    assert cand.arguments == {"old": "  x = 1\n"}


def test_xml_calls_need_their_closing_tag() -> None:
    """A cut-off XML call could still have been adding parameters: it is not a call."""
    (cut,), rest = get("minimax_m2").parse('Hi<minimax:tool_call><invoke name="f"><parameter name="a">1</parameter>')
    assert (cut.name, cut.error, rest) == ("f", "truncated tool call (output ended inside it)", "Hi")
    assert get("seed_oss").parse("<seed:tool_call><function=f><parameter=a>1</parameter>")[0] == []
    (glm,), _ = get("glm4_moe").parse("<tool_call>f\n<arg_key>a</arg_key><arg_value>1</arg_value>")
    assert glm.cut_off  # whole so far: a call only for an offered tool with its required arguments
    (glm,), rest = get("glm4_moe").parse("Hi<tool_call>f\n<arg_key>a</arg_key><arg_value>1")
    assert (glm.error, rest) == ("truncated tool call (output ended inside it)", "Hi")
    ds = '<｜DSML｜function_calls><｜DSML｜invoke name="f"><｜DSML｜parameter name="a" string="true">1</｜DSML｜parameter>'
    assert get("deepseek_v32").parse(ds)[0] == []


def test_harmony_drops_analysis_and_keeps_final_text() -> None:
    text = (
        "<|channel|>analysis<|message|>secret plan<|end|>"
        '<|start|>assistant<|channel|>commentary to=functions.f <|constrain|>json<|message|>{}<|call|>'
    )
    cands, rest = get("harmony").parse(text)
    assert [c.name for c in cands] == ["f"] and "secret plan" not in rest


def test_lfm2_is_read_with_ast_not_evaluated() -> None:
    text = "<|tool_call_start|>[f(x=__import__('os').system('true'))]<|tool_call_end|>"
    assert get("lfm2").parse(text) == ([], text)


def test_functiongemma_nested_values() -> None:
    text = "<start_function_call>call:f{o:{a:<escape>x,y<escape>},l:[1,2]}<end_function_call>"
    (cand,), _ = get("functiongemma").parse(text)
    assert cand.arguments == {"o": {"a": "x,y"}, "l": [1, 2]}


def test_prose_mentioning_tokens_is_not_a_call() -> None:
    samples = {
        "kimi_k2": "Kimi wraps calls in `<|tool_calls_section_begin|>` and `<|tool_call_begin|>`.",
        "jamba": "Jamba writes `<tool_calls>` then a JSON list.",
        "internlm2": "Use `<|action_start|><|plugin|>` to call a plugin.",
        "lfm2": "LFM2 starts calls with `<|tool_call_start|>`.",
        "minimax_m2": "MiniMax uses `<minimax:tool_call>` blocks.",
        "harmony": "Messages end with `<|call|>` when they call a tool; `<|channel|>` picks the channel.",
        "command_r": "Action: I will now look this up.",
        "phi4_mini": "Phi-4 emits functools[...] when calling tools.",
    }
    for name, text in samples.items():
        assert get(name).parse(text) == ([], text), name


# Outputs another dialect rightly (or, in the full chain, greedily) reads: the dialect
# itself must leave them alone. They live here rather than in the shared fixtures.
NOT_MINE = [
    ("glm4_moe", '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>'),
    ("functionary", "<function=get_weather>\n<parameter=city>Paris</parameter>\n</function>"),
    ("command_r", 'Action: ```json\n[\n    {\n        "tool_name": "directly-answer",\n        "parameters": {}\n    }\n]\n```'),
    ("xlam", 'The API expects [{"name": "x", "arguments": {}}] as input.'),
    ("seed_oss", "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barce"),
    ("step3", '<｜tool_calls_begin｜><｜tool_call_begin｜><steptml:invoke name="func">'),
]


@pytest.mark.parametrize(("name", "text"), NOT_MINE)
def test_leaves_other_forms_alone(name: str, text: str) -> None:
    assert get(name).parse(text) == ([], text)


def test_seed_oss_ignores_calls_spelled_out_in_thinking() -> None:
    """vLLM test_seed_oss_tool_parser.py, unlimited thinking budget."""
    call = (
        "<seed:tool_call>\n<function=get_weather>\n<parameter=location>Barcelona, Spain</parameter>\n"
        "<parameter=unit>celsius</parameter>\n</function>\n</seed:tool_call>"
    )
    think = f"<seed:think>\nThe format is {call}. Let me go with that.</seed:think>"
    cands, rest = get("seed_oss").parse(think + call)
    assert [(c.name, c.arguments) for c in cands] == [("get_weather", {"location": "Barcelona, Spain", "unit": "celsius"})]
    assert rest == think
    assert get("seed_oss").parse("<seed:think>still thinking " + call) == ([], "<seed:think>still thinking " + call)


def test_think_blocks_stay_in_the_text() -> None:
    """Reasoning is the pipeline's to split off; these dialects only remove their calls."""
    text = '<think>plan</think>[{"name": "f", "arguments": {}}]'
    assert get("xlam").parse(text)[1] == "<think>plan</think>"
    mm = '<think>x <tool_calls>\n{"name": "no", "arguments": {}}\n</tool_calls></think>ok <tool_calls>\n{"name": "yes", "arguments": {}}\n</tool_calls>'
    cands, rest = get("minimax").parse(mm)
    assert [c.name for c in cands] == ["yes"] and rest.startswith("<think>x <tool_calls>")


def test_functionary_single_bare_call() -> None:
    """v3.2's first call has no `>>>` (the prompt ended with it); alone, it is the whole answer."""
    cands, rest = get("functionary").parse('get_weather\n{"location": "Paris"}')
    assert [(c.name, c.arguments) for c in cands] == [("get_weather", '{"location": "Paris"}')] and rest == ""
    prose = 'Example\n{"a": 1} is a JSON object.'
    assert get("functionary").parse(prose) == ([], prose)


def test_functionary_first_call_bare_then_more() -> None:
    text = 'get_weather\n{"location": "Paris"}>>>get_time\n{"tz": "Europe/Paris"}'
    cands, rest = get("functionary").parse(text)
    assert [c.name for c in cands] == ["get_weather", "get_time"] and rest == ""
