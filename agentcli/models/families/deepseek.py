"""DeepSeek: V3 family token-delimited calls (format changed in 3.1 and 3.2); R1 reasons."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def _v3_dialect(v: tuple[int, ...]) -> str:
    if v >= (4, 1):
        return "deepseek_v41"  # spaced DSML tag names in a ` calls` block
    if v >= (4,):
        return "deepseek_v4"
    if v >= (3, 2):
        return "deepseek_v32"
    if v >= (3, 1):
        return "deepseek_v31"
    return "deepseek_v3"


def rules(spec: ModelSpec) -> dict[str, Any]:
    """R1 distills are Qwen/Llama weights without tool training; "chat"/"reasoner" are API aliases."""
    v = spec.version
    if spec.has("distill"):
        return {"native_tools": False, "context_window": 131_072, "max_output_tokens": 32_768}
    if spec.has("r1", "reasoner"):
        return {
            "native_tools": True,
            "supports_tool_choice_required": False,
            "context_window": 131_072,
            "max_output_tokens": 32_768,
            "text_dialect": "deepseek_v3",
        }
    if spec.has("coder", "llm", "math"):
        return {"native_tools": False, "context_window": 163_840 if v >= (2,) else 16_384}
    if v >= (3,) or (not v and spec.has("chat")):
        return {
            "native_tools": True,
            "context_window": 131_072,
            "max_output_tokens": 8_192,
            "text_dialect": _v3_dialect(v),
        }
    if v >= (2,):
        return {"native_tools": True, "context_window": 131_072, "max_output_tokens": 8_192}
    return {"native_tools": False}


def cogito_rules(spec: ModelSpec) -> dict[str, Any]:
    """Deep Cogito v2/v2.1: the 671B MoE is DeepSeek-V3 weights and writes DeepSeek's call tokens
    (`<｜tool▁calls▁begin｜>`, what Ollama's cogito parser reads); the Llama- and Qwen-based sizes
    follow their base's chat template, so no text form is assumed for them."""
    caps: dict[str, Any] = {"native_tools": True, "context_window": 131_072}
    if spec.has("deepseek") or (spec.size or 0) >= 600:
        caps["text_dialect"] = "deepseek_v3"
    return caps
