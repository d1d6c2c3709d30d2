"""The model-id parser against ids as users really type them (API names, Ollama tags,
Hugging Face repos, router prefixes, fine-tunes)."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.models import ModelSpec, parse_model_id, registry

# id, family, version, size (billions), provider, org, custom
CASES = [
    ('gpt-4o', 'gpt', (4,), None, None, None, False),
    ('gpt-4o-2024-08-06', 'gpt', (4,), None, None, None, False),
    ('gpt-4o-mini-2024-07-18', 'gpt', (4,), None, None, None, False),
    ('gpt-4-turbo-2024-04-09', 'gpt', (4,), None, None, None, False),
    ('gpt-4-0613', 'gpt', (4,), None, None, None, False),
    ('gpt-3.5-turbo-0125', 'gpt', (3, 5), None, None, None, False),
    ('gpt-4.1-mini', 'gpt', (4, 1), None, None, None, False),
    ('gpt-5', 'gpt', (5,), None, None, None, False),
    ('chatgpt-4o-latest', 'gpt', (4,), None, None, None, False),
    ('openrouter/openai/gpt-4o', 'gpt', (4,), None, 'openrouter', 'openai', False),
    ('o1', 'o', (1,), None, None, None, False),
    ('o1-preview-2024-09-12', 'o', (1,), None, None, None, False),
    ('o3-mini', 'o', (3,), None, None, None, False),
    ('o4-mini-2025-04-16', 'o', (4,), None, None, None, False),
    ('claude-3-5-sonnet-20241022', 'claude', (3, 5), None, None, None, False),
    ('claude-3-5-sonnet-latest', 'claude', (3, 5), None, None, None, False),
    ('claude-3.5-sonnet', 'claude', (3, 5), None, None, None, False),
    ('anthropic/claude-3.5-sonnet', 'claude', (3, 5), None, None, 'anthropic', False),
    ('claude-3-opus-20240229', 'claude', (3,), None, None, None, False),
    ('claude-3-haiku-20240307', 'claude', (3,), None, None, None, False),
    ('claude-3-7-sonnet-20250219', 'claude', (3, 7), None, None, None, False),
    ('claude-sonnet-4-20250514', 'claude', (4,), None, None, None, False),
    ('claude-opus-4-1-20250805', 'claude', (4, 1), None, None, None, False),
    ('claude-opus-4.1', 'claude', (4, 1), None, None, None, False),
    ('claude-2.1', 'claude', (2, 1), None, None, None, False),
    ('us.anthropic.claude-3-5-sonnet-20241022-v2:0', 'claude', (3, 5), None, 'bedrock', 'anthropic', False),
    ('gemini-1.5-pro', 'gemini', (1, 5), None, None, None, False),
    ('gemini-2.0-flash-001', 'gemini', (2, 0), None, None, None, False),
    ('gemini-2.5-pro', 'gemini', (2, 5), None, None, None, False),
    ('gemini-2.5-flash-lite', 'gemini', (2, 5), None, None, None, False),
    ('models/gemini-1.5-flash-8b', 'gemini', (1, 5), 8.0, None, None, False),
    ('google/gemma-3-27b-it', 'gemma', (3,), 27.0, None, 'google', False),
    ('gemma3:27b', 'gemma', (3,), 27.0, None, None, False),
    ('gemma2:9b', 'gemma', (2,), 9.0, None, None, False),
    ('gemma3n:e4b', 'gemma', (3,), 4.0, None, None, False),
    ('llama3.3:70b', 'llama', (3, 3), 70.0, None, None, False),
    ('llama3.2:3b-instruct-q4_K_M', 'llama', (3, 2), 3.0, None, None, False),
    ('llama3.1:8b', 'llama', (3, 1), 8.0, None, None, False),
    ('llama3:8b', 'llama', (3,), 8.0, None, None, False),
    ('llama3:70b', 'llama', (3,), 70.0, None, None, False),
    ('llama2:13b', 'llama', (2,), 13.0, None, None, False),
    ('llama3.2-vision:11b', 'llama', (3, 2), 11.0, None, None, False),
    ('meta-llama/Llama-3.3-70B-Instruct', 'llama', (3, 3), 70.0, None, 'meta-llama', False),
    ('meta-llama/Meta-Llama-3.1-405B-Instruct', 'llama', (3, 1), 405.0, None, 'meta-llama', False),
    ('meta-llama/Llama-4-Scout-17B-16E-Instruct', 'llama', (4,), 17.0, None, 'meta-llama', False),
    ('llama4:maverick', 'llama', (4,), None, None, None, False),
    ('ollama/llama3.3:70b', 'llama', (3, 3), 70.0, 'ollama', None, False),
    ('groq/llama-3.3-70b-versatile', 'llama', (3, 3), 70.0, 'groq', None, False),
    ('groq/llama3-70b-8192', 'llama', (3,), 70.0, 'groq', None, False),
    ('together/meta-llama/Llama-3.3-70B-Instruct-Turbo', 'llama', (3, 3), 70.0, 'together', 'meta-llama', False),
    ('fireworks/accounts/fireworks/models/llama-v3p1-70b-instruct', 'llama', (3, 1), 70.0, 'fireworks', None, False),
    ('openrouter/meta-llama/llama-3.3-70b-instruct:free', 'llama', (3, 3), 70.0, 'openrouter', 'meta-llama', False),
    ('hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M', 'llama', (3, 2), 3.0, 'ollama', 'bartowski', False),
    ('hf.co/unsloth/Qwen3-8B-GGUF:Q8_0', 'qwen', (3,), 8.0, 'ollama', 'unsloth', False),
    ('mycompany/llama3.3-code-ft', 'llama', (3, 3), None, None, 'mycompany', True),
    ('mycompany/llama3-ft-v2', 'llama', (3,), None, None, 'mycompany', True),
    ('NousResearch/Hermes-3-Llama-3.1-8B', 'llama', (3, 1), 8.0, None, 'NousResearch', True),
    ('hermes3:8b', 'hermes', (3,), 8.0, None, None, False),
    ('codellama:13b-instruct', 'codellama', (), 13.0, None, None, False),
    ('codellama/CodeLlama-7b-Instruct-hf', 'codellama', (), 7.0, None, 'codellama', False),
    ('Qwen/Qwen2.5-7B-Instruct', 'qwen', (2, 5), 7.0, None, 'Qwen', False),
    ('qwen2.5-coder:7b', 'qwen', (2, 5), 7.0, None, None, False),
    ('Qwen/Qwen2.5-Coder-32B-Instruct', 'qwen', (2, 5), 32.0, None, 'Qwen', False),
    ('qwen2.5:0.5b', 'qwen', (2, 5), 0.5, None, None, False),
    ('qwen3:32b', 'qwen', (3,), 32.0, None, None, False),
    ('Qwen/Qwen3-235B-A22B', 'qwen', (3,), 235.0, None, 'Qwen', False),
    ('qwen3-coder:30b', 'qwen', (3,), 30.0, None, None, False),
    ('Qwen/Qwen3-Coder-480B-A35B-Instruct', 'qwen', (3,), 480.0, None, 'Qwen', False),
    ('qwen3:30b-a3b-instruct-2507-q4_K_M', 'qwen', (3,), 30.0, None, None, False),
    ('qwq:32b', 'qwen', (), 32.0, None, None, False),
    ('qwen2.5vl:7b', 'qwen', (2, 5), 7.0, None, None, False),
    ('mistral:7b', 'mistral', (), 7.0, None, None, False),
    ('mistralai/Mistral-7B-Instruct-v0.3', 'mistral', (0, 3), 7.0, None, 'mistralai', False),
    ('mistralai/Mistral-7B-Instruct-v0.2', 'mistral', (0, 2), 7.0, None, 'mistralai', False),
    ('mistral-large-latest', 'mistral', (), None, None, None, False),
    ('mistral-large-2411', 'mistral', (), None, None, None, False),
    ('mistral-small3.2:24b', 'mistral', (3, 2), 24.0, None, None, False),
    ('mistralai/Mistral-Small-3.1-24B-Instruct-2503', 'mistral', (3, 1), 24.0, None, 'mistralai', False),
    ('mistral-nemo:12b', 'mistral', (), 12.0, None, None, False),
    ('codestral-latest', 'mistral', (), None, None, None, False),
    ('devstral:24b', 'mistral', (), 24.0, None, None, False),
    ('ministral-8b-latest', 'mistral', (), 8.0, None, None, False),
    ('mixtral-8x7b', 'mixtral', (), 56.0, None, None, False),
    ('mixtral:8x22b', 'mixtral', (), 176.0, None, None, False),
    ('mistralai/Mixtral-8x7B-Instruct-v0.1', 'mixtral', (0, 1), 56.0, None, 'mistralai', False),
    ('open-mixtral-8x22b', 'mixtral', (), 176.0, None, None, False),
    ('deepseek-chat', 'deepseek', (), None, None, None, False),
    ('deepseek-reasoner', 'deepseek', (), None, None, None, False),
    ('deepseek-ai/DeepSeek-V3', 'deepseek', (3,), None, None, 'deepseek-ai', False),
    ('deepseek-ai/DeepSeek-V3.1', 'deepseek', (3, 1), None, None, 'deepseek-ai', False),
    ('deepseek-v3.2-exp', 'deepseek', (3, 2), None, None, None, False),
    ('deepseek-r1:14b', 'deepseek', (), 14.0, None, None, False),
    ('deepseek-ai/DeepSeek-R1-0528', 'deepseek', (), None, None, 'deepseek-ai', False),
    ('deepseek-ai/DeepSeek-R1-Distill-Qwen-32B', 'deepseek', (), 32.0, None, 'deepseek-ai', False),
    ('deepseek-coder-v2:16b', 'deepseek', (2,), 16.0, None, None, False),
    ('phi4', 'phi', (4,), None, None, None, False),
    ('phi4-mini', 'phi', (4,), None, None, None, False),
    ('microsoft/Phi-4-mini-instruct', 'phi', (4,), None, None, 'microsoft', False),
    ('microsoft/Phi-3.5-mini-instruct', 'phi', (3, 5), None, None, 'microsoft', False),
    ('phi3:3.8b-mini-128k-instruct-q4_0', 'phi', (3,), 3.8, None, None, False),
    ('phi4-reasoning:14b', 'phi', (4,), 14.0, None, None, False),
    ('command-r:35b', 'command-r', (), 35.0, None, None, False),
    ('command-r-plus-08-2024', 'command-r', (), None, None, None, False),
    ('CohereForAI/c4ai-command-r-plus', 'command-r', (), None, None, 'CohereForAI', False),
    ('command-r7b-12-2024', 'command-r', (), 7.0, None, None, False),
    ('command-a-03-2025', 'command-r', (), None, None, None, False),
    ('granite3.3:8b', 'granite', (3, 3), 8.0, None, None, False),
    ('ibm-granite/granite-3.1-8b-instruct', 'granite', (3, 1), 8.0, None, 'ibm-granite', False),
    ('granite-code:8b', 'granite', (), 8.0, None, None, False),
    ('granite4:tiny-h', 'granite', (4,), None, None, None, False),
    ('kimi-k2-instruct-0905', 'kimi', (), None, None, None, False),
    ('moonshotai/Kimi-K2-Instruct', 'kimi', (), None, None, 'moonshotai', False),
    ('moonshotai/kimi-k2-thinking', 'kimi', (), None, None, 'moonshotai', False),
    ('glm-4.5', 'glm', (4, 5), None, None, None, False),
    ('zai-org/GLM-4.5-Air', 'glm', (4, 5), None, None, 'zai-org', False),
    ('glm-4.6', 'glm', (4, 6), None, None, None, False),
    ('glm4:9b', 'glm', (4,), 9.0, None, None, False),
    ('THUDM/glm-4-9b-chat', 'glm', (4,), 9.0, None, 'THUDM', False),
    ('gpt-oss:20b', 'gpt-oss', (), 20.0, None, None, False),
    ('openai/gpt-oss-120b', 'gpt-oss', (), 120.0, None, 'openai', False),
    ('x-ai/grok-4', 'grok', (4,), None, None, 'x-ai', False),
    ('grok-3-mini', 'grok', (3,), None, None, None, False),
    ('MiniMaxAI/MiniMax-M2', 'minimax', (), None, None, 'MiniMaxAI', False),
    ('ByteDance-Seed/Seed-OSS-36B-Instruct', 'seed-oss', (), 36.0, None, 'ByteDance-Seed', False),
    ('ft:gpt-4o-mini-2024-07-18:my-org::abc123', 'gpt', (4,), None, None, 'my-org', True),
    ('my-model', 'unknown', (), None, None, None, False),
    ('acme/widget-7b', 'unknown', (), 7.0, None, 'acme', True),
]


@pytest.mark.parametrize(("model_id", "family", "version", "size", "provider", "org", "custom"), CASES, ids=[c[0] for c in CASES])
def test_parse_table(model_id, family, version, size, provider, org, custom):
    spec = parse_model_id(model_id)
    assert (spec.family, spec.version, spec.size, spec.provider, spec.org, spec.custom) == (
        family,
        version,
        size,
        provider,
        org,
        custom,
    )
    assert spec.raw == model_id


def test_table_is_broad():
    assert len(CASES) >= 60
    families = {c[1] for c in CASES}
    for f in ("gpt", "o", "claude", "gemini", "gemma", "llama", "codellama", "qwen", "mistral", "mixtral",
              "deepseek", "phi", "command-r", "granite", "kimi", "glm", "gpt-oss", "unknown"):
        assert f in families, f


@pytest.mark.parametrize(
    ("model_id", "variant", "tags"),
    [
        ("claude-3-5-sonnet-20241022", "sonnet", ("sonnet",)),
        ("claude-sonnet-4-20250514", "sonnet", ("sonnet",)),
        ("gpt-4o-mini", "o", ("o", "mini")),
        ("o3-mini", "mini", ("mini",)),
        ("qwen2.5-coder:7b", "coder", ("coder",)),
        ("llama3.2:3b-instruct-q4_K_M", "instruct", ("instruct",)),
        ("llama3.2-vision:11b", "vision", ("vision",)),
        ("codestral-latest", "codestral", ("codestral", "latest")),
        ("qwq:32b", "qwq", ("qwq",)),
        ("mycompany/llama3.3-code-ft", "code", ("code", "ft")),
        ("llama3.3:70b", None, ()),
    ],
)
def test_variant_and_tags(model_id, variant, tags):
    spec = parse_model_id(model_id)
    assert spec.variant == variant
    assert spec.tags == tags


@pytest.mark.parametrize(
    ("model_id", "quant"),
    [
        ("llama3.2:3b-instruct-q4_K_M", "q4_k_m"),
        ("hf.co/bartowski/Llama-3.2-3B-Instruct-GGUF:Q4_K_M", "q4_k_m"),
        ("qwen2.5:7b-instruct-q8_0", "q8_0"),
        ("llama3.1:8b-instruct-fp16", "fp16"),
        ("hf.co/bartowski/Qwen2.5-7B-Instruct-GGUF:IQ4_XS", "iq4_xs"),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "fp8"),
        ("Qwen/Qwen2.5-7B-Instruct-AWQ", "awq"),
        ("llama3.3:70b", None),
    ],
)
def test_quantization(model_id, quant):
    spec = parse_model_id(model_id)
    assert spec.quantization == quant
    assert spec.family in ("llama", "qwen")


@pytest.mark.parametrize(
    ("model_id", "size", "label", "active"),
    [
        ("mixtral-8x7b", 56.0, "8x7b", None),
        ("mixtral:8x22b", 176.0, "8x22b", None),
        ("Qwen/Qwen3-30B-A3B", 30.0, "30b", 3.0),
        ("qwen2.5:1.5b", 1.5, "1.5b", None),
        ("smollm2:135m", 0.135, "135m", None),
        ("gemma3n:e2b", 2.0, "e2b", None),
        ("command-r7b-12-2024", 7.0, "7b", None),
    ],
)
def test_sizes(model_id, size, label, active):
    spec = parse_model_id(model_id)
    assert spec.size == pytest.approx(size)
    assert spec.size_label == label
    assert spec.active_size == active


@pytest.mark.parametrize(
    ("model_id", "snapshot"),
    [
        ("gpt-4o-2024-08-06", "2024-08-06"),
        ("claude-3-5-sonnet-20241022", "20241022"),
        ("claude-3-5-sonnet-v2@20241022", "20241022"),
        ("command-r-plus-08-2024", "08-2024"),
        ("gpt-4-0613", "0613"),
        ("mistral-large-2411", "2411"),
        ("kimi-k2-instruct-0905", "0905"),
    ],
)
def test_snapshot_is_not_a_version(model_id, snapshot):
    spec = parse_model_id(model_id)
    assert spec.snapshot == snapshot
    assert all(v < 100 for v in spec.version)


def test_finetune_revision_is_not_a_version():
    assert parse_model_id("mycompany/llama3-ft-v2").version == (3,)
    assert parse_model_id("mycompany/qwen2.5-7b-sft-v3").version == (2, 5)
    # ...but families that write versions as v0.3 / v3 keep them
    assert parse_model_id("mistralai/Mistral-7B-Instruct-v0.3").version == (0, 3)
    assert parse_model_id("deepseek-v3").version == (3,)


def test_claude_spellings_agree():
    forms = ["claude-3-5-sonnet-20241022", "claude-3.5-sonnet", "anthropic/claude-3.5-sonnet",
             "openrouter/anthropic/claude-3.5-sonnet", "us.anthropic.claude-3-5-sonnet-20241022-v2:0"]
    specs = [parse_model_id(f) for f in forms]
    assert {(s.family, s.version, s.variant) for s in specs} == {("claude", (3, 5), "sonnet")}
    assert parse_model_id("claude-opus-4-1-20250805").version == parse_model_id("claude-opus-4.1").version == (4, 1)


def test_official_orgs_are_not_custom_others_are():
    for model_id in ("meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-8B", "mistralai/Mistral-Nemo-Instruct-2407",
                     "google/gemma-2-9b-it", "microsoft/phi-4", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-20b",
                     "anthropic/claude-3-haiku"):
        assert parse_model_id(model_id).custom is False, model_id
    for model_id in ("mycompany/llama3.3-code-ft", "someone/Qwen2.5-7B-Instruct", "hf.co/acme/Llama-3.1-8B-GGUF:Q4_0"):
        assert parse_model_id(model_id).custom is True, model_id
    # quantised re-uploads are the same model
    assert parse_model_id("hf.co/unsloth/Qwen3-8B-GGUF:Q8_0").custom is False
    # fine-tune markers without an org
    assert parse_model_id("llama3.1-8b-sft").custom is True


def test_openai_finetune_id():
    spec = parse_model_id("ft:gpt-4o-mini-2024-07-18:my-org:support:abc123")
    assert (spec.family, spec.version, spec.custom, spec.org) == ("gpt", (4,), True, "my-org")
    assert "mini" in spec.tags


def test_to_dict_is_json_friendly():
    spec = parse_model_id("ollama/llama3.3:70b")
    d = spec.to_dict()
    assert d["version"] == [3, 3]
    assert d["size"] == 70.0 and d["provider"] == "ollama" and d["raw"] == "ollama/llama3.3:70b"
    assert json.loads(json.dumps(d)) == d
    assert set(d) >= {"family", "version", "variant", "size", "provider", "org", "custom", "quantization", "raw"}


def test_spec_is_frozen_and_slotted():
    spec = parse_model_id("gpt-4o")
    assert isinstance(spec, ModelSpec)
    with pytest.raises(AttributeError):
        spec.family = "x"  # type: ignore[misc]
    assert not hasattr(spec, "__dict__")
    assert spec.base == "gpt 4 o"
    assert parse_model_id("llama3.3:70b").base == "llama 3.3"


@pytest.mark.parametrize("model_id", ["", "   ", "/", ":", "::::", "a/b/c/d/e", "-", "....", "ollama/", "hf.co/"])
def test_degenerate_ids_do_not_raise(model_id):
    spec = parse_model_id(model_id)
    assert spec.family == "unknown"


def test_every_registry_key_parses_to_a_known_family():
    for entry in registry.entries():
        assert entry.spec.family != "unknown", entry.key


HOSTILE = {  # shapes that make a backtracking parser explode, as functions of their size
    "quant": lambda n: "q4_" * n,
    "dashes": lambda n: "llama" + "-" * (4 * n) + "x",
    "dots": lambda n: "1." * (2 * n) + "b",
    "sizes": lambda n: "8x" * n + "7b",
    "letters": lambda n: "a" * (10 * n),
    "versions": lambda n: "v" + "0." * (2 * n),
    "orgs": lambda n: "/".join(["org"] * n),
    "digits": lambda n: "20" * (2 * n),
    "tags": lambda n: ":".join(["q4_k_m"] * n),
}


@pytest.mark.parametrize("shape", list(HOSTILE))
def test_hostile_ids_cost_linear_work(shape, work):
    """Counted, not timed: the parse's function calls grow linearly with the id."""
    build = HOSTILE[shape]
    work.assert_linear(lambda n: parse_model_id(build(n)), 500)


def _nested_unbounded(pattern: str) -> bool:
    """An unbounded repeat inside another (`(a+)*`): the shape of catastrophic backtracking."""
    from re import _constants as c  # type: ignore[attr-defined]
    from re import _parser as p

    def walk(items, inside: bool) -> bool:  # noqa: ANN001
        for op, av in items:
            if op in (c.MAX_REPEAT, c.MIN_REPEAT):
                lo, hi, sub = av
                unbounded = hi == c.MAXREPEAT
                if unbounded and inside:
                    return True
                if walk(sub, inside or unbounded):
                    return True
            elif op is c.SUBPATTERN and walk(av[-1], inside):
                return True
            elif op is c.BRANCH and any(walk(b, inside) for b in av[1]):
                return True
        return False

    return walk(p.parse(pattern), False)


def test_no_regex_in_the_parser_can_backtrack_catastrophically():
    import re

    from agentcli.models import parser

    patterns = [v for v in vars(parser).values() if isinstance(v, re.Pattern)]
    assert len(patterns) > 10
    assert _nested_unbounded(r"(a+)*b") and not _nested_unbounded(r"(\d{1,3})+x")
    assert [p.pattern for p in patterns if _nested_unbounded(p.pattern)] == []


def test_parse_work_per_id_is_bounded(work):
    """Counted, not timed: every known id parses in a bounded number of calls (no pathological case)."""
    from agentcli.models.parser import _parse

    ids = [c[0] for c in CASES]
    _parse.cache_clear()
    per_id = [work.calls(_parse.__wrapped__, model_id) for model_id in ids]
    assert max(per_id) <= 4 * (sum(per_id) / len(per_id)), max(per_id)


# The family scan replaced a regex that tried every alias, longest first, at places no letter or
# digit precedes, with no letter after it ("o" only before a digit). That regex is the oracle here.
def _family_oracle() -> re.Pattern[str]:
    from agentcli.models.families import ALIASES

    alts = ["o(?=\\d)" if a == "o" else re.escape(a) for a in sorted(ALIASES, key=len, reverse=True)]
    return re.compile(r"(?<![a-z0-9])(" + "|".join(alts) + r")(?![a-z])")


def _alias_pieces() -> list[str]:
    from agentcli.models.families import ALIASES

    return sorted(ALIASES) + ["-", ".", "/", ":", "_", "1", "3", "x", "b", "²", "٣", "A", "o"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_alias_pieces()) | st.text("ao3-.lmqx", max_size=3), max_size=8).map("".join))
def test_the_family_scan_finds_what_the_alternation_regex_found(name):
    from agentcli.models.parser import _families_in

    want = [(m.start(), m.end(), m.group(1)) for m in _family_oracle().finditer(name)]
    assert list(_families_in(name)) == want


def test_the_family_scan_needs_no_regex_of_its_own():
    """Its point: the run's first model id no longer compiles a 77-way alternation."""
    import agentcli.models.parser as parser

    assert not any(isinstance(v, re.Pattern) and len(v.pattern) > 300 for v in vars(parser).values())
