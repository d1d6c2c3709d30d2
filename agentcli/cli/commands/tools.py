"""`agent tools`: the built-in tools by tier, and which of them a profile and tier let the model see."""

from __future__ import annotations

import json
import sys
from typing import Any

from agentcli.core.errors import UsageError
from agentcli.core.types import Tier


def _limits(profile: str | None) -> tuple[Tier, list[str] | None, list[str], str | None]:
    """(max tier, allow, deny, profile name) from the profile, or the open defaults."""
    if profile is None:
        return Tier.RUN, None, [], None
    try:
        from agentcli.config import load_profile
    except ImportError as exc:  # the loader ships separately; say so instead of a traceback
        raise UsageError(f"profiles cannot be loaded here ({exc})", hint="Run `agent tools` without --profile.") from None
    loaded = load_profile(profile)
    prof = getattr(loaded, "profile", loaded)
    tools = prof.tools
    return Tier.parse(tools.max_tier), tools.allow, list(tools.deny), getattr(prof, "name", None) or profile


def _first_line(text: str) -> str:
    """The description's first sentence, for a one-line listing."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    cut = line.find(". ")
    line = line[: cut + 1] if cut > 0 else line
    return line if len(line) <= 100 else line[:97] + "..."


def rows(tier: Tier, allow: list[str] | None, deny: list[str]) -> list[dict[str, Any]]:
    """One dict per tool, ordered by tier then table order; `visible` follows the registry's rules."""
    from agentcli.tools.registry import default_registry

    reg = default_registry()
    shown = {t.name for t in reg.visible(tier, allow, deny)}
    out = []
    for spec in sorted(reg.all(), key=lambda s: int(s.tier)):
        why = None
        if spec.name not in shown:
            err = reg.check(spec.name, tier, allow, deny)
            why = err.message if err else "hidden"
        out.append({
            "name": spec.name,
            "tier": spec.tier.label,
            "read_only": spec.read_only,
            "needs_approval": spec.needs_approval,
            "visible": spec.name in shown,
            "hidden_because": why,
            "description": _first_line(spec.description),
        })
    return out


def execute(profile: str | None = None, tier: str | None = None, json_out: bool = False) -> int:
    max_tier, allow, deny, name = _limits(profile)
    try:
        wanted = Tier.parse(tier) if tier else max_tier
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    effective = min(wanted, max_tier)
    table = rows(effective, allow, deny)
    if json_out:
        doc = {"profile": name, "tier": effective.label, "max_tier": max_tier.label, "tools": table}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    from rich.table import Table

    from agentcli.ui.escape import styled
    from agentcli.ui.render import make_console

    console = make_console()
    title = f"Tools at tier {effective.label}" + (f" (profile {name}, max {max_tier.label})" if name else "")
    grid = Table(title=styled(title), title_justify="left")
    for col in ("tool", "tier", "read-only", "visible", "what it does"):
        grid.add_column(col, overflow="fold")
    for r in table:
        grid.add_row(styled(str(r["name"])), r["tier"], "yes" if r["read_only"] else "no",
                     "yes" if r["visible"] else "no", styled(str(r["description"])))
    console.print(grid)
    if wanted > max_tier:
        console.print(styled(f"Tier {wanted.label} is above the profile's max_tier ({max_tier.label}); showing {effective.label}."))
    return 0
