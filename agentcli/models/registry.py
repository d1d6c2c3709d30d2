"""Known-model facts from data/known_models.json, matched structurally against a ModelSpec.

Each key in the file is itself a model id, parsed once on first use. A key matches
an id with the same family and version, the same size when the key names one, and
at least the key's descriptive words; the most specific key wins. So "claude-3-5-sonnet"
covers "anthropic/claude-3.5-sonnet" and "claude-3-5-sonnet-20241022" alike.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from agentcli.core.record import record
from agentcli.models.parser import parse_model_id
from agentcli.models.spec import ModelSpec

DATA_FILE = "known_models.json"


@record(frozen=True)
class KnownModel:
    """One entry of the data file: its key, the key parsed, and its facts."""

    key: str
    spec: ModelSpec
    facts: dict[str, Any]

    def matches(self, spec: ModelSpec) -> bool:
        e = self.spec
        return (
            e.family == spec.family
            and e.version == spec.version
            and (e.size is None or e.size == spec.size)
            and all(t in spec.tags for t in e.tags)
        )

    @property
    def specificity(self) -> tuple[int, int]:
        return (len(self.spec.tags), self.spec.size is not None)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    """The data file as read, once: provider facts and the model ids need no parsing."""
    path = Path(__file__).with_name("data") / DATA_FILE
    if path.is_file():
        text = path.read_text(encoding="utf-8")
    else:  # installed inside a zip: go through the resource loader
        from importlib import resources

        text = (resources.files("agentcli.models") / "data" / DATA_FILE).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=1)
def load() -> tuple[dict[str, list[KnownModel]], dict[str, dict[str, Any]], tuple[str, ...]]:
    """(family -> entries, provider -> facts, keys in file order), the keys parsed once on first use
    (only a model of a known family is looked up: an unknown one never parses the table)."""
    data = _data()
    by_family: dict[str, list[KnownModel]] = {}
    for key, facts in data.get("models", {}).items():
        entry = KnownModel(key, parse_model_id(key), dict(facts))
        by_family.setdefault(entry.spec.family, []).append(entry)
    providers = {k: dict(v) for k, v in data.get("providers", {}).items()}
    return by_family, providers, tuple(data.get("models", {}))


def lookup(spec: ModelSpec) -> KnownModel | None:
    """The most specific known model matching `spec` (first in file order on ties)."""
    best: KnownModel | None = None
    for entry in load()[0].get(spec.family, ()):
        if entry.matches(spec) and (best is None or entry.specificity > best.specificity):
            best = entry
    return best


def provider_facts(provider: str | None) -> dict[str, Any]:
    """Facts true of every model served through `provider`'s API."""
    if not provider:
        return {}
    return dict(_data().get("providers", {}).get(provider, {}))


def entries() -> list[KnownModel]:
    """Every known model, for tests and `agent doctor`."""
    return [e for group in load()[0].values() for e in group]


def known_model_ids() -> list[str]:
    """The data file's model ids, in file order (for /model completion)."""
    return list(_data().get("models", {}))
