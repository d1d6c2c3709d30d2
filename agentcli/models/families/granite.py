"""IBM Granite: tools from 3.0 (<|tool_call|>); Granite 4 writes Hermes tags, 4.2 Qwen3-Coder XML; code models do not."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """3.0 had a 4k window; 3.1+ have 128k."""
    v = spec.version
    if spec.has("functioncalling"):
        # granite-20b-functioncalling writes `<function_call> {json}` lines (vLLM's granite-20b-fc parser).
        return {"native_tools": False, "context_window": 8_192, "text_dialect": "function_call_tag"}
    if spec.has("code", "guardian", "embedding") or not v or v < (3,):
        return {"native_tools": False, "context_window": 131_072 if spec.has("code") else 8_192}
    if v >= (4, 2):
        # Granite 4.2 reasons in <think> and writes Qwen3-Coder's <tool_call><function=..><parameter=..> XML.
        return {"native_tools": True, "context_window": 131_072, "text_dialect": "qwen3_coder"}
    if v >= (4,):
        return {"native_tools": True, "context_window": 131_072, "text_dialect": "hermes", "emulation_style": "hermes"}
    return {
        "native_tools": True,
        "context_window": 131_072 if v >= (3, 1) else 4_096,
        "text_dialect": "granite",
    }
