"""Qwen: Hermes-style <tool_call> from Qwen2 on; Qwen3-Coder and Qwen3.5 write XML calls; QwQ/Qwen3 reason."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

_HERMES = {"text_dialect": "hermes", "emulation_style": "hermes"}


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Coder and QwQ lines first, then version thresholds."""
    v = spec.version
    if spec.has("qwq"):
        return {**_HERMES, "native_tools": True, "context_window": 131_072, "max_output_tokens": 32_768}
    if v >= (3, 5) or (v >= (3,) and spec.has("coder")):  # Qwen3.5 writes Qwen3-Coder's XML calls
        return {
            "native_tools": True,
            "parallel_tools": True,
            "context_window": 262_144,
            "max_output_tokens": 65_536,
            "text_dialect": "qwen3_coder",
            "emulation_style": "qwen_xml",
        }
    if v >= (3,):
        return {
            **_HERMES,
            "native_tools": True,
            "parallel_tools": True,
            "context_window": 40_960,
            "max_output_tokens": 32_768,
        }
    if v >= (2, 5):  # the 2.5 template writes several <tool_call> blocks in one message
        return {**_HERMES, "native_tools": True, "parallel_tools": True, "context_window": 32_768,
                "max_output_tokens": 8_192}
    if v >= (2,):
        return {**_HERMES, "native_tools": True, "context_window": 32_768, "max_output_tokens": 8_192}
    return {**_HERMES, "native_tools": False, "context_window": 32_768 if v else 8_192}
