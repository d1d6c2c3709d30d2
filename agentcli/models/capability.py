"""What a model can do, merged in layers, with the source of every value kept.

    default -> family rule (+ overlays) -> registry -> context named in the id
            -> provider -> learned (this model on this endpoint) -> profile override

Custom fine-tunes take the family and registry layers from their base, reported as
"inherited from <base>". Unknown models stay on the defaults: JSON emulation.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import field, fields, replace
from functools import lru_cache
from typing import Any

from agentcli.core.record import record
from agentcli.models import registry
from agentcli.models.families import overlays_for, rule_for
from agentcli.models.parser import UNKNOWN, parse_model_id
from agentcli.models.spec import ModelSpec

# The `tool_format` shorthands of wire.dialects.SHORTHANDS (this layer sits below wire and cannot
# import it; a test keeps the two equal).
EMULATION_STYLES: tuple[str, ...] = ("json", "hermes", "xml", "pythonic", "mistral", "qwen_xml")

# Forms a chat template or API demands of the call ids sent back in history (wire.native._ids
# maps every id to one): "any" takes what the API takes; "alnum9" is exactly 9 letters or digits
# (Mistral's templates and API raise on anything else).
CALL_ID_FORMATS: tuple[str, ...] = ("any", "alnum9")

UNKNOWN_MODEL_WARNING = (
    "Unknown model {model!r}: tools will be described in the prompt and read back as JSON "
    "(emulation). If it supports native tool calling, set `native_tools = true` under "
    "[capabilities] in the profile, or run `agent doctor --probe` to find out what works."
)

SOURCE_DEFAULT = "default"
SOURCE_FAMILY = "family rule"
SOURCE_REGISTRY = "registry"
SOURCE_ID = "model id"
SOURCE_PROVIDER = "provider"
SOURCE_LEARNED = "learned"
SOURCE_OVERRIDE = "profile override"


@record(frozen=True)
class ModelCapability:
    """What the wire layer may rely on for one model. Every field changes what agentcli does (a field
    nothing reads is deleted, not shown: tool_streaming, json_mode, reasoning and the Anthropic
    wire facts went that way; the Anthropic adapter owns those)."""

    native_tools: bool = False
    """Tools go in the API's own field and calls come back structured (the negotiator's first choice)."""
    parallel_tools: bool = False
    """The model may call several tools in one turn (the plan says so; `/model` warns when it changes).
    When False, history goes back with one call per assistant message, each followed by its result:
    templates such as Llama 3.1's raise on an assistant message holding two calls."""
    max_output_tokens: int = 4_096
    """The most the model can write in one reply: a profile's larger [limits] max_output_tokens is
    clamped to it, since APIs refuse a request that asks for more."""
    context_window: int = 8_192
    """Sizes the tool definitions' share of the prompt and decides when history is compacted."""
    supports_tool_choice_required: bool = True
    """tool_choice=required is honoured (the negotiator asks for it only then)."""
    emulation_style: str = "json"
    """Prompt style when tools are emulated: one of EMULATION_STYLES."""
    text_dialect: str | None = None
    """The text form the model was trained to write calls in (a wire dialect name),
    tried first when calls show up in text."""
    edit_tool: str = "edit_file"
    """The file-editing tool form the model was trained on (one of EDIT_TOOLS): only that one is
    offered; a profile's `[tools] edit_tool` overrides it."""
    call_id_format: str = "any"
    """The form call ids must take when history goes back (one of CALL_ID_FORMATS): the chat
    template or API refuses the whole request otherwise, from the second request on."""

    def to_dict(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


FIELDS: dict[str, Any] = {f.name: f.type for f in fields(ModelCapability)}
_INT_FIELDS = frozenset({"max_output_tokens", "context_window"})
_STR_FIELDS = frozenset({"emulation_style", "text_dialect", "edit_tool", "call_id_format"})
# The edit tool forms: OpenAI's V4A patch tool, Anthropic's text editor, and our own find-and-replace.
EDIT_TOOLS = ("apply_patch", "str_replace", "edit_file")


@record(frozen=True)
class ResolvedCapability:
    """A capability plus, for each field, the layer its value came from."""

    capability: ModelCapability
    sources: dict[str, str] = field(default_factory=dict)
    spec: ModelSpec | None = None
    registry_key: str | None = None

    @property
    def unknown(self) -> bool:
        return self.spec is not None and is_unknown(self.spec)

    def source(self, name: str) -> str:
        return self.sources.get(name, SOURCE_DEFAULT)

    def explain(self) -> list[tuple[str, Any, str]]:
        """(field, value, source) rows, in field order (what `agent doctor` shows)."""
        return [(n, getattr(self.capability, n), self.source(n)) for n in FIELDS]


def is_unknown(spec: ModelSpec) -> bool:
    """True when no family rule knows this model (it gets JSON emulation)."""
    return spec.family == UNKNOWN or rule_for(spec.family) is None


def validate_overrides(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Check profile [capabilities] keys and value types; ValueError names the bad key."""
    out: dict[str, Any] = {}
    for key, value in overrides.items():
        if key not in FIELDS:
            raise ValueError(f"unknown capability {key!r}; known: {', '.join(FIELDS)}")
        bad = _type_error(key, value)
        if bad:
            raise ValueError(f"capability {key!r}: {bad}")
        out[key] = value
    return out


def _type_error(key: str, value: Any) -> str | None:
    if key in _INT_FIELDS:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            return f"expected a positive integer, got {value!r}"
    elif key == "emulation_style":
        if value not in EMULATION_STYLES:
            return f"expected one of {', '.join(EMULATION_STYLES)}, got {value!r}"
    elif key == "edit_tool":
        if value not in EDIT_TOOLS:
            return f"expected one of {', '.join(EDIT_TOOLS)}, got {value!r}"
    elif key == "call_id_format":
        if value not in CALL_ID_FORMATS:
            return f"expected one of {', '.join(CALL_ID_FORMATS)}, got {value!r}"
    elif key == "text_dialect":
        if value is not None and not (isinstance(value, str) and value):
            return f"expected a dialect name, got {value!r}"
    elif not isinstance(value, bool):
        return f"expected true or false, got {value!r}"
    return None


_CONTEXT_TAG = re.compile(r"(\d{1,4})k")


def _context_from_id(spec: ModelSpec) -> dict[str, Any]:
    """Ids that state their window ("gpt-4-32k", "phi-3-mini-128k") are taken at their word."""
    for t in spec.tags:
        m = _CONTEXT_TAG.fullmatch(t)
        if m:
            return {"context_window": int(m.group(1)) * 1024}
    return {}


def resolve_capability(
    id_or_spec: str | ModelSpec,
    overrides: Mapping[str, Any] | None = None,
    learned: Mapping[str, Any] | None = None,
    provider: str | None = None,
) -> ResolvedCapability:
    """Merge every layer for one model; `provider` (the profile's) wins over an id prefix.

    `learned` maps capability fields to values or LearnedFact objects; keys that are
    not capability fields, or values of the wrong type, are ignored (stale cache data
    must not stop a run). `overrides` are validated strictly (ValueError)."""
    spec = parse_model_id(id_or_spec) if isinstance(id_or_spec, str) else id_or_spec
    checked = validate_overrides(overrides or {})
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}

    def apply(layer: Mapping[str, Any], source: str) -> None:
        for k, v in layer.items():
            values[k] = v
            sources[k] = source

    inherited = f"inherited from {_base_name(spec)}" if spec.custom else None
    rule = rule_for(spec.family)
    known = None
    if rule is not None:
        apply(rule(spec), inherited or SOURCE_FAMILY)
        for tag, overlay in overlays_for(spec):
            apply(overlay(spec), f"{SOURCE_FAMILY} ({tag})")
        known = registry.lookup(spec)
        if known is not None:
            apply(known.facts, inherited or SOURCE_REGISTRY)
        apply(_context_from_id(spec), SOURCE_ID)
    apply(registry.provider_facts(provider or spec.provider), SOURCE_PROVIDER)
    if learned:
        apply(_usable_learned(learned), SOURCE_LEARNED)
    apply(checked, SOURCE_OVERRIDE)

    cap = replace(ModelCapability(), **values)
    return ResolvedCapability(cap, sources, spec, known.key if known else None)


def _usable_learned(learned: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, fact in learned.items():
        value = getattr(fact, "value", fact)
        if key in FIELDS and _type_error(key, value) is None:
            out[key] = value
    return out


def _base_name(spec: ModelSpec) -> str:
    return f"{spec.family} {spec.version_str}".strip()


@lru_cache(maxsize=512)
def _cached(model_id: str) -> ModelCapability:
    return resolve_capability(model_id).capability


def get_capability(model_id: str | ModelSpec) -> ModelCapability:
    """The merged capability of a model id, without profile or learned layers."""
    if isinstance(model_id, ModelSpec):
        return resolve_capability(model_id).capability
    return _cached(model_id)
