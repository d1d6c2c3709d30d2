"""`agent doctor`: option wiring; the checks live in `agent.doctor`, the panel in `ui.doctor`."""

from __future__ import annotations

import json
from pathlib import Path


def execute(profile: str | None = None, model: str | None = None, json_out: bool = False, offline: bool = False,
            probe: bool = False, forget: bool = False) -> int:
    from agentcli.core.heap import paused, settle

    settle()  # the command line's modules
    with paused():  # a one-shot report: its few cycles wait for the end
        from agentcli.agent.doctor import gather
        from agentcli.cli.profile_load import load_routed
        from agentcli.ui.doctor import render

        prof, rule = load_routed(profile, Path.cwd(), model, None)
        report = gather(prof, offline=offline, probe=probe, forget=forget)
        report["provider_rule"] = rule or "the profile's provider"
        if json_out:
            print(json.dumps(report, indent=2, default=str))
        else:
            render(report)
        settle()  # what the report loaded stays to the end: not walked by a collection after it
    return 0 if all(c["ok"] or c["warning"] for c in report["checks"]) else 1
