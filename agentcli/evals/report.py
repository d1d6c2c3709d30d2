"""Aggregate trials into one row per (profile, scenario, layer variant), as JSON and as rich tables.

Rates are fractions of trials; repairs, retries, turns and tokens are means per trial;
accuracies are over the tool calls made (null when a row made no call it could be judged on).
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import TYPE_CHECKING, Any

from agentcli.evals import scenarios as sc_table

if TYPE_CHECKING:
    from agentcli.evals.runner import Trial

FIELDS = ("profile", "scenario", "layers", "trials", "success_rate", "first_attempt_success",
          "tool_selection_accuracy", "argument_accuracy", "repairs", "retries", "turns", "p50_ms", "p95_ms",
          "failures", "endpoint_errors")
CONTRIBUTION_FIELDS = ("profile", "layer", "variant", "trials", "success_on", "success_without", "contribution",
                       "first_attempt_on", "first_attempt_without", "turns_saved", "retries_saved", "changed",
                       "unexpected")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 3) if xs else 0.0


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def _key(t: Trial) -> tuple[str, str, str]:
    return t.subject, t.scenario, t.layers


def aggregate(trials: list[Trial]) -> list[dict[str, Any]]:
    """One row per (profile, scenario, layer variant)."""
    groups: dict[tuple[str, str, str], list[Trial]] = defaultdict(list)
    for t in trials:
        groups[_key(t)].append(t)
    rows = []
    for (subject, scenario, layers), ts in groups.items():
        calls = sum(t.calls for t in ts)
        expects_none = not sc_table.get(scenario).tools if scenario in sc_table.SCENARIOS else False
        tool_acc = _ratio(sum(t.right_tool for t in ts), calls)
        if tool_acc is None and expects_none:
            tool_acc = 1.0
        rows.append({
            "profile": subject,
            "scenario": scenario,
            "layers": layers,
            "trials": len(ts),
            **_measures(ts),
            "tool_selection_accuracy": tool_acc,
            "argument_accuracy": _ratio(sum(t.right_args for t in ts), calls),
            "tokens": _mean([t.input_tokens + t.output_tokens for t in ts]),
            "failures": sorted({t.reason for t in ts if t.reason})[:3],
            "endpoint_errors": sum(1 for t in ts if t.endpoint_error),
        })
    return rows


def _measures(ts: list[Trial]) -> dict[str, Any]:
    return {
        "success_rate": round(sum(t.passed for t in ts) / len(ts), 3),
        "first_attempt_success": round(sum(t.first_attempt for t in ts) / len(ts), 3),
        "repairs": _mean([t.repairs for t in ts]),
        "retries": _mean([t.retries for t in ts]),
        "turns": _mean([t.turns for t in ts]),
        "p50_ms": round(percentile([t.elapsed_ms for t in ts], 50), 2),
        "p95_ms": round(percentile([t.elapsed_ms for t in ts], 95), 2),
    }


def summary(trials: list[Trial]) -> list[dict[str, Any]]:
    """Per profile and layer variant: the same measures over every scenario."""
    groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    for t in trials:
        groups[(t.subject, t.layers)].append(t)
    return [{"profile": subject, "layers": layers, "trials": len(ts), **_measures(ts)}
            for (subject, layers), ts in groups.items()]


def per_edit_tool(trials: list[Trial]) -> list[dict[str, Any]]:
    """Per profile and edit tool, over the edit scenarios with the layers on: success and turns."""
    groups: dict[tuple[str, str], list[Trial]] = defaultdict(list)
    for t in trials:
        if t.layers == "on" and t.edit_tool and t.scenario in sc_table.SCENARIOS \
                and sc_table.get(t.scenario).edit_tool:
            groups[(t.subject, t.edit_tool)].append(t)
    return [{"profile": subject, "edit_tool": tool, "trials": len(ts), **_measures(ts)}
            for (subject, tool), ts in sorted(groups.items())]


def _expected(t: Trial, layer: str) -> bool:
    """May turning `layer` off change this trial's outcome? "all" may change any scenario that
    exercises a layer; a noisy persona's random faults may need any layer anywhere."""
    if t.noisy or t.scenario not in sc_table.SCENARIOS:
        return True
    exercised = sc_table.get(t.scenario).layers
    return bool(exercised) if layer == "all" else layer in exercised


def contributions(trials: list[Trial]) -> list[dict[str, Any]]:
    """Per profile and layer: layers on minus that one layer off ("all": on minus all off), on the same
    scenarios and trials. `changed` lists the scenarios whose success moved; `unexpected` those of
    them the scenario table says the layer should not matter to (a finding, not a figure)."""
    by: dict[tuple[str, str, str], list[Trial]] = defaultdict(list)
    for t in trials:
        by[_key(t)].append(t)
    rows = []
    subjects = list(dict.fromkeys(t.subject for t in trials))
    labels = list(dict.fromkeys(t.layers for t in trials if t.layers != "on"))
    for subject in subjects:
        scenarios = list(dict.fromkeys(t.scenario for t in trials if t.subject == subject))
        for label in labels:
            pairs = [(by[(subject, sc, "on")], by[(subject, sc, label)]) for sc in scenarios
                     if by.get((subject, sc, "on")) and by.get((subject, sc, label))]
            if not pairs:
                continue
            layer = "all" if label == "off" else label.removeprefix("no-")
            on = [t for a, _ in pairs for t in a]
            off = [t for _, b in pairs for t in b]
            m_on, m_off = _measures(on), _measures(off)
            changed = [a[0].scenario for a, b in pairs if _rate(a) != _rate(b)]
            unexpected = [a[0].scenario for a, b in pairs if _rate(a) != _rate(b) and not _expected(a[0], layer)]
            rows.append({
                "profile": subject, "layer": layer, "variant": label, "trials": len(off),
                "success_on": m_on["success_rate"], "success_without": m_off["success_rate"],
                "contribution": round(m_on["success_rate"] - m_off["success_rate"], 3),
                "first_attempt_on": m_on["first_attempt_success"], "first_attempt_without": m_off["first_attempt_success"],
                "turns_saved": round(m_off["turns"] - m_on["turns"], 3),
                "retries_saved": round(m_off["retries"] - m_on["retries"], 3),
                "changed": changed, "unexpected": unexpected,
            })
    return rows


def _rate(ts: list[Trial]) -> float:
    return sum(t.passed for t in ts) / len(ts)


def to_json(trials: list[Trial], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The --json object: {"results": [...], "summary": [...], "layers": [...], ...extra}."""
    return {"results": aggregate(trials), "summary": summary(trials), "layers": contributions(trials),
            "edit_tools": per_edit_tool(trials), **(extra or {})}


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v * 100:.0f}%"


def _clip(text: str, n: int = 70) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1] + "…"


def tables(trials: list[Trial]) -> list[Any]:
    """Rich renderables: per scenario with the layers on, what each layer contributes, a summary.
    Failure reasons are shown as plain text (they quote model and server output)."""
    from rich.table import Table

    from agentcli.core.escape import styled

    rows = [r for r in aggregate(trials) if r["layers"] == "on"] or aggregate(trials)
    detail = Table(title="agent eval: per scenario, layers on")
    for col in ("profile", "scenario", "trials", "success", "1st try", "tool acc", "arg acc", "repairs",
                "retries", "turns", "tokens", "p50 ms", "failures"):
        detail.add_column(col, justify="left" if col in ("profile", "scenario", "failures") else "right",
                          no_wrap=col != "failures")
    for r in rows:
        detail.add_row(
            styled(r["profile"]), r["scenario"], str(r["trials"]), _pct(r["success_rate"]),
            _pct(r["first_attempt_success"]), _pct(r["tool_selection_accuracy"]), _pct(r["argument_accuracy"]),
            _num(r["repairs"]), _num(r["retries"]), _num(r["turns"]), f"{r['tokens']:.0f}", f"{r['p50_ms']:.1f}",
            styled(_clip(r["failures"][0]) if r["failures"] else ""),
        )
    out: list[Any] = [detail]
    contrib = contributions(trials)
    if contrib:
        layers = Table(title="what each layer contributes (success with all layers on, minus with this one off; "
                             "same loop, same retry budget)")
        for col in ("profile", "layer off", "success on", "without", "contribution", "turns saved",
                    "changed scenarios", "unexpected"):
            layers.add_column(col, justify="left" if col in ("profile", "layer off", "changed scenarios",
                                                             "unexpected") else "right")
        for c in contrib:
            layers.add_row(styled(c["profile"]), c["layer"], _pct(c["success_on"]), _pct(c["success_without"]),
                           f"{c['contribution'] * 100:+.0f} pts", f"{c['turns_saved']:+.2f}",
                           ", ".join(c["changed"]) or "-", ", ".join(c["unexpected"]) or "-")
        out.append(layers)
    edits = per_edit_tool(trials)
    if edits:
        per_tool = Table(title="edit scenarios per edit tool (layers on)")
        for col in ("profile", "edit tool", "trials", "success", "1st try", "turns", "p50 ms"):
            per_tool.add_column(col, justify="left" if col in ("profile", "edit tool") else "right", no_wrap=True)
        for r in edits:
            per_tool.add_row(styled(r["profile"]), r["edit_tool"], str(r["trials"]), _pct(r["success_rate"]),
                             _pct(r["first_attempt_success"]), _num(r["turns"]), f"{r['p50_ms']:.1f}")
        out.append(per_tool)
    total = Table(title="summary per profile and layer variant")
    for col in ("profile", "layers", "trials", "success", "1st try", "repairs", "retries", "turns", "p50 ms", "p95 ms"):
        total.add_column(col, justify="left" if col in ("profile", "layers") else "right", no_wrap=True)
    for r in summary(trials):
        total.add_row(styled(r["profile"]), r["layers"], str(r["trials"]), _pct(r["success_rate"]),
                      _pct(r["first_attempt_success"]), _num(r["repairs"]), _num(r["retries"]), _num(r["turns"]),
                      f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}")
    out.append(total)
    return out
