"""The model layer: parse model ids, resolve what a model can do, remember what we learned.

    spec = parse_model_id("ollama/llama3.3:70b")      # family llama, version (3, 3), 70B
    cap = get_capability("claude-sonnet-4-20250514")  # native tools, 200k window
    r = resolve_capability(spec, overrides=profile.capabilities, learned=store.get(m, url))
    r.sources["native_tools"]                         # "registry", "learned", "profile override", ...

Known-model facts live in data/known_models.json (read on first use); family rules
with version and size thresholds live in families/.
"""

from __future__ import annotations

from agentcli.models.capability import (
    EMULATION_STYLES,
    UNKNOWN_MODEL_WARNING,
    ModelCapability,
    ResolvedCapability,
    get_capability,
    is_unknown,
    resolve_capability,
    validate_overrides,
)
from agentcli.models.learned import LearnedFact, LearnedStore, cache_dir
from agentcli.models.parser import parse_model_id
from agentcli.models.registry import known_model_ids
from agentcli.models.spec import ModelSpec

__all__ = [
    "EMULATION_STYLES",
    "UNKNOWN_MODEL_WARNING",
    "LearnedFact",
    "LearnedStore",
    "ModelCapability",
    "ModelSpec",
    "ResolvedCapability",
    "cache_dir",
    "get_capability",
    "is_unknown",
    "known_model_ids",
    "parse_model_id",
    "resolve_capability",
    "validate_overrides",
]
