"""The run header: which profile, provider, model, wire plan, tier, folder, sandbox and
project instructions a run uses, in one or two lines on stderr before anything happens.

`facts()` is the data (also the `session_start` event of `--json`); `header_lines()` is
its terminal form, built as rich `Text` from parts (names and paths are untrusted).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from rich.text import Text

from agentcli.core.escape import visible


def _sandbox(session: Any) -> str:
    """What a shell command would run in, in a few words."""
    tools = session.profile.tools
    reachable = session.registry.visible(session.max_tier, tools.allow, tools.deny)
    if not any(t.runs_commands for t in reachable):
        return f"no shell (cap {session.max_tier.label})"
    if session.profile.bash.network:
        return "shell in the workspace, network allowed"
    try:
        from agentcli.tools.isolation import probe_network_isolation

        prefix, why = probe_network_isolation()
    except OSError:  # a probe problem must not stop the run; the bash tool reports it itself
        prefix, why = None, "unknown"
    return "shell in the workspace, no network" if prefix else f"shell in the workspace, network not isolated ({why})"


def risky_workspace(ws: Path) -> str | None:
    """A warning when the workspace is the filesystem root or the home directory."""
    real = os.path.realpath(ws)
    if real == os.path.realpath(os.sep):
        return "the workspace is / (the whole filesystem): pass --workspace DIR or cd into a project"
    if real == os.path.realpath(Path.home()):
        return "the workspace is your home directory: pass --workspace DIR or cd into a project"
    return None


def facts(session: Any, *, resumed: bool = False) -> dict[str, Any]:
    """Everything the header shows, as plain data."""
    plan = session.plan
    wire = f"native ({plan.api})" if plan.native_tools else f"emulated ({plan.dialect} over {plan.api})"
    instructions = list(session.instructions.files) if session.instructions is not None else []
    grant = session.tier_grant()
    return {
        "session_id": session.id, "resumed": resumed, "profile": session.profile.name,
        "provider": session.profile.provider, "model": session.profile.model, "wire": wire,
        "tier": session.tier.label, "max_tier": session.max_tier.label,
        "preapproved": grant.preapproved.label, "cap_from": grant.cap_from, "workspace": str(session.workspace),
        "sandbox": _sandbox(session), "instructions": instructions,
        "warning": risky_workspace(session.workspace),
    }


def _home(path: str) -> str:
    home = str(Path.home())
    return "~" + path[len(home):] if home != os.sep and (path == home or path.startswith(home + os.sep)) else path


def _pair(label: str, value: str, style: str = "bold") -> Text:
    return Text(label + " ", style="dim") + Text(visible(value, keep_newlines=False), style=style)


def _tier_rule(f: dict[str, Any]) -> str:
    """How the tier may move: what rises unasked, what needs your yes, and where the cap comes from."""
    tier, pre, cap = f["tier"], f.get("preapproved", f["tier"]), f["max_tier"]
    source = "--tier" if f.get("cap_from") == "--tier" else "profile"
    if tier == cap:
        rise = ""
    elif pre == cap:
        rise = "rises unasked; "
    elif pre != tier:
        rise = f"{pre} unasked, {cap} on your yes; "
    else:
        rise = "rises on your yes; "
    return f"{rise}cap {cap}, {source}"


def header_lines(f: dict[str, Any]) -> list[Text]:
    dot = Text(" · ", style="dim")
    first = Text.assemble(
        Text("agent", style="bold cyan"), dot, _pair("profile", f["profile"]), dot,
        _pair("model", f["model"]), Text(" via ", style="dim"), Text(visible(f["provider"])), dot,
        _pair("tools", f["wire"], style=""),
    )
    tier = Text(f["tier"], style="bold") + Text(f" ({_tier_rule(f)})", style="dim")
    second = Text.assemble(
        Text("tier ", style="dim"), tier, dot, _pair("workspace", _home(f["workspace"])), dot,
        Text(visible(f["sandbox"], keep_newlines=False)),
    )
    if f["instructions"]:
        second += dot + _pair("instructions", ", ".join(f["instructions"]), style="")
    if f["resumed"]:
        second += dot + _pair("session", f["session_id"], style="")
    lines = [first, second]
    if f["warning"]:
        lines.append(Text("! " + f["warning"], style="yellow"))
    return lines


def print_header(console: Any, f: dict[str, Any]) -> None:
    for line in header_lines(f):
        # A terminal gets lines wrapped at words to its width; a pipe, a file or a CI log gets whole
        # lines (rich would otherwise crop them at its 80-column default, losing the session id).
        if console.is_terminal:
            console.print(line, overflow="fold", soft_wrap=False)
        else:
            console.print(line, overflow="ignore", soft_wrap=True, crop=False)
