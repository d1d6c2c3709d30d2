"""Moonshot Kimi: K2 was built for agentic tool use and writes section-token calls."""

from __future__ import annotations

from typing import Any

from agentcli.models.spec import ModelSpec


def rules(spec: ModelSpec) -> dict[str, Any]:
    """K2 builds from 0905 on (and -thinking, and K2.5 / K2.6) have 256k windows; K2.x writes
    section-token calls, K3 writes XTML channels (`<|open|>tools<|sep|>`)."""
    caps: dict[str, Any] = {"native_tools": True, "parallel_tools": True, "max_output_tokens": 16_384}
    variant = spec.variant or ""
    if variant == "k3" or variant.startswith("k3."):
        return {**caps, "text_dialect": "kimi_k3", "context_window": 262_144}
    if variant == "k2" or variant.startswith("k2."):
        long = variant != "k2" or spec.has("thinking") or (spec.snapshot or "0") >= "0905"
        caps.update(
            text_dialect="kimi_k2",
            context_window=262_144 if long else 131_072,
        )
        return caps
    return {**caps, "context_window": 131_072}
