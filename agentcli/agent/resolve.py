"""One place that turns a profile's model into what a session talks to it with: the capability
(family rules, the known-models data, the profile's overrides, learned facts) and the wire plan.
Run, chat and doctor use it; it imports nothing of the session machinery, so `agent doctor
--offline` loads no transcript or session code."""

from __future__ import annotations

from typing import Any


def resolve_model(profile: Any, api: str, facts: dict[str, Any]) -> tuple[Any, Any]:
    """(capability, wire plan) for the profile's model on `api`, with learned `facts`; a profile
    value the model cannot take is a ConfigError naming its key."""
    from agentcli.core.errors import ConfigError
    from agentcli.models import resolve_capability
    from agentcli.wire import negotiate

    try:
        capability = resolve_capability(profile.model, overrides=profile.capabilities, learned=facts,
                                        provider=profile.provider)
    except ValueError as exc:
        raise ConfigError(str(exc), file=str(profile.source or ""), profile=profile.name, key="capabilities") from None
    try:
        plan = negotiate(api=api, capability=capability.capability, tools_cfg=profile.tools, learned=facts)
    except ValueError as exc:
        raise ConfigError(str(exc), file=str(profile.source or ""), profile=profile.name, key="tools") from None
    return capability, plan
