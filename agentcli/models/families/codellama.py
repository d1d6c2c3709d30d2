"""Code Llama: a Llama 2 code model, no tool training: JSON emulation."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Trained on 16k sequences; no native tools at any size."""
    return {"native_tools": False, "context_window": 16_384, "max_output_tokens": 4_096}
