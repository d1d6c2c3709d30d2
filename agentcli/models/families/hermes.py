"""Nous Hermes: the <tool_call> format's origin; also an overlay for Hermes fine-tunes of other bases."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec

_HERMES = {"native_tools": True, "parallel_tools": True, "text_dialect": "hermes", "emulation_style": "hermes"}


def rules(spec: ModelSpec) -> dict[str, Any]:
    """Hermes 3 is Llama 3.1 underneath (128k); Hermes 2 Pro was 8k."""
    return {**_HERMES, "context_window": 131_072 if spec.version >= (3,) else 8_192}


def overlay(spec: ModelSpec) -> dict[str, Any]:
    """A Hermes fine-tune of another family keeps that base's window but Hermes' call format."""
    return dict(_HERMES)
