"""GLM: 4.5 and later are agentic MoE models with hybrid thinking; GLM-4 9B is emulated."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """4.5 writes <tool_call>name<arg_key>..</arg_key> (glm4_moe); 4.6 widened to 200k."""
    v = spec.version
    if v >= (4, 5):
        return {
            "native_tools": True,
            "parallel_tools": True,
            "context_window": 204_800 if v >= (4, 6) else 131_072,
            "max_output_tokens": 98_304,
            "text_dialect": "glm4_moe",
        }
    return {"native_tools": False, "context_window": 131_072 if v >= (4,) else 8_192}
