"""Tier from intent: a goal that asks for edits starts at walk, one that asks to run
things starts at run. Capped by the profile's max_tier."""

from __future__ import annotations

import re

from agentcli.core.types import Tier

_RUN = re.compile(
    r"\b(run|execute|install|build|compile|test the|run the tests?|pytest|npm|pip|make|cargo|deploy)\b", re.I
)
_WALK = re.compile(
    r"\b(fix|edit|write|create|modify|change|update|add|refactor|rename|delete|remove|implement|replace|patch)\b", re.I
)


def tier_for_goal(goal: str) -> Tier:
    if _RUN.search(goal):
        return Tier.RUN
    if _WALK.search(goal):
        return Tier.WALK
    return Tier.CRAWL
