"""Gemma: no tool tokens (JSON emulation) before Gemma 4, except FunctionGemma; Gemma 3 has 128k windows."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Gemma 3 at 1B and below and Gemma 3n have 32k; Gemma 1/2 have 8k."""
    if spec.has("functiongemma"):
        return {"native_tools": True, "context_window": 32_768, "text_dialect": "functiongemma"}
    v = spec.version
    if v >= (4,):  # Gemma 4 was trained on tool calls (its own tokens); E2B/E4B have 128k, the rest 256k
        small = (spec.size_label or "").startswith("e")  # E2B / E4B: "effective" sizes of the edge models
        return {"native_tools": True, "parallel_tools": True, "context_window": 131_072 if small else 262_144,
                "text_dialect": "gemma4"}
    if v >= (3,):
        small = spec.has("n") or (spec.size is not None and spec.size <= 1)
        return {"native_tools": False, "context_window": 32_768 if small else 131_072, "max_output_tokens": 8_192}
    return {"native_tools": False, "context_window": 8_192}
