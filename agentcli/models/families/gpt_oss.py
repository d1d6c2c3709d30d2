"""gpt-oss: open-weight OpenAI models that write calls in the harmony format."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Both sizes reason and call tools through harmony channels."""
    return {
        "native_tools": True,
        "parallel_tools": False,
        "context_window": 131_072,
        "max_output_tokens": 32_768,
        "text_dialect": "harmony",
    }
