"""Model families: the names the parser recognises and the rules that need code.

A family rule is `rules(spec) -> dict` of ModelCapability fields: version and size
thresholds that a data file cannot say well. Facts about one specific model belong
in ../data/known_models.json instead. Modules are imported on first use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentcli.core.lazy import LazyTable

if TYPE_CHECKING:
    from agentcli.models.spec import ModelSpec

FamilyRule = Callable[["ModelSpec"], dict[str, Any]]

# family -> "module:function". The only registry of family rules.
FAMILIES: dict[str, str] = {
    "gpt": "openai:gpt_rules",
    "o": "openai:o_series_rules",
    "gpt-oss": "gpt_oss:rules",
    "claude": "claude:rules",
    "gemini": "gemini:rules",
    "llama": "llama:rules",
    "codellama": "codellama:rules",
    "qwen": "qwen:rules",
    "mistral": "mistral:mistral_rules",
    "mixtral": "mistral:mixtral_rules",
    "deepseek": "deepseek:rules",
    "cogito": "deepseek:cogito_rules",
    "gemma": "gemma:rules",
    "phi": "phi:rules",
    "command-r": "command_r:rules",
    "granite": "granite:rules",
    "kimi": "kimi:rules",
    "glm": "glm:rules",
    "hermes": "hermes:rules",
    "grok": "others:grok_rules",
    "functionary": "others:functionary_rules",
    "firefunction": "others:firefunction_rules",
    "xlam": "others:xlam_rules",
    "internlm": "others:internlm_rules",
    "jamba": "others:jamba_rules",
    "hunyuan": "others:hunyuan_rules",
    "minimax": "others:minimax_rules",
    "step": "others:step_rules",
    "seed-oss": "others:seed_oss_rules",
    "lfm": "others:lfm_rules",
    "gigachat": "others:gigachat_rules",
    "longcat": "others:longcat_rules",
    "apertus": "others:apertus_rules",
    "ernie": "others:ernie_rules",
    "nemotron": "others:nemotron_rules",
    "dots": "others:dots_rules",
    "k2-horizon": "others:k2_horizon_rules",
    "hyperclovax": "others:hyperclovax_rules",
    "iquest": "others:iquest_rules",
    "inkling": "inkling:rules",
    "mimo": "others:mimo_rules",
    "pangu": "others:pangu_rules",
    "rwkv": "others:rwkv_rules",
    "cwm": "others:cwm_rules",
    "solar": "others:solar_rules",
    "intellect": "others:intellect_rules",
    "bailing": "others:bailing_rules",
    "laguna": "others:laguna_rules",
    "minicpm": "others:minicpm_rules",
    "kolibri": "others:kolibri_rules",
    "trinity": "others:trinity_rules",
    "starcoder": "others:no_native_rules",
    "yi": "others:no_native_rules",
    "falcon": "others:no_native_rules",
    "llava": "others:no_native_rules",
    "smollm": "others:no_native_rules",
    "olmo": "others:olmo_rules",
    "reka": "others:reka_rules",
}

# Tag -> "module:function" applied on top of the base family's rule: tool-call
# fine-tune lines built on many bases ("Hermes-3-Llama-3.1-8B", "Hermes-2-Pro-Mistral").
OVERLAYS: dict[str, str] = {
    "hermes": "hermes:overlay",
}

# How a family is written in ids -> (family, tag the alias adds). The parser
# searches these at word boundaries; longer aliases win over their prefixes.
ALIASES: dict[str, tuple[str, str | None]] = {
    "gpt-oss": ("gpt-oss", None),
    "chatgpt": ("gpt", "chatgpt"),
    "gpt": ("gpt", None),
    "codex": ("gpt", "codex"),  # "codex-mini-latest"
    "o": ("o", None),  # o1, o3-mini: only when a digit follows
    "claude": ("claude", None),
    "codellama": ("codellama", None),
    "code-llama": ("codellama", None),
    "llama": ("llama", None),
    "qwq": ("qwen", "qwq"),
    "qwen": ("qwen", None),
    "gemini": ("gemini", None),
    "codegemma": ("gemma", "code"),
    "functiongemma": ("gemma", "functiongemma"),
    "gemma": ("gemma", None),
    "phi": ("phi", None),
    "mixtral": ("mixtral", None),
    "mistral": ("mistral", None),
    "ministral": ("mistral", "ministral"),
    "codestral": ("mistral", "codestral"),
    "devstral": ("mistral", "devstral"),
    "magistral": ("mistral", "magistral"),
    "pixtral": ("mistral", "pixtral"),
    "deepseek": ("deepseek", None),
    "cogito": ("cogito", None),
    "command-r": ("command-r", None),
    "command-a": ("command-r", "a"),
    "granite": ("granite", None),
    "kimi": ("kimi", None),
    "chatglm": ("glm", "chatglm"),
    "glm": ("glm", None),
    "openhermes": ("hermes", None),
    "hermes": ("hermes", None),
    "grok": ("grok", None),
    "functionary": ("functionary", None),
    "firefunction": ("firefunction", None),
    "xlam": ("xlam", None),
    "internlm": ("internlm", None),
    "jamba": ("jamba", None),
    "hunyuan": ("hunyuan", None),
    "hy": ("hunyuan", "hy"),  # Tencent's HY3 / HY4 ids ("tencent/Hy3-preview")
    "minimax": ("minimax", None),
    "step": ("step", None),  # StepFun ("stepfun-ai/step3", "stepfun-ai/Step-3.5-Flash")
    "seed-oss": ("seed-oss", None),
    "lfm": ("lfm", None),
    "starcoder": ("starcoder", None),
    "yi": ("yi", None),
    "falcon": ("falcon", None),
    "llava": ("llava", None),
    "smollm": ("smollm", None),
    "olmo": ("olmo", None),
    "gigachat": ("gigachat", None),
    "longcat": ("longcat", None),
    "apertus": ("apertus", None),
    "ernie": ("ernie", None),
    "nemotron": ("nemotron", None),
    "reka": ("reka", None),
    "k2-horizon": ("k2-horizon", None),  # IFM ("IFM/K2-Horizon-7B")
    "dots": ("dots", None),  # rednote's dots.llm1 ("rednote-hilab/dots.llm1.inst")
    "hyperclovax": ("hyperclovax", None),  # NAVER ("naver-hyperclovax/HyperCLOVAX-SEED-Think-32B")
    "intern-s1": ("internlm", "s1"),  # InternLM's Intern-S1 writes InternLM2's action tokens
    "iquest-coder": ("iquest", "coder"),  # "IQuestLab/IQuest-Coder-V1-40B-Instruct"
    "mimo": ("mimo", None),  # Xiaomi ("XiaomiMiMo/MiMo-V2-Flash")
    "openpangu": ("pangu", None),  # "FreedomIntelligence/openPangu-Embedded-7B-V1.1"
    "pangu": ("pangu", None),
    "rwkv7": ("rwkv", None),  # "BlinkDL/rwkv7-g1"
    "rwkv": ("rwkv", None),
    "cwm": ("cwm", None),  # Meta's Code World Model ("facebook/cwm")
    "solar-open": ("solar", "open"),  # Upstage ("upstage/Solar-Open2-250B")
    "intellect": ("intellect", None),  # Prime Intellect ("PrimeIntellect/INTELLECT-3")
    "ling": ("bailing", "ling"),  # inclusionAI's Bailing MoE models ("inclusionAI/Ling-2.6-1T")
    "ring": ("bailing", "ring"),  # their reasoning line (Ring-*)
    "laguna": ("laguna", None),  # Poolside ("poolside/Laguna-XS.2")
    "minicpm": ("minicpm", None),  # OpenBMB ("openbmb/MiniCPM5-1B")
    "kolibri": ("kolibri", None),  # Kolibri 1 ("rty813/Kolibri-1-bf16")
    "trinity": ("trinity", None),  # Arcee ("arcee-ai/Trinity-Mini")
    "inkling": ("inkling", None),  # Thinking Machines ("thinkingmachines/Inkling-NVFP4")
}

# Fine-tune lines named after themselves but built on another family: when the id
# also names a base family ("Hermes-3-Llama-3.1-8B"), the base wins.
WRAPPERS: frozenset[str] = frozenset({"hermes"})

# Families whose ids write the version as "v0.3" / "v3" ("Mistral-7B-Instruct-v0.3",
# "deepseek-v3"). Elsewhere "-v2" is a fine-tune's own revision, not the model version.
V_VERSIONS: frozenset[str] = frozenset({
    "mistral", "mixtral", "deepseek", "functionary", "firefunction", "iquest", "mimo", "pangu",
})

# Publishers of the base models: their ids are not custom.
OFFICIAL_ORGS: frozenset[str] = frozenset({
    "meta-llama", "meta", "codellama", "qwen", "mistralai", "mistral", "google", "anthropic", "openai",
    "deepseek-ai", "deepseek", "microsoft", "moonshotai", "zai-org", "z-ai", "thudm", "ibm-granite",
    "ibm", "cohereforai", "coherelabs", "cohere", "x-ai", "nvidia", "bigcode", "01-ai", "tiiuae",
    "meetkai", "fireworks-ai", "salesforce", "internlm", "ai21labs", "tencent", "minimaxai",
    "bytedance-seed", "liquidai", "huggingfacetb", "allenai", "ai-sage", "meituan-longcat", "swiss-ai", "baidu",
    "deepcogito", "rednote-hilab", "naver-hyperclovax", "iquestlab", "xiaomimimo", "freedomintelligence",
    "openpangu", "blinkdl", "facebook", "upstage", "primeintellect", "inclusionai", "poolside", "openbmb",
    "stepfun-ai", "arcee-ai", "thinkingmachines",
})

# Re-publishers of quantised weights: same model, not a fine-tune.
REPACKAGERS: frozenset[str] = frozenset({
    "bartowski", "unsloth", "thebloke", "lmstudio-community", "mlx-community", "quantfactory",
    "second-state", "ggml-org", "maziyarpanahi", "mradermacher",
})

# "<prefix>/model" naming the runtime or router -> provider name.
PROVIDER_PREFIXES: dict[str, str] = {
    "ollama": "ollama",
    "ollama_chat": "ollama",
    "openrouter": "openrouter",
    "groq": "groq",
    "together": "together",
    "together_ai": "together",
    "togetherai": "together",
    "fireworks": "fireworks",
    "fireworks_ai": "fireworks",
    "deepinfra": "deepinfra",
    "bedrock": "bedrock",
    "vertex_ai": "vertex_ai",
    "azure": "azure",
    "lmstudio": "lmstudio",
    "lm_studio": "lmstudio",
    "vllm": "vllm",
    "hosted_vllm": "vllm",
    "gemini": "gemini",
    "hf.co": "ollama",  # Ollama's syntax for pulling a GGUF straight from Hugging Face
    "huggingface.co": "ollama",
}

# Bedrock ids: "[region.]<vendor>.<model>" ("us.anthropic.claude-3-5-sonnet-20241022-v2:0").
BEDROCK_VENDORS: tuple[str, ...] = ("anthropic", "meta", "mistral", "amazon", "cohere", "ai21", "deepseek", "qwen", "openai")

# Words that mark an id as a fine-tune even without an org.
FINETUNE_MARKERS: frozenset[str] = frozenset({
    "ft", "finetune", "finetuned", "fine", "tuned", "sft", "dpo", "orpo", "lora", "qlora", "merge",
    "merged", "abliterated", "uncensored",
})

_table: LazyTable[FamilyRule] = LazyTable(__name__, FAMILIES)
_load = _table.load


def rule_for(family: str) -> FamilyRule | None:
    """The rule function of `family`, or None for a family we know nothing about."""
    target = FAMILIES.get(family)
    return _load(target) if target else None


def overlays_for(spec: ModelSpec) -> list[tuple[str, FamilyRule]]:
    """(tag, rule) for each overlay tag the id carries, unless it is the family itself."""
    return [(tag, _load(t)) for tag, t in OVERLAYS.items() if tag in spec.tags and tag != spec.family]


def names() -> list[str]:
    return list(FAMILIES)
