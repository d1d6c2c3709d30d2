"""Load the profile a command runs with: its warnings printed, the command line's overrides applied.
Apart from `commands.run` so `agent doctor` loads a profile without the loop, the events and the
event loop."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.config.schema import Profile


def load_routed(
    profile_ref: str | None, workspace: Path | None, model: str | None, max_turns: int | None,
) -> tuple[Profile, str | None]:
    """Load a profile, print its warnings, apply command-line overrides. A model the profile did
    not choose gets its provider from the model-id table; returns (profile, the rule that chose)."""
    from agentcli.config import load_profile

    loaded = load_profile(profile_ref, workspace=workspace, interactive=sys.stdin.isatty())
    if loaded.warnings:  # the console (and its imports) only when there is something to say
        from agentcli.core.escape import styled
        from agentcli.ui.console import make_console

        err = make_console(stderr=True)
        for w in loaded.warnings:
            err.print(styled(("! ", "yellow"), (str(w), "yellow")))
    profile = loaded.profile
    rule = None
    if (model and model != profile.model) or loaded.origins.get("provider") == "default":
        from agentcli.config.model_routes import provider_for

        choice = provider_for(model or profile.model, profile.provider)
        if choice.provider != profile.provider:
            # Another provider: its own endpoint and key variable, not the profile's.
            profile.provider, profile.url, profile.api_key_env = choice.provider, None, None
        profile.model, rule = choice.model, choice.rule
    if max_turns is not None:
        from pydantic import ValidationError

        from agentcli.core.errors import UsageError

        try:
            profile.limits.max_turns = max_turns  # checked against the profile schema's bounds
        except ValidationError as exc:
            problem = exc.errors()[0]["msg"]
            raise UsageError(f"--max-turns {max_turns}: {problem[:1].lower()}{problem[1:]}",
                             hint="give a whole number of turns, e.g. --max-turns 20") from None
    return profile, rule


def load(profile_ref: str | None, workspace: Path | None, model: str | None, max_turns: int | None) -> Profile:
    return load_routed(profile_ref, workspace, model, max_turns)[0]
