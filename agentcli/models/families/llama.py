"""Llama: tools are trained in from 3.1; Llama 3.0 needs 70B; 3.2 small and 4 are pythonic."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Version and size thresholds from Meta's model cards."""
    v = spec.version
    if v >= (4,):
        return {
            "native_tools": True,
            "context_window": 131_072,
            "max_output_tokens": 8_192,
            "text_dialect": "pythonic",
            "emulation_style": "pythonic",
        }
    if v >= (3, 1):
        caps = {
            "native_tools": True,
            # The 3.1-3.3 templates raise "This model only supports single tool-calls at once!" on
            # an assistant message with two calls: history goes back one call per message.
            "parallel_tools": False,
            "context_window": 131_072,
            "max_output_tokens": 8_192,
            "text_dialect": "llama3_json",
        }
        # 1B/3B (Ollama's default llama3.2 is the 3B) were tuned for pythonic calls.
        if v[:2] == (3, 2) and not spec.has("vision") and (spec.size is None or spec.size <= 3):
            caps.update(text_dialect="pythonic", emulation_style="pythonic")
        return caps
    if v >= (3,):
        if (spec.size or 8) >= 70:
            return {"native_tools": True, "context_window": 8_192, "max_output_tokens": 4_096}
        return {"native_tools": False, "context_window": 8_192}
    if v:
        return {"native_tools": False, "context_window": 4_096}
    return {"native_tools": False}  # no version written: assume nothing
