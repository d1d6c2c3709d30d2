"""`/model` and `/profile`: move a live session to another model or provider.

History stays in internal form, so nothing is converted here: the next request is
rendered for the new wire plan. Returns what changed, for the UI to show.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

from agentcli.agent.session import Session
from agentcli.core.errors import UsageError

if TYPE_CHECKING:
    import httpx

    from agentcli.config.schema import Profile

COMPARED = ("native_tools", "parallel_tools", "context_window", "emulation_style", "edit_tool")


@dataclass
class SwitchReport:
    model: str
    provider: str
    spec: dict[str, Any]
    changed: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    plan: str = ""
    warning: str | None = None
    inherited_from: str | None = None


def switch(session: Session, ref: str, *, transport: httpx.AsyncBaseTransport | None = None) -> SwitchReport:
    """`ref`: a model id, `provider/model`, or a profile name.

    A model id goes through the same model-id table as `agent run -m`, so `/model claude-sonnet-4-5`
    from a local profile moves to Anthropic instead of asking the local server for a Claude model.
    """
    from agentcli.config import load_profile
    from agentcli.config.model_routes import provider_for
    from agentcli.core.errors import ConfigError

    ref = ref.strip()
    if not ref:
        raise UsageError("usage: /model MODEL_ID | provider/MODEL_ID | PROFILE")
    new_profile = None
    if "/" not in ref and ":" not in ref:
        try:
            new_profile = load_profile(ref, workspace=session.workspace).profile
        except ConfigError:
            new_profile = None
    if new_profile is None:
        choice = provider_for(ref, session.profile.provider)
        new_profile = for_model(session.profile, choice.model, choice.provider)
    return apply_profile(session, new_profile, transport=transport)


def for_model(profile: Profile, model: str, provider: str) -> Profile:
    """The current profile moved to another model: its tier, limits, rules and tool lists stay;
    what it said about its old model does not (capability overrides, a forced dialect), nor, on
    another provider, what it said about the old server (URL, key, headers, body overrides,
    transforms, a script). The new model's capabilities come from the model id alone."""
    new = profile.model_copy(deep=True)
    new.model = model
    new.capabilities = {}
    for key in ("definition_format", "call_parser", "result_format"):
        setattr(new.tools, key, "auto")
    new.tools.tool_format = None
    if provider != profile.provider:
        from agentcli.config.providers import default_api_key_env

        new.provider = provider
        new.url = None
        new.api_key_env = default_api_key_env(provider)
        new.headers, new.request, new.transforms, new.script = {}, {}, [], None
        new.name = f"{profile.name}+{provider}"
    return new


def apply_profile(session: Session, profile: Profile, *, transport: httpx.AsyncBaseTransport | None = None) -> SwitchReport:
    from agentcli.agent.resolve import resolve_model
    from agentcli.core.types import Tier
    from agentcli.models import parse_model_id
    from agentcli.models.capability import UNKNOWN_MODEL_WARNING, is_unknown
    from agentcli.providers import create

    old_cap = session.capability.capability
    provider = create(profile, transport=transport)
    resolved, _ = resolve_model(profile, provider, session.learned)  # a bad profile value: nothing changed yet
    old_provider = session.provider
    session.provider, session.profile, session.capability = provider, profile, resolved
    session.max_tier = Tier.parse(profile.tools.max_tier)
    if session.grant is not None and session.grant.cap_from == "--tier":  # the run's --tier still holds
        session.max_tier = min(session.max_tier, session.grant.cap)
    session.tier = min(session.tier, session.max_tier)
    session.renegotiate()  # the same plan resolve_model made, recorded in the transcript
    from agentcli.tools.edit_choice import reoffer

    reoffer(session.registry, profile.tools.edit_tool, resolved.capability.edit_tool, profile.tools.deny)
    if old_provider is not provider:
        session.pending_close.append(old_provider)
    spec = parse_model_id(profile.model)
    new_cap = resolved.capability
    plan = session.plan
    shown = COMPARED if not plan.native_tools else tuple(c for c in COMPARED if c != "emulation_style")
    changed = {
        f.name: (getattr(old_cap, f.name), getattr(new_cap, f.name))
        for f in fields(new_cap)
        if f.name in shown and getattr(old_cap, f.name) != getattr(new_cap, f.name)
    }
    warning = None
    if is_unknown(spec) and not plan.native_tools:  # the warning says "emulated": only when it is
        warning = UNKNOWN_MODEL_WARNING.format(model=profile.model) if "{model" in UNKNOWN_MODEL_WARNING else UNKNOWN_MODEL_WARNING
    inherited = None
    if spec.custom:
        inherited = spec.family + (" " + ".".join(map(str, spec.version)) if spec.version else "")
    return SwitchReport(
        model=profile.model, provider=profile.provider, spec=spec.to_dict(), changed=changed,
        plan=("native tools" if plan.native_tools else f"emulated tools ({plan.dialect})") + f" over {plan.api}",
        warning=warning, inherited_from=inherited,
    )
