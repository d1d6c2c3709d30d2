"""Continuing a saved session: which one the user asked for, what it carries over, and the tier it
had reached. `open_session(resume=...)` restores it; the CLI only says what the user asked."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from agentcli.core.errors import UsageError
from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.agent.store import SavedSession
    from agentcli.core.types import Tier


@record(frozen=True)
class ResumeRequest:
    """`--resume ID` (any unique prefix), `--resume last` or `--continue`: the latest session of the
    workspace when `latest`, else the one `ref` names."""

    ref: str | None = None
    latest: bool = False

    @classmethod
    def of(cls, resume: str | None, continue_: bool) -> ResumeRequest | None:
        """The request the flags make, or None when they ask for a new session."""
        if continue_ and resume:
            raise UsageError("--continue and --resume both name a session", hint="use one of them")
        if not (resume or continue_):
            return None
        latest = continue_ or resume == "last"
        return cls(None if latest else resume, latest)

    def load(self, workspace: Path | None) -> SavedSession:
        """The saved session, its history rebuilt from the transcript."""
        from agentcli.agent.store import find_session, load_session
        from agentcli.agent.workspace import resolve_workspace

        path = find_session(None, workspace=resolve_workspace(workspace)) if self.latest else find_session(self.ref)
        return load_session(path)


class Carried(NamedTuple):
    """What a resumed session keeps unless the user says otherwise."""

    profile: str | None
    workspace: Path | None
    model: str | None


def carried(saved: SavedSession, profile: str | None, workspace: Path | None, model: str | None) -> Carried:
    """The user's `--profile`, `-w` and `-m` where given, else the saved session's own."""
    meta = saved.meta
    return Carried(
        profile or meta.get("profile_ref") or meta.get("profile"),
        workspace or (Path(meta["workspace"]) if meta.get("workspace") else None),
        model or meta.get("model"),
    )


def resumed_tier(saved: SavedSession, cap: Tier) -> Tier | None:
    """The tier the saved session had reached (its raises replayed), never above this run's `cap`;
    None when the transcript names none it can read (the session then starts at its start tier)."""
    from agentcli.core.types import Tier

    if not isinstance(saved.tier, str):
        return None
    try:
        return min(Tier.parse(saved.tier), cap)
    except ValueError:
        return None
