"""Assemble a Session from a profile: model capability, provider, wire plan, tools, transcript."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from agentcli.agent.approval import TierGrant
from agentcli.agent.session import Session
from agentcli.agent.store import Transcript, new_session_id, sessions_dir
from agentcli.agent.workspace import resolve_workspace
from agentcli.core.errors import UsageError
from agentcli.core.types import Tier

if TYPE_CHECKING:
    import httpx

    from agentcli.agent.store import SavedSession
    from agentcli.config.schema import Profile
    from agentcli.providers.base import Provider
    from agentcli.tools.deferred import ToolCatalog
    from agentcli.tools.mcp.manager import McpManager


def _tier(value: str) -> Tier:
    try:
        return Tier.parse(value)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def starting_tier(requested: str | None, start_tier: str, max_tier: Tier) -> Tier:
    """An explicit start (a resumed session's tier, a test), else the profile's `tools.start_tier`
    (default crawl), never above the cap. Never guessed from the goal's words: a higher tier
    comes only through the tier checkpoint."""
    if requested:
        tier = _tier(requested)
        if tier > max_tier:
            raise UsageError(
                f"--tier {tier.label} is above this profile's max_tier ({max_tier.label})",
                hint="raise [tools] max_tier in the profile, or ask for a lower tier",
            )
        return tier
    return min(Tier.parse(start_tier), max_tier)


def tier_cap(requested: str | None, profile_max: Tier) -> Tier:
    """The run's cap: `--tier`, else the profile's max_tier; a flag never passes the profile's."""
    if not requested:
        return profile_max
    cap = _tier(requested)
    if cap > profile_max:
        raise UsageError(
            f"--tier {cap.label} is above this profile's max_tier ({profile_max.label})",
            hint="raise [tools] max_tier in the profile, or ask for a lower tier",
        )
    return cap


def open_session(
    profile: Profile,
    workspace: Path | None = None,
    *,
    tier: str | None = None,
    cap: str | None = None,
    goal: str | None = None,
    approve_mode: str = "ask",
    interactive: bool = False,
    session_id: str | None = None,
    record: bool = True,
    transport: httpx.AsyncBaseTransport | None = None,
    provider: Provider | None = None,
    resume: SavedSession | None = None,
) -> Session:
    """Build everything one conversation needs. `provider` replaces the profile's (tests, `agent eval`);
    `cap` is `--tier`; `tier` starts the run there instead of at start_tier. `resume` continues a saved
    session: its id, history and file ledger, its goal unless a new one is given, and the tier it had
    reached (its raises replayed, capped by this run's cap) unless `tier` says otherwise."""
    from agentcli.models import LearnedStore
    from agentcli.providers import create as create_provider
    from agentcli.tools.base import ToolContext
    from agentcli.tools.edit_choice import session_registry
    from agentcli.tools.isolation import protect_process_environment
    from agentcli.tools.sandbox import Workspace

    ws = resolve_workspace(workspace)
    profile_max = Tier.parse(profile.tools.max_tier)
    max_tier = tier_cap(cap, profile_max)
    provider = provider or create_provider(profile, transport=transport)
    # The key is read; keep shells from reading it back out of /proc/<our pid>/environ.
    protect_process_environment([profile.api_key_env] if profile.api_key_env else [])
    learned = LearnedStore() if record else None
    from agentcli.agent.resolve import resolve_model

    capability, plan = resolve_model(profile, provider, learned)
    # per session: tools a session adds (MCP, plugins) stay in it; the edit tool is the model's own form
    registry = session_registry(profile.tools.edit_tool, capability.capability.edit_tool, profile.tools.deny)
    mcp: McpManager | None = None
    mcp_warnings: list[str] = []
    if profile.mcp or profile.mcp_servers:  # the MCP machinery loads only for a profile that names servers
        from agentcli.tools.mcp.manager import manager_for

        mcp, mcp_warnings = manager_for(profile, ws)
    ctx = ToolContext(
        workspace=Workspace(ws), bash=profile.bash, max_output_bytes=profile.limits.max_tool_output_bytes,
        result_mode=profile.tools.result_mode, fetch=profile.fetch,
        key_env=tuple(k for k in (profile.api_key_env, getattr(provider, "key_env", None)) if k),
    )
    sid = session_id or (resume.id if resume is not None else new_session_id())
    start = starting_tier(tier, profile.tools.start_tier, max_tier)
    if resume is not None and not tier:
        from agentcli.agent.resume import resumed_tier

        start = resumed_tier(resume, max_tier) or start
    if resume is not None and goal is None:
        goal = resume.meta.get("goal")
    transcript = _open_transcript(sid, profile, ws, goal, start) if record else None
    session = Session(
        id=sid, profile=profile, workspace=ws, provider=provider, capability=capability, plan=plan,
        registry=registry, tool_ctx=ctx, tier=start, max_tier=max_tier,
        grant=TierGrant.of(approve_mode, start, max_tier, "--tier" if cap else "profile", profile_max),
        transcript=transcript, approve_mode=approve_mode, interactive=interactive, learned=learned,
        mcp=mcp, catalog=_catalog() if mcp is not None else None,  # tool_search when tools overflow
    )
    from agentcli.agent.instructions import Instructions

    session.instructions = Instructions.load(ws)
    if transcript:
        from agentcli.agent.checkpoints import BlobStore, Recorder, blob_dir

        session.recorder = Recorder(ws, BlobStore(blob_dir(transcript.path)))
    session.tool_notes.extend(mcp_warnings)
    if resume is not None:
        session.history, session.ledger = resume.history, resume.ledger
    return session


def _catalog() -> ToolCatalog:
    from agentcli.tools.deferred import ToolCatalog

    return ToolCatalog()


def _open_transcript(sid: str, profile: Profile, ws: Path, goal: str | None, start: Tier) -> Transcript:
    """The session's transcript, its opening record written at once: a run killed a moment later
    leaves a session that says what it was (its goal, model, tier), never an empty file."""
    transcript = Transcript(sessions_dir() / f"{sid}.jsonl")
    transcript.write(
        "session", id=sid, profile=profile.name, provider=profile.provider, model=profile.model,
        workspace=str(ws), goal=goal, tier=start.label, pid=os.getpid(),
        profile_ref=str(profile.source) + ("#" + profile.name if profile.name else "") if profile.source else profile.name,
    )
    return transcript
