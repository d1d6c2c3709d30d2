"""One place that turns a profile's model into what a session talks to it with: the capability
(family rules, the known-models data, the profile's overrides, learned facts) and the wire plan.
Opening a session, `/model` and `/profile`, and doctor use it, and it is the one reader of the
learned facts for a model at an endpoint; it imports nothing of the session machinery, so `agent
doctor --offline` loads no transcript or session code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.models.capability import ResolvedCapability
    from agentcli.models.learned import LearnedStore
    from agentcli.providers.base import Provider
    from agentcli.wire.types import WirePlan


def learned_facts(learned: LearnedStore | None, model: str, endpoint: str | None) -> dict[str, Any]:
    """What was learned about `model` at `endpoint`, as plain values ({} when nothing is kept)."""
    if learned is None:
        return {}
    return {k: f.value for k, f in learned.get(model, endpoint).items()}


def resolve_model(
    profile: Profile, provider: Provider, learned: LearnedStore | None
) -> tuple[ResolvedCapability, WirePlan]:
    """(capability, wire plan) for the profile's model through `provider`, with what `learned` holds
    for it there; a profile value the model cannot take is a ConfigError naming its key."""
    from agentcli.core.errors import ConfigError
    from agentcli.models import resolve_capability
    from agentcli.wire import negotiate

    facts = learned_facts(learned, profile.model, provider.url)
    try:
        capability = resolve_capability(profile.model, overrides=profile.capabilities, learned=facts,
                                        provider=profile.provider)
    except ValueError as exc:
        raise ConfigError(str(exc), file=str(profile.source or ""), profile=profile.name, key="capabilities") from None
    try:
        plan = negotiate(api=provider.api, capability=capability.capability, tools_cfg=profile.tools, learned=facts)
    except ValueError as exc:
        raise ConfigError(str(exc), file=str(profile.source or ""), profile=profile.name, key="tools") from None
    return capability, plan
