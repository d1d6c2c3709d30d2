"""Thinking Machines' Inkling: calls written as TML content frames (the `inkling` dialect)."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Served with native tools (vLLM, SGLang); raw text carries the frames. A 1M-token window."""
    return {"native_tools": True, "parallel_tools": True, "context_window": 1_048_576, "text_dialect": "inkling"}
