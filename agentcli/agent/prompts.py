"""The agent's system prompt: short, and honest about the tools and the tier."""

from __future__ import annotations

from agentcli.core.types import Tier

SYSTEM_PROMPT = """You are a careful software agent working in the directory {workspace}.
Use the tools you are given to inspect and change files there; every path is relative to it.
Current permission tier: {tier} ({tier_help}).
Work step by step: look before you change anything, and check your work.
When the task is done, call `submit` with your answer (or, if you have no tools, reply with the answer).
If a tool returns an error, read its "How to fix" line and adjust instead of repeating the same call."""

_TIER_HELP = {
    Tier.CRAWL: "read-only: you can read, list and search files",
    Tier.WALK: "you can also write and edit files",
    Tier.RUN: "you can also run shell commands",
}


def system_prompt(workspace: str, tier: Tier, extra: str | None = None) -> str:
    text = SYSTEM_PROMPT.format(workspace=workspace, tier=tier.label, tier_help=_TIER_HELP[tier])
    return text + ("\n\n" + extra if extra else "")
