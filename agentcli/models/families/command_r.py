"""Cohere Command R / R+ / R7B / A: trained for (parallel) tool use with action lists."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Command A ("a") doubles the window and the output."""
    caps: dict[str, Any] = {
        "native_tools": True,
        "parallel_tools": True,
        "context_window": 131_072,
        "max_output_tokens": 4_096,
        "text_dialect": "command_r",
    }
    if spec.has("a"):
        caps.update(context_window=256_000, max_output_tokens=8_192)
    return caps
