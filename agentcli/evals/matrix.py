"""The matrix view: model family x dialect x provider.

Two sources: golden fixtures (raw outputs from real bug reports, run through the same parsers
as live turns, with repair on and off) and the scenario trials (how each persona fared in the
loop: repair-needed, validation-retry and stuck rates, native vs emulated).
"""

from __future__ import annotations

import json
from collections import defaultdict
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentcli.core.types import ParsedResponse
    from agentcli.evals.runner import Subject, Trial

STUCK_STOPS = frozenset({"stuck", "max_turns", "error"})


def load_golden() -> list[dict[str, Any]]:
    """Every golden case, each with its file's family."""
    cases = []
    folder = resources.files("agentcli.evals") / "golden"
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json"):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        for case in data["cases"]:
            cases.append({"family": data["family"], "file": entry.name, **case})
    return cases


def _parse(case: dict[str, Any], repair: bool) -> ParsedResponse:
    from agentcli import wire
    from agentcli.core.types import Tool
    from agentcli.wire.dialects import DIALECTS
    from agentcli.wire.types import ParseContext, WirePlan

    tools = [Tool(n, "", {"type": "object", "properties": {}}) for n in case.get("tools", ())]
    ctx = ParseContext.of(tools, repair=repair)
    if case["mode"] == "text":
        return wire.parse_text(case["input"], ctx)
    plan = WirePlan(api=case["provider"], native_tools=True, parsers=tuple(DIALECTS))
    return wire.parse_response(plan, case["input"], ctx)


def _matches(parsed: ParsedResponse, expect: list[dict[str, Any]]) -> bool:
    got = [(c.name, json.dumps(c.arguments, sort_keys=True)) for c in parsed.tool_calls if not c.error and not c.unknown]
    want = [(e["name"], json.dumps(e["arguments"], sort_keys=True)) for e in expect]
    return len(got) == len(parsed.tool_calls) and sorted(got) == sorted(want)


def run_golden() -> list[dict[str, Any]]:
    """One row per fixture: parsed with repair on and off, the dialects that matched, repairs applied."""
    rows = []
    for case in load_golden():
        on = _parse(case, True)
        off = _parse(case, False)
        rows.append({
            "id": case["id"], "family": case["family"], "provider": case["provider"], "source": case["source"],
            "dialects": sorted({c.dialect for c in on.tool_calls}),
            "parsed": _matches(on, case["expect"]),
            "parsed_without_repair": _matches(off, case["expect"]),
            "repairs": [r.kind for r in on.repairs],
            "known_gap": case.get("known_gap"),
        })
    return rows


def golden_matrix(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per (family, dialect, provider): parse success and repair-needed rates over the fixtures."""
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        groups[(r["family"], "+".join(r["dialects"]) or "(none)", r["provider"])].append(r)
    return [{
        "family": fam, "dialect": dia, "provider": prov, "fixtures": len(rs),
        "parse_success": round(sum(r["parsed"] for r in rs) / len(rs), 3),
        "parse_success_without_repair": round(sum(r["parsed_without_repair"] for r in rs) / len(rs), 3),
        "repair_needed": round(sum(bool(r["repairs"]) for r in rs) / len(rs), 3),
    } for (fam, dia, prov), rs in sorted(groups.items())]


def trial_matrix(trials: list[Trial], subjects: list[Subject]) -> list[dict[str, Any]]:
    """Per persona and layers: family, dialect, provider, native or emulated, and how its trials went."""
    info = {s.name: s for s in subjects}
    groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    for t in trials:
        groups[(t.subject, t.layers)].append(t)
    rows = []
    for (name, layers), ts in groups.items():
        s = info.get(name)
        n = len(ts)
        calls = sum(t.calls for t in ts) or 1
        rows.append({
            "profile": name, "family": s.family if s else "", "provider": s.api if s else "",
            "mode": "native" if ts[0].native else "emulated", "dialect": ts[0].plan_dialect or "native",
            "layers": layers, "trials": n,
            "success_rate": round(sum(t.passed for t in ts) / n, 3),
            "valid_call_rate": round(sum(t.right_args for t in ts) / calls, 3),
            "repair_needed_rate": round(sum(t.repairs > 0 for t in ts) / n, 3),
            "validation_retry_rate": round(sum(t.validation_errors > 0 for t in ts) / n, 3),
            "stuck_rate": round(sum(t.stop in STUCK_STOPS for t in ts) / n, 3),
        })
    return rows


def tables(golden: list[dict[str, Any]], trial_rows: list[dict[str, Any]]) -> list[Any]:
    from rich.table import Table

    def pct(v: float) -> str:
        return f"{v * 100:.0f}%"

    g = Table(title="golden fixtures from real bug reports (family x dialect x provider)")
    for col in ("family", "dialect", "provider", "fixtures", "parsed", "parsed w/o repair", "repair needed"):
        g.add_column(col, justify="right" if col in ("fixtures",) or "pars" in col or "repair" in col else "left")
    for r in golden_matrix(golden):
        g.add_row(r["family"], r["dialect"], r["provider"], str(r["fixtures"]), pct(r["parse_success"]),
                  pct(r["parse_success_without_repair"]), pct(r["repair_needed"]))
    t = Table(title="scenario trials by persona (family x dialect x provider)")
    for col in ("profile", "family", "provider", "mode", "dialect", "layers", "success", "valid calls",
                "repair needed", "validation retry", "stuck"):
        t.add_column(col, no_wrap=True)
    for r in trial_rows:
        t.add_row(r["profile"], r["family"], r["provider"], r["mode"], r["dialect"], r["layers"],
                  pct(r["success_rate"]), pct(r["valid_call_rate"]), pct(r["repair_needed_rate"]),
                  pct(r["validation_retry_rate"]), pct(r["stuck_rate"]))
    return [g, t]
