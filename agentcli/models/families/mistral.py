"""Mistral and Mixtral: [TOOL_CALLS] from Mistral 7B v0.3 and Mixtral 8x22B on."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

# Every Mistral template (and Mistral's API) refuses call ids that are not 9 letters or digits.
_MISTRAL = {"text_dialect": "mistral", "emulation_style": "mistral", "call_id_format": "alnum9"}
# Lines served by Mistral's API with 128k windows and parallel calls.
_LARGE_LINES = ("large", "medium", "small", "nemo", "ministral", "devstral", "magistral", "pixtral", "codestral")


def mistral_rules(spec: ModelSpec) -> dict[str, Any]:
    """7B before v0.3 had no tool tokens; named lines (large, small, ...) all do."""
    if spec.version and spec.version < (0, 3) and not spec.has(*_LARGE_LINES):
        return {"native_tools": False, "context_window": 32_768, "call_id_format": "alnum9"}  # no [TOOL_CALLS] yet
    if spec.has(*_LARGE_LINES):
        return {
            **_MISTRAL,
            "native_tools": True,
            "parallel_tools": True,
            "context_window": 131_072,
            "max_output_tokens": 8_192,
        }
    return {**_MISTRAL, "native_tools": True, "context_window": 32_768, "max_output_tokens": 4_096}


def mixtral_rules(spec: ModelSpec) -> dict[str, Any]:
    """Both Mixtrals take [AVAILABLE_TOOLS]; 8x22B has the larger window."""
    big = spec.size is not None and spec.size > 100
    return {
        **_MISTRAL,
        "native_tools": True,
        "context_window": 65_536 if big else 32_768,
        "max_output_tokens": 4_096,
    }
