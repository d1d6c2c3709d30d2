"""Smaller families whose rule is a fixed set of facts (one table, one function each)."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

_TOOLS = {"native_tools": True}


def grok_rules(spec: ModelSpec) -> dict[str, Any]:
    """xAI Grok: OpenAI-style tools; Grok 4 always reasons, with a 256k window."""
    if spec.version >= (4,):
        return {**_TOOLS, "parallel_tools": True, "context_window": 256_000}
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072}


def functionary_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072 if spec.version >= (3, 1) else 8_192, "text_dialect": "functionary"}


def firefunction_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "parallel_tools": True, "context_window": 8_192, "text_dialect": "firefunction"}


def xlam_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "parallel_tools": True, "context_window": 32_768, "text_dialect": "xlam"}


def internlm_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 32_768, "text_dialect": "internlm2"}


def jamba_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 262_144, "text_dialect": "jamba"}


def hunyuan_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 262_144, "text_dialect": "hunyuan"}


def minimax_rules(spec: ModelSpec) -> dict[str, Any]:
    """MiniMax M2 (and M2.1, M2.5...) changed the call format from M1's; M3 prefixes every tag with
    a namespace token. M3's window is taken as M2's until its card says otherwise."""
    variant = spec.variant or ""
    if variant.startswith("m3"):
        return {**_TOOLS, "context_window": 196_608, "text_dialect": "minimax_m3"}
    m2 = variant.startswith("m2") or spec.has("m2")
    return {**_TOOLS, "context_window": 196_608 if m2 else 1_000_000, "text_dialect": "minimax_m2" if m2 else "minimax"}


def step_rules(spec: ModelSpec) -> dict[str, Any]:
    """StepFun: Step-3 writes steptml invoke tags inside fullwidth-bar tokens; Step-3.5 moved to
    Qwen3-Coder's XML calls. Earlier and non-chat lines (Step-Audio, Step1X) have no tool format."""
    if spec.version >= (3, 5):
        return {**_TOOLS, "context_window": 262_144, "text_dialect": "qwen3_coder", "emulation_style": "qwen_xml"}
    if spec.version >= (3,):
        return {**_TOOLS, "context_window": 65_536, "text_dialect": "step3"}
    return {"native_tools": False}


def seed_oss_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 524_288, "text_dialect": "seed_oss"}


def lfm_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 32_768, "text_dialect": "lfm2"}


def gigachat_rules(spec: ModelSpec) -> dict[str, Any]:
    """GigaChat 3.5 moved to GCML invoke markup, with a 256k window."""
    if spec.version >= (3, 5):
        return {**_TOOLS, "parallel_tools": True, "context_window": 262_144, "text_dialect": "gigachat35"}
    return {**_TOOLS, "context_window": 131_072, "text_dialect": "gigachat"}


def longcat_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "longcat"}


def apertus_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "parallel_tools": True, "context_window": 65_536, "text_dialect": "apertus"}


def ernie_rules(spec: ModelSpec) -> dict[str, Any]:
    """ERNIE 4.5 writes Hermes-style <tool_call>{json}</tool_call> blocks."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "hermes"}


def nemotron_rules(spec: ModelSpec) -> dict[str, Any]:
    """NVIDIA Nemotron (v1/v2) writes <TOOLCALL>[{"name", "arguments"}]</TOOLCALL>; Nemotron 3 moved to
    Qwen3-Coder's <tool_call><function=..><parameter=..> XML, with a 1M-token window."""
    if spec.version >= (3,):
        return {**_TOOLS, "parallel_tools": True, "context_window": 1_048_576, "text_dialect": "qwen3_coder"}
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "nemotron"}


def olmo_rules(spec: ModelSpec) -> dict[str, Any]:
    """OLMo 3 was trained on tool calls (pythonic, in <function_calls>); earlier OLMo had none."""
    if spec.version >= (3,):
        return {**_TOOLS, "context_window": 65_536, "text_dialect": "olmo3"}
    return no_native_rules(spec)


def reka_rules(spec: ModelSpec) -> dict[str, Any]:
    """Reka (Flash 3, Edge) writes Hermes-style <tool_call>{json}</tool_call> blocks."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 32_768, "text_dialect": "hermes"}


def no_native_rules(spec: ModelSpec) -> dict[str, Any]:
    """Families with no tool training at all (StarCoder, Yi, Falcon, LLaVA, SmolLM, OLMo before 3)."""
    return {"native_tools": False}


def dots_rules(spec: ModelSpec) -> dict[str, Any]:
    """dots.llm1 writes its calls in <dots_function_call> sections (vLLM's `dots` parser); 32k window."""
    return {**_TOOLS, "context_window": 32_768, "text_dialect": "dots"}


def k2_horizon_rules(spec: ModelSpec) -> dict[str, Any]:
    """IFM K2-Horizon (SGLang's `k2_horizon` parser) writes <ifm|tool_call> blocks."""
    return {**_TOOLS, "text_dialect": "k2_horizon"}


def hyperclovax_rules(spec: ModelSpec) -> dict[str, Any]:
    """NAVER HyperCLOVA X SEED Think: GLM-style calls with JSON values (32B) or a `-> tool/function_call`
    turn holding a JSON list (14B); one dialect reads both."""
    window = 32_768 if spec.size is not None and spec.size <= 14 else 131_072
    return {**_TOOLS, "parallel_tools": True, "context_window": window, "text_dialect": "hyperclovax"}


def iquest_rules(spec: ModelSpec) -> dict[str, Any]:
    """IQuest-Coder V1 writes Qwen3-Coder's <tool_call><function=..><parameter=..> XML; 128k window."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "qwen3_coder"}


def mimo_rules(spec: ModelSpec) -> dict[str, Any]:
    """Xiaomi MiMo V2 writes Qwen3-Coder's <function=..><parameter=..> XML; MiMo 7B writes Hermes JSON."""
    if spec.version >= (2,):
        return {**_TOOLS, "parallel_tools": True, "context_window": 262_144, "text_dialect": "qwen3_coder"}
    return {**_TOOLS, "context_window": 32_768, "text_dialect": "hermes"}


def pangu_rules(spec: ModelSpec) -> dict[str, Any]:
    """openPangu writes a JSON list of calls between <|tool_call_start|> and <|tool_call_end|> (LFM2's
    tokens, read by its dialect)."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 32_768, "text_dialect": "lfm2"}


def rwkv_rules(spec: ModelSpec) -> dict[str, Any]:
    """RWKV-7 G1 writes a `**Tool Call:**` heading over a ```json fence holding {"name", "arguments"}."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 8_192, "text_dialect": "rwkv"}


def cwm_rules(spec: ModelSpec) -> dict[str, Any]:
    """Meta CWM writes `<tool: function>` blocks (the tool's name, then its input); 131k window."""
    return {**_TOOLS, "context_window": 131_072, "text_dialect": "cwm"}


def solar_rules(spec: ModelSpec) -> dict[str, Any]:
    """Upstage Solar Open 2 writes <|tool_call:start|> blocks of <|tool_arg:..|> pairs."""
    if spec.version >= (2,):
        return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "solar_open2"}
    return {**_TOOLS, "context_window": 131_072}


def intellect_rules(spec: ModelSpec) -> dict[str, Any]:
    """Prime Intellect INTELLECT-3 (a GLM-4.5-Air post-train) writes Qwen3-Coder's
    <tool_call><function=..><parameter=..> XML after a <think> block; 128k window."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "qwen3_coder"}


def bailing_rules(spec: ModelSpec) -> dict[str, Any]:
    """inclusionAI Ling / Ring (Bailing MoE) write GLM-4.5's <tool_call>name<arg_key>..<arg_value>..
    markup after a <think> block the template opens; 128k window."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "glm4_moe"}


def laguna_rules(spec: ModelSpec) -> dict[str, Any]:
    """Poolside Laguna writes GLM-4.5's <tool_call>name<arg_key>..<arg_value>.. markup (at times a JSON
    object in the tags instead, at times in <user> tags) after a <think> block the template opens."""
    return {**_TOOLS, "parallel_tools": True, "context_window": 131_072, "text_dialect": "laguna"}


def minicpm_rules(spec: ModelSpec) -> dict[str, Any]:
    """OpenBMB MiniCPM5 writes <function name=".."><param name="..">..</param></function> elements after an
    optional <think> block; earlier MiniCPM releases have no rule here."""
    if spec.version >= (5,):
        return {**_TOOLS, "parallel_tools": True, "text_dialect": "minicpm5"}
    return {}


def trinity_rules(spec: ModelSpec) -> dict[str, Any]:
    """Arcee Trinity writes Hermes-style <tool_call>{json}</tool_call> blocks, reasoning in <think>."""
    return {**_TOOLS, "parallel_tools": True, "text_dialect": "hermes"}


def kolibri_rules(spec: ModelSpec) -> dict[str, Any]:
    """Kolibri 1 writes Hermes-style <tool_call>{json}</tool_call> blocks after a <think> block."""
    return {**_TOOLS, "parallel_tools": True, "text_dialect": "hermes"}
