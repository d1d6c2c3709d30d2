"""Which provider serves a model id the profile did not choose (`-m`, `--model`), as a table.

Without it `agent doctor --model claude-3-5-sonnet-latest` with the default (local) profile
would plan a Claude model through a local server. Rules are tried in order; the first whose
pattern matches decides. `provider` None keeps the profile's provider. `doctor` and the run
header say which rule chose.
"""

from __future__ import annotations

import re

from agentcli.config.providers import PROVIDERS
from agentcli.core.record import record


@record(frozen=True)
class Route:
    """One rule: a model-id pattern and the provider it means."""

    pattern: re.Pattern[str]
    provider: str | None  # None: the profile's provider; "{prefix}": the id's own `provider/` prefix
    rule: str  # what `doctor` shows


_PREFIX = "{prefix}"

ROUTES: tuple[Route, ...] = (
    # `anthropic/claude-...`, `ollama/qwen3`: a known provider name before the first slash.
    Route(re.compile(r"^(?P<prefix>" + "|".join(map(re.escape, PROVIDERS)) + r")/(?P<model>.+)$"),
          _PREFIX, "provider/model prefix"),
    # `qwen3:8b`, `gpt-oss:20b`: a name:tag is what a local server (Ollama, llama.cpp) serves.
    Route(re.compile(r"^[^/]+:[\w.\-]+$"), None, "name:tag is a local model: the profile's provider"),
    Route(re.compile(r"^claude-", re.IGNORECASE), "anthropic", "claude-* -> anthropic"),
    Route(re.compile(r"^(gpt-|chatgpt-|o1($|-)|o3($|-)|o4-)", re.IGNORECASE), "openai", "gpt-*, o1, o3, o4-* -> openai"),
    Route(re.compile(r"^gemini-", re.IGNORECASE), "gemini", "gemini-* -> gemini"),
)

# Providers that route `vendor/model` ids themselves: a slash there is part of the id.
ROUTERS = frozenset(name for name, entry in PROVIDERS.items() if entry.routes_vendor_ids)


@record(frozen=True)
class ProviderChoice:
    provider: str
    model: str
    rule: str


def provider_for(model: str, profile_provider: str) -> ProviderChoice:
    """The provider for `model`, given the provider the profile names."""
    if profile_provider in ROUTERS:
        return ProviderChoice(profile_provider, model, f"{profile_provider} routes every vendor/model id")
    for route in ROUTES:
        m = route.pattern.match(model)
        if m is None:
            continue
        if route.provider == _PREFIX:
            return ProviderChoice(m.group("prefix"), m.group("model"), route.rule)
        return ProviderChoice(route.provider or profile_provider, model, route.rule)
    return ProviderChoice(profile_provider, model, "no rule matched: the profile's provider")
