"""ModelSpec: what a model id says once parsed (family, version, size, where it runs)."""

from __future__ import annotations

from typing import Any

from agentcli.core.record import record


@record(frozen=True)
class ModelSpec:
    """A parsed model id.

    family:       "gpt", "o", "claude", "llama", "qwen", ... or "unknown"
    version:      (3, 3) for llama3.3; () when the id names none
    variant:      the first descriptive word (sonnet, mini, coder, instruct, ...)
    size:         parameters in billions (MoE: experts x size, so 8x7b -> 56.0)
    size_label:   the size as written ("70b", "8x7b")
    active_size:  active parameters of an MoE written as "a3b" (billions)
    provider:     runtime named by a prefix ("ollama/", "groq/", "hf.co/" -> ollama)
    org:          the publishing organisation ("meta-llama", "mycompany")
    custom:       a fine-tune or a model from an unofficial org; capabilities are
                  inherited from its base family
    quantization: "q4_k_m", "fp16", ... when the id names one
    tags:         every descriptive word in order (variant included)
    snapshot:     a date or build stamp ("20241022", "2024-08-06", "0613")
    raw:          the id exactly as given
    """

    family: str
    version: tuple[int, ...] = ()
    variant: str | None = None
    size: float | None = None
    size_label: str | None = None
    active_size: float | None = None
    provider: str | None = None
    org: str | None = None
    custom: bool = False
    quantization: str | None = None
    tags: tuple[str, ...] = ()
    snapshot: str | None = None
    raw: str = ""

    @property
    def version_str(self) -> str:
        return ".".join(str(v) for v in self.version)

    @property
    def base(self) -> str:
        """Family and version as a person would say it ("llama 3.3", "claude 4 opus")."""
        parts = [self.family]
        if self.version:
            parts.append(self.version_str)
        if self.variant and self.variant not in _PLAIN_VARIANTS:
            parts.append(self.variant)
        return " ".join(parts)

    def has(self, *tags: str) -> bool:
        """True when any of `tags` was written in the id."""
        return any(t in self.tags for t in tags)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly form (version as a list of ints)."""
        return {
            "family": self.family,
            "version": list(self.version),
            "variant": self.variant,
            "size": self.size,
            "size_label": self.size_label,
            "active_size": self.active_size,
            "provider": self.provider,
            "org": self.org,
            "custom": self.custom,
            "quantization": self.quantization,
            "tags": list(self.tags),
            "snapshot": self.snapshot,
            "raw": self.raw,
        }


# Variants that add nothing when naming a model's base.
_PLAIN_VARIANTS = frozenset({"instruct", "chat", "it", "base", "latest"})
