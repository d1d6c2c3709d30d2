"""Gemini: native function calling throughout; 2.5 thinks; windows of a million tokens."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """2.5+ reason and emit 64k; 1.5/2.0 emit 8k; 1.0 had a 32k window."""
    v = spec.version
    caps: dict[str, Any] = {"native_tools": True, "parallel_tools": True}
    if v >= (2, 5):
        return {**caps, "context_window": 1_048_576, "max_output_tokens": 65_536}
    if v >= (1, 5):
        return {
            **caps,
            "context_window": 1_048_576,
            "max_output_tokens": 8_192,
        }
    return {**caps, "parallel_tools": False, "context_window": 32_760, "max_output_tokens": 8_192}
