"""OpenAI GPT and o-series: native tools everywhere from GPT-3.5 on; o-series reason."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

_NATIVE = {"native_tools": True, "parallel_tools": True}


# GPT-4.1, GPT-5 and the codex models were trained to edit files with apply_patch (V4A patches).
_PATCH = {"edit_tool": "apply_patch"}


def gpt_rules(spec: ModelSpec) -> dict[str, Any]:
    """GPT generations differ mostly in window sizes; GPT-5 adds reasoning."""
    v = spec.version
    if v >= (5,):
        return {**_NATIVE, **_PATCH, "context_window": 400_000, "max_output_tokens": 128_000}
    if spec.has("codex"):  # "codex-mini-latest": the codex line, no GPT version in the id
        return {**_NATIVE, **_PATCH, "context_window": 200_000, "max_output_tokens": 100_000}
    if v >= (4, 1):
        return {**_NATIVE, **_PATCH, "context_window": 1_047_576, "max_output_tokens": 32_768}
    if v >= (4,) and spec.has("o", "turbo"):
        return {**_NATIVE, "context_window": 128_000, "max_output_tokens": 16_384}
    if v >= (4,):
        return {**_NATIVE, "context_window": 8_192, "max_output_tokens": 8_192}
    if v >= (3, 5):
        return {**_NATIVE, "context_window": 16_385, "max_output_tokens": 4_096}
    return {"native_tools": False, "context_window": 4_096}


def o_series_rules(spec: ModelSpec) -> dict[str, Any]:
    """o1/o3/o4: reasoning models; tool_choice=required is not honoured while they think."""
    return {
        **_NATIVE,
        "supports_tool_choice_required": False,
        "context_window": 200_000,
        "max_output_tokens": 100_000,
    }
