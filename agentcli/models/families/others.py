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
    """MiniMax M2 changed the call format from M1's."""
    m2 = spec.has("m2")
    return {**_TOOLS, "context_window": 196_608 if m2 else 1_000_000, "text_dialect": "minimax_m2" if m2 else "minimax"}


def seed_oss_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 524_288, "text_dialect": "seed_oss"}


def lfm_rules(spec: ModelSpec) -> dict[str, Any]:
    return {**_TOOLS, "context_window": 32_768, "text_dialect": "lfm2"}


def no_native_rules(spec: ModelSpec) -> dict[str, Any]:
    """Families with no tool training at all (StarCoder, Yi, Falcon, LLaVA, SmolLM, OLMo)."""
    return {"native_tools": False}
