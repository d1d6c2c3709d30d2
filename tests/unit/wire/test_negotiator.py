"""The Negotiator decision table."""

from __future__ import annotations

import pytest

from agentcli.config.schema import ToolsConfig
from agentcli.models.capability import ModelCapability
from agentcli.wire.dialects import DIALECTS
from agentcli.wire.negotiator import negotiate

NATIVE = ModelCapability(native_tools=True, parallel_tools=True, context_window=128_000)
PLAIN = ModelCapability(native_tools=False, context_window=8_192, emulation_style="hermes")


def plan(api="openai", cap=NATIVE, learned=None, **cfg):
    return negotiate(api=api, capability=cap, tools_cfg=ToolsConfig(**cfg), learned=learned)


def test_native_model_on_native_api():
    p = plan()
    assert (p.native_tools, p.dialect, p.result, p.tool_choice, p.parallel) == (True, None, "native", "auto", True)
    assert p.parsers == tuple(DIALECTS)
    assert p.strict is True and not p.compact
    assert any("natively" in n for n in p.notes)


def test_model_without_native_tools_is_emulated_in_its_style():
    p = plan("ollama", PLAIN)
    assert (p.native_tools, p.dialect, p.result) == (False, "hermes", "hermes")
    assert p.parsers[0] == "hermes" and set(p.parsers) == set(DIALECTS)
    assert p.compact  # 8k context
    assert p.strict is False


def test_text_dialect_goes_first_and_is_used_for_emulation():
    cap = ModelCapability(native_tools=False, emulation_style="json", text_dialect="qwen3_coder",
                          context_window=32_000)
    p = plan("openai", cap)
    assert p.dialect == "qwen3_coder" and p.parsers[0] == "qwen3_coder"
    # a parse-only text dialect is tried first but emulation uses the style
    cap = ModelCapability(native_tools=True, text_dialect="deepseek_v3", context_window=64_000)
    p = plan("openai", cap)
    assert p.native_tools and p.parsers[0] == "deepseek_v3"


def test_learned_facts_override_capability():
    p = plan(learned={"native_tools": False})
    assert not p.native_tools and p.dialect == "json_block"
    assert any("learned" in n for n in p.notes)
    p = plan("ollama", PLAIN, learned={"text_dialect": "mistral"})
    assert p.dialect == "mistral" and p.parsers[0] == "mistral"
    assert plan(learned={"strict": False}).strict is False


@pytest.mark.parametrize(("shorthand", "dialect"), [
    ("hermes", "hermes"), ("json", "json_block"), ("xml", "claude_xml"), ("pythonic", "pythonic"),
    ("mistral", "mistral"),
])
def test_tool_format_shorthand_emulates_regardless_of_provider(shorthand, dialect):
    for api in ("openai", "anthropic", "gemini", "ollama"):
        p = plan(api, tool_format=shorthand)
        assert (p.native_tools, p.dialect, p.parsers[0], p.result) == (False, dialect, dialect, dialect)


def test_tool_format_native_forces_native():
    p = plan("ollama", PLAIN, tool_format="native")
    assert p.native_tools and p.result == "native"


def test_explicit_fields_beat_shorthand():
    p = plan(tool_format="hermes", definition_format="native")
    assert p.native_tools
    assert p.parsers[0] == "hermes"  # the shorthand still says what to try first
    p = plan(definition_format="pythonic", call_parser="claude_xml", result_format="json")
    assert (p.native_tools, p.dialect, p.parsers, p.result) == (False, "pythonic", ("claude_xml",), "json_block")


def test_api_name_as_definition_format_means_native():
    p = plan("ollama", PLAIN, definition_format="openai", result_format="openai")
    assert p.native_tools and p.result == "native"
    assert any("speaks ollama" in n for n in p.notes)


def test_call_parser_native_only():
    assert plan(call_parser="native").parsers == ()
    p = plan("ollama", PLAIN, call_parser="native")
    assert p.parsers == ("hermes",)  # emulated tools can only be read from text


def test_impossible_result_combinations_are_noted():
    p = plan(result_format="hermes")
    assert p.result == "native" and any("ignored" in n for n in p.notes)
    p = plan("ollama", PLAIN, result_format="native")
    assert p.result == "hermes"


@pytest.mark.parametrize(("field", "value"), [
    ("definition_format", "yaml"), ("call_parser", "nope"), ("result_format", "binary"), ("tool_format", "toml"),
])
def test_unknown_format_names_raise_listing_valid(field, value):
    with pytest.raises(ValueError) as exc:
        plan(**{field: value})
    assert value in str(exc.value) and "hermes" in str(exc.value)


def test_parse_only_dialect_cannot_define_tools():
    with pytest.raises(ValueError, match="parse-only"):
        plan(definition_format="deepseek_v3")
    assert plan(call_parser="deepseek_v3").parsers == ("deepseek_v3",)


def test_unknown_api_raises():
    with pytest.raises(ValueError, match="unknown api"):
        plan("carrier_pigeon")


def test_tool_choice_degrades_when_unsupported():
    cap = ModelCapability(native_tools=True, supports_tool_choice_required=False, context_window=32_000)
    assert plan(cap=cap, tool_choice="required").tool_choice == "auto"
    assert plan(tool_choice="required").tool_choice == "required"
    assert plan(tool_choice="read_file").tool_choice == "read_file"
    assert plan("ollama", tool_choice="required").tool_choice == "auto"  # /api/chat cannot force a call
    assert plan("ollama", tool_choice="none").tool_choice == "none"


def test_parallel_and_strict_settings():
    cap = ModelCapability(native_tools=True, parallel_tools=False, context_window=32_000)
    assert plan(cap=cap).parallel is False
    assert plan(parallel=False).parallel is False
    assert plan(strict=False).strict is False
    assert plan("anthropic").strict is False
    assert plan("openai", tool_format="hermes").strict is False


def test_every_decision_has_a_note():
    p = plan("ollama", PLAIN)
    assert len(p.notes) >= 4 and all(isinstance(n, str) and n for n in p.notes)


def test_capability_object_can_be_minimal():
    class Cap:
        native_tools = False

    p = negotiate(api="openai", capability=Cap(), tools_cfg=ToolsConfig())
    assert p.dialect == "json_block" and not p.compact


def test_ladder_order_is_one_table():
    from agentcli.wire.negotiator import EMULATION_LADDER, next_emulation_style

    assert EMULATION_LADDER == ("hermes", "json_block", "claude_xml", "pythonic")
    assert all(d in DIALECTS for d in EMULATION_LADDER)
    steps, style = [], "hermes"
    while style is not None:
        steps.append(style)
        style = next_emulation_style(style)
    assert tuple(steps) == EMULATION_LADDER  # ends, never cycles
    assert next_emulation_style("json") == "claude_xml"  # shorthands resolve first
    assert next_emulation_style("qwen3_coder") == "hermes"  # off the ladder: start at the top


def test_learned_emulation_style_beats_the_models_own_dialect():
    cap = ModelCapability(native_tools=False, emulation_style="hermes", text_dialect="hermes", context_window=32_000)
    p = plan("ollama", cap, learned={"emulation_style": "json_block"})
    assert p.dialect == "json_block" and p.parsers[0] == "json_block" and p.result == "json_block"
    assert any("kept failing" in n for n in p.notes)
    assert plan("ollama", cap, tool_format="hermes", learned={"emulation_style": "json_block"}).dialect == "hermes"


def test_style_is_pinned_only_by_explicit_settings():
    from agentcli.wire.negotiator import style_is_pinned

    assert not style_is_pinned(ToolsConfig())
    assert not style_is_pinned(ToolsConfig(tool_format="auto"))
    assert style_is_pinned(ToolsConfig(tool_format="hermes"))
    assert style_is_pinned(ToolsConfig(definition_format="json"))
