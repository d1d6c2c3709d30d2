"""Capability resolution: version/size rules, registry facts, inheritance, layers and sources."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from agentcli.models import (
    EMULATION_STYLES,
    UNKNOWN_MODEL_WARNING,
    ModelCapability,
    get_capability,
    is_unknown,
    parse_model_id,
    registry,
    resolve_capability,
)
from agentcli.models.capability import FIELDS
from agentcli.models.families import FAMILIES, rule_for
from agentcli.models.learned import LearnedFact
from agentcli.wire.dialects import DIALECTS

SEED_FIELDS = {
    "native_tools", "parallel_tools", "max_output_tokens", "context_window",
    "supports_tool_choice_required", "emulation_style", "text_dialect", "edit_tool", "call_id_format",
}


def test_capability_has_the_seed_fields():
    assert {f.name for f in fields(ModelCapability)} == SEED_FIELDS


# --- version and size awareness -------------------------------------------------------------


@pytest.mark.parametrize(
    ("model_id", "native"),
    [
        ("llama2:13b", False),
        ("llama3:8b", False),  # Llama 3.0 below 70B: no tool training
        ("meta-llama/Meta-Llama-3-8B-Instruct", False),
        ("llama3:70b", True),
        ("llama3.1:8b", True),
        ("llama3.2:1b", True),
        ("llama3.3:70b", True),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", True),
        ("mistralai/Mistral-7B-Instruct-v0.2", False),
        ("mistralai/Mistral-7B-Instruct-v0.3", True),
        ("qwen:7b", False),
        ("qwen2.5:7b", True),
        ("phi4", False),
        ("phi4-mini", True),
        ("gemma3:27b", False),
        ("codellama:13b", False),
        ("deepseek-r1:14b", True),
        ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", False),
        ("glm4:9b", False),
        ("glm-4.5", True),
        ("granite3.3:8b", True),
        ("granite-code:8b", False),
        ("o1-mini", False),
        ("o1", True),
        ("chatgpt-4o-latest", False),
        ("gpt-4o", True),
        ("claude-2.1", False),
        ("claude-3-haiku-20240307", True),
    ],
)
def test_native_tools_by_version_and_size(model_id, native):
    assert get_capability(model_id).native_tools is native


def test_claude_generations_differ():
    c3 = get_capability("claude-3-opus-20240229")
    c35 = get_capability("claude-3-5-sonnet-20241022")
    c37 = get_capability("claude-3-7-sonnet-20250219")
    c4 = get_capability("claude-sonnet-4-20250514")
    assert (c3.max_output_tokens, c35.max_output_tokens, c37.max_output_tokens, c4.max_output_tokens) == (
        4096, 8192, 64000, 64000)
    assert get_capability("claude-opus-4-1-20250805").max_output_tokens == 32000
    for c in (c3, c35, c4):
        assert c.native_tools and c.parallel_tools
        assert c.context_window == 200_000 and c.emulation_style == "xml"


def test_llama_context_and_dialect_by_version_and_size():
    assert get_capability("llama3:8b").context_window == 8192
    assert get_capability("llama3.1:8b").context_window == 131_072
    assert get_capability("llama3.3:70b").text_dialect == "llama3_json"
    small = get_capability("llama3.2:3b-instruct-q4_K_M")
    assert (small.text_dialect, small.emulation_style) == ("pythonic", "pythonic")
    assert get_capability("llama3.2-vision:11b").text_dialect == "llama3_json"
    assert get_capability("llama4:scout").text_dialect == "pythonic"


def test_gpt_and_o_series():
    assert get_capability("gpt-4o-2024-08-06").context_window == 128_000
    assert get_capability("gpt-4-0613").context_window == 8192
    assert get_capability("gpt-4.1-mini").context_window == 1_047_576
    o3 = get_capability("o3-mini")
    assert not o3.supports_tool_choice_required
    assert get_capability("gpt-5").context_window == 400_000


@pytest.mark.parametrize(
    ("model_id", "dialect"),
    [
        ("qwen2.5:7b", "hermes"),
        ("Qwen/Qwen3-8B", "hermes"),
        ("qwen3-coder:30b", "qwen3_coder"),
        ("Qwen/Qwen3-Coder-480B-A35B-Instruct", "qwen3_coder"),
        ("llama3.1:8b", "llama3_json"),
        ("llama3.3:70b", "llama3_json"),
        ("llama3.2:3b", "pythonic"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct", "pythonic"),
        ("mistral-small3.2:24b", "mistral"),
        ("mixtral:8x22b", "mistral"),
        ("deepseek-ai/DeepSeek-V3", "deepseek_v3"),
        ("deepseek-ai/DeepSeek-V3.1", "deepseek_v31"),
        ("deepseek-v3.2-exp", "deepseek_v32"),
        ("moonshotai/Kimi-K2-Instruct", "kimi_k2"),
        ("zai-org/GLM-4.5-Air", "glm4_moe"),
        ("gpt-oss:20b", "harmony"),
        ("granite3.3:8b", "granite"),
        ("command-r-plus-08-2024", "command_r"),
        ("microsoft/Phi-4-mini-instruct", "phi4_mini"),
        ("NousResearch/Hermes-3-Llama-3.1-8B", "hermes"),
        ("hermes3:8b", "hermes"),
        ("MiniMaxAI/MiniMax-M2", "minimax_m2"),
        ("poolside/Laguna-XS.2", "laguna"),
        ("inclusionAI/Ling-2.6-1T", "glm4_moe"),
        ("PrimeIntellect/INTELLECT-3", "qwen3_coder"),
        ("ibm-granite/granite-4.2-8b", "qwen3_coder"),
        ("openbmb/MiniCPM5-1B", "minicpm5"),
        ("arcee-ai/Trinity-Mini", "hermes"),
    ],
)
def test_text_dialect(model_id, dialect):
    assert get_capability(model_id).text_dialect == dialect


def test_every_text_dialect_and_emulation_style_exists_on_the_wire():
    ids = [e.key for e in registry.entries()] + [
        "llama3.2:3b", "qwen3-coder:30b", "NousResearch/Hermes-3-Llama-3.1-8B", "MiniMaxAI/MiniMax-M1",
        "functiongemma", "meetkai/functionary-small-v3.2", "firefunction-v2", "Salesforce/xLAM-2-8b-fc-r",
        "internlm2_5-7b-chat", "jamba-1.5-mini", "hunyuan-a13b", "seed-oss-36b", "lfm2-1.2b",
    ]
    for model_id in ids:
        cap = get_capability(model_id)
        assert cap.text_dialect is None or cap.text_dialect in DIALECTS, (model_id, cap.text_dialect)
        assert cap.emulation_style in EMULATION_STYLES, model_id


def test_every_family_rule_loads_and_returns_known_fields():
    for family in FAMILIES:
        rule = rule_for(family)
        assert rule is not None
        out = rule(parse_model_id(family))
        assert set(out) <= set(FIELDS), family


# --- registry -----------------------------------------------------------------------------


def test_registry_facts_use_known_fields_and_types():
    for entry in registry.entries():
        resolve_capability(entry.spec, overrides=entry.facts)  # same validation as a profile


def test_registry_keys_are_unique_after_parsing():
    seen = {}
    for entry in registry.entries():
        s = entry.spec
        key = (s.family, s.version, s.size, frozenset(s.tags))
        assert key not in seen, (entry.key, seen.get(key))
        seen[key] = entry.key


def test_registry_matches_structurally_and_most_specific_wins():
    assert registry.lookup(parse_model_id("openrouter/openai/gpt-4o-mini")).key == "gpt-4o-mini"
    assert registry.lookup(parse_model_id("gpt-4o-2024-08-06")).key == "gpt-4o"
    assert registry.lookup(parse_model_id("gemini-2.5-flash-lite")).key == "gemini-2.5-flash-lite"
    assert registry.lookup(parse_model_id("gemini-2.5-flash")).key == "gemini-2.5-flash"
    assert registry.lookup(parse_model_id("gemma3:1b")).key == "gemma3:1b"
    assert registry.lookup(parse_model_id("gemma3:12b")).key == "gemma3"
    assert registry.lookup(parse_model_id("claude-3-5-haiku-20241022")).key == "claude-3-5-haiku"
    # a different minor version is a different model
    assert registry.lookup(parse_model_id("llama3.1:8b")).key == "llama3.1"
    assert registry.lookup(parse_model_id("claude-3-9-sonnet")) is None


def test_registry_sources():
    r = resolve_capability("gpt-4o")
    assert r.registry_key == "gpt-4o"
    assert r.sources["context_window"] == "registry"
    assert r.sources["native_tools"] == "family rule"
    assert r.source("text_dialect") == "default"


def test_context_window_written_in_the_id():
    r = resolve_capability("phi3:3.8b-mini-128k-instruct-q4_0")
    assert r.capability.context_window == 128 * 1024
    assert r.sources["context_window"] == "model id"
    assert get_capability("phi3:3.8b-mini-4k-instruct-q4_0").context_window == 4096


# --- custom fine-tunes ----------------------------------------------------------------------


def test_custom_finetune_inherits_base_family():
    r = resolve_capability("mycompany/llama3.3-code-ft")
    base = get_capability("llama3.3:70b")
    assert r.spec.custom and r.spec.family == "llama" and r.spec.version == (3, 3)
    assert r.capability.native_tools and r.capability.context_window == base.context_window
    assert r.capability.text_dialect == base.text_dialect
    assert r.sources["native_tools"] == "inherited from llama 3.3"
    assert r.sources["context_window"] == "inherited from llama 3.3"
    assert not r.unknown


def test_custom_finetune_of_old_base_inherits_its_limits():
    r = resolve_capability("mycompany/llama3-ft-v2")
    assert r.capability.native_tools is False
    assert r.sources["native_tools"] == "inherited from llama 3"


def test_hermes_overlay_changes_the_format_not_the_window():
    r = resolve_capability("NousResearch/Hermes-3-Llama-3.1-8B")
    assert r.capability.text_dialect == "hermes" and r.capability.emulation_style == "hermes"
    assert r.sources["text_dialect"] == "family rule (hermes)"
    assert r.capability.context_window == 131_072
    assert r.sources["context_window"] == "inherited from llama 3.1"


def test_openai_finetune_inherits_gpt_4o_mini():
    cap = get_capability("ft:gpt-4o-mini-2024-07-18:my-org::abc123")
    assert cap == get_capability("gpt-4o-mini")


# --- unknown models -----------------------------------------------------------------------


@pytest.mark.parametrize("model_id", ["my-model", "acme/widget-7b", "totally-new-thing:latest", ""])
def test_unknown_models_get_json_emulation(model_id):
    r = resolve_capability(model_id)
    assert r.unknown and is_unknown(r.spec)
    assert r.capability.native_tools is False
    assert r.capability.emulation_style == "json"
    assert r.capability.text_dialect is None
    assert all(r.source(f) == "default" for f in FIELDS)


def test_unknown_model_warning_text():
    text = UNKNOWN_MODEL_WARNING.format(model="acme/widget-7b")
    assert "'acme/widget-7b'" in text
    assert "JSON" in text and "[capabilities]" in text and "agent doctor --probe" in text


def test_known_family_is_not_unknown():
    assert not is_unknown(parse_model_id("llama3.3:70b"))
    assert not is_unknown(parse_model_id("starcoder2:7b"))


# --- layers: provider, learned, overrides ---------------------------------------------------


def test_provider_layer():
    plain = resolve_capability("llama3.1:8b")
    assert plain.capability.supports_tool_choice_required is True
    ollama = resolve_capability("llama3.1:8b", provider="ollama")
    assert ollama.capability.supports_tool_choice_required is False
    assert ollama.sources["supports_tool_choice_required"] == "provider"
    routed = resolve_capability("ollama/llama3.1:8b")
    assert routed.capability.supports_tool_choice_required is False
    # the profile's provider wins over an id prefix
    assert resolve_capability("ollama/llama3.1:8b", provider="openai").capability.supports_tool_choice_required


def test_learned_facts_beat_registry_and_family():
    learned = {"native_tools": LearnedFact(False, "probe", 1.0), "text_dialect": "hermes", "saw_dialect": "x"}
    r = resolve_capability("llama3.1:8b", learned=learned)
    assert r.capability.native_tools is False and r.sources["native_tools"] == "learned"
    assert r.capability.text_dialect == "hermes" and r.sources["text_dialect"] == "learned"


def test_learned_garbage_is_ignored():
    r = resolve_capability("gpt-4o", learned={"context_window": "lots", "native_tools": "yes", "nope": 1})
    assert r.capability.context_window == 128_000 and r.capability.native_tools is True


def test_profile_overrides_win_over_everything():
    learned = {"native_tools": False, "context_window": 4096}
    r = resolve_capability("llama3:8b", overrides={"native_tools": True, "context_window": 32768,
                                                    "emulation_style": "hermes"}, learned=learned)
    assert r.capability.native_tools is True and r.sources["native_tools"] == "profile override"
    assert r.capability.context_window == 32768 and r.sources["context_window"] == "profile override"
    assert r.capability.emulation_style == "hermes"
    assert r.source("max_output_tokens") != "profile override"  # fields not overridden keep their layer


def test_overrides_make_an_unknown_model_native():
    r = resolve_capability("acme/widget-7b", overrides={"native_tools": True, "parallel_tools": True})
    assert r.capability.native_tools and r.capability.parallel_tools
    assert r.unknown  # still unknown as a family; the profile supplied the facts


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"native_tool": True}, "native_tool"),
        ({"context_window": "big"}, "context_window"),
        ({"context_window": 0}, "context_window"),
        ({"max_output_tokens": True}, "max_output_tokens"),
        ({"native_tools": "yes"}, "native_tools"),
        ({"emulation_style": "markdown"}, "emulation_style"),
        ({"text_dialect": 3}, "text_dialect"),
    ],
)
def test_bad_overrides_raise_naming_the_key(overrides, key):
    with pytest.raises(ValueError, match=repr(key)):
        resolve_capability("gpt-4o", overrides=overrides)


def test_explain_lists_every_field_once():
    rows = resolve_capability("qwen3:8b", provider="ollama").explain()
    assert [r[0] for r in rows] == list(FIELDS)
    assert json.dumps(rows)  # JSON-friendly for `agent doctor --json`


def test_get_capability_accepts_a_spec_and_is_stable():
    spec = parse_model_id("gemini-2.5-pro")
    assert get_capability(spec) == get_capability("gemini-2.5-pro")
    cap = get_capability("gemini-2.5-pro")
    assert cap.context_window == 1_048_576 and cap.max_output_tokens == 65_536
    assert cap.to_dict()["context_window"] == 1_048_576


def test_every_alias_and_overlay_has_a_rule():
    from agentcli.models.families import ALIASES, OVERLAYS, WRAPPERS, _load

    for alias, (family, _tag) in ALIASES.items():
        assert family in FAMILIES, alias
    assert WRAPPERS <= set(FAMILIES)
    for target in OVERLAYS.values():
        assert callable(_load(target))


@pytest.mark.parametrize(
    ("model_id", "family", "version"),
    [
        ("NousResearch/Hermes-2-Pro-Llama-3-8B", "llama", (3,)),
        ("teknium/OpenHermes-2.5-Mistral-7B", "mistral", ()),
        ("NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO", "mixtral", ()),
    ],
)
def test_hermes_finetunes_of_any_base_speak_hermes(model_id, family, version):
    r = resolve_capability(model_id)
    assert (r.spec.family, r.spec.version, r.spec.custom) == (family, version, True)
    # Llama 3.0 8B alone has no tools; the Hermes tune adds them
    assert r.capability.native_tools is True
    assert r.capability.text_dialect == "hermes"


def test_known_model_ids_for_completion():
    from agentcli.models import known_model_ids

    ids = known_model_ids()
    assert ids[0] == "gpt-3.5-turbo" and "claude-sonnet-4" in ids and "llama3.3" in ids
    assert len(ids) == len(set(ids)) == len(registry.entries())


def test_emulation_styles_are_the_wire_shorthands():
    from agentcli.wire.dialects import SHORTHANDS

    assert sorted(EMULATION_STYLES) == sorted(SHORTHANDS)


def test_a_model_of_no_known_family_never_parses_the_table():
    """Provider facts and the id list come from the file as read; only a lookup by family parses
    every key (the offline demo model, and doctor on it, skip that)."""
    registry.load.cache_clear()
    try:
        resolved = resolve_capability("offline-demo", provider="scripted")
        assert resolved.registry_key is None and registry.load.cache_info().currsize == 0
        assert registry.known_model_ids()[0] in {e.key for e in registry.entries()}
        assert registry.provider_facts("ollama") == registry.load()[1]["ollama"] != {}
    finally:
        registry.load.cache_clear()
