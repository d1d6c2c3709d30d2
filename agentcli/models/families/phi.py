"""Phi: only Phi-4-mini was trained for function calling; context depends on the build."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Phi-4 (14B) has 16k and no tools; Phi-4-mini has tools and 128k; 3.5 has 128k."""
    v = spec.version
    if v >= (4,) and spec.has("mini") and not spec.has("reasoning", "flash"):
        return {"native_tools": True, "context_window": 131_072, "text_dialect": "phi4_mini"}
    if v >= (4,) and spec.has("reasoning"):
        return {"native_tools": False, "context_window": 32_768}
    if v >= (4,):
        return {"native_tools": False, "context_window": 16_384}
    if v >= (3, 5):
        return {"native_tools": False, "context_window": 131_072}
    return {"native_tools": False, "context_window": 4_096}
