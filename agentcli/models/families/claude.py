"""Claude: native tools from Claude 3; 3.7 and 4 add extended thinking."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

# Anthropic's API: strict schemas, tool results as user-message blocks. Claude is
# trained on <function_calls> XML, the best emulation style when tools are off.
_BASE = {
    "emulation_style": "xml",
    "text_dialect": "claude_xml",
    "context_window": 200_000,
}


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Thresholds at 3, 3.5, 3.7 and 4; Claude 2 and Instant only emulate."""
    v = spec.version
    native = {"native_tools": True, "parallel_tools": True}
    if v >= (4,):  # Claude 4 is trained on Anthropic's text editor tool (text_editor_20250728)
        return {**_BASE, **native, "max_output_tokens": 64_000, "edit_tool": "str_replace"}
    if v >= (3, 7):
        return {**_BASE, **native, "max_output_tokens": 64_000}
    if v >= (3, 5):
        return {**_BASE, **native, "max_output_tokens": 8_192}
    if v >= (3,):
        return {**_BASE, **native, "max_output_tokens": 4_096}
    return {**_BASE, "native_tools": False, "context_window": 100_000, "max_output_tokens": 4_096}
