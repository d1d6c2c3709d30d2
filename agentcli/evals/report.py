"""Aggregate trials into one row per (profile, scenario, layers), as JSON and as rich tables.

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
          "tool_selection_accuracy", "argument_accuracy", "repairs", "retries", "turns", "p50_ms", "p95_ms")


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _mean(xs: list[float]) -> float:
    return round(sum(xs) / len(xs), 3) if xs else 0.0


def _ratio(num: int, den: int) -> float | None:
    return round(num / den, 3) if den else None


def aggregate(trials: list[Trial]) -> list[dict[str, Any]]:
    groups: dict[tuple[str, str, bool], list[Trial]] = defaultdict(list)
    for t in trials:
        groups[(t.subject, t.scenario, t.layers)].append(t)
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
            "layers": "on" if layers else "off",
            "trials": len(ts),
            "success_rate": round(sum(t.passed for t in ts) / len(ts), 3),
            "first_attempt_success": round(sum(t.first_attempt for t in ts) / len(ts), 3),
            "tool_selection_accuracy": tool_acc,
            "argument_accuracy": _ratio(sum(t.right_args for t in ts), calls),
            "repairs": _mean([t.repairs for t in ts]),
            "retries": _mean([t.retries for t in ts]),
            "turns": _mean([t.turns for t in ts]),
            "tokens": _mean([t.input_tokens + t.output_tokens for t in ts]),
            "p50_ms": round(percentile([t.elapsed_ms for t in ts], 50), 2),
            "p95_ms": round(percentile([t.elapsed_ms for t in ts], 95), 2),
            "failures": sorted({t.reason for t in ts if t.reason})[:3],
        })
    return rows


def summary(trials: list[Trial]) -> list[dict[str, Any]]:
    """Per profile and layers: the same measures over every scenario."""
    groups: dict[tuple[str, bool], list[Trial]] = defaultdict(list)
    for t in trials:
        groups[(t.subject, t.layers)].append(t)
    out = []
    for (subject, layers), ts in groups.items():
        out.append({
            "profile": subject, "layers": "on" if layers else "off", "trials": len(ts),
            "success_rate": round(sum(t.passed for t in ts) / len(ts), 3),
            "first_attempt_success": round(sum(t.first_attempt for t in ts) / len(ts), 3),
            "repairs": _mean([t.repairs for t in ts]), "retries": _mean([t.retries for t in ts]),
            "turns": _mean([t.turns for t in ts]),
            "p50_ms": round(percentile([t.elapsed_ms for t in ts], 50), 2),
            "p95_ms": round(percentile([t.elapsed_ms for t in ts], 95), 2),
        })
    return out


def gain(trials: list[Trial]) -> list[dict[str, Any]]:
    """Per profile run both ways: success with the layers on minus success with them off."""
    rows = summary(trials)
    off = {r["profile"]: r for r in rows if r["layers"] == "off"}
    return [{"profile": r["profile"], "success_on": r["success_rate"], "success_off": off[r["profile"]]["success_rate"],
             "gain": round(r["success_rate"] - off[r["profile"]]["success_rate"], 3)}
            for r in rows if r["layers"] == "on" and r["profile"] in off]


def to_json(trials: list[Trial], extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The --json object: {"results": [...], "summary": [...], "gain": [...], ...extra}."""
    return {"results": aggregate(trials), "summary": summary(trials), "gain": gain(trials), **(extra or {})}


def _num(v: float) -> str:
    return f"{v:.2f}".rstrip("0").rstrip(".")


def _pct(v: float | None) -> str:
    return "-" if v is None else f"{v * 100:.0f}%"


def tables(trials: list[Trial]) -> list[Any]:
    """Rich renderables: per-scenario detail (layers on, with the off success beside it), then a summary."""
    from rich.table import Table

    rows = aggregate(trials)
    off = {(r["profile"], r["scenario"]): r for r in rows if r["layers"] == "off"}
    detail = Table(title="agent eval: per scenario (layers on; 'off' = no repair, no validation retry)")
    for col in ("profile", "scenario", "trials", "success", "off", "1st try", "tool acc", "arg acc",
                "repairs", "retries", "turns", "tokens", "p50 ms", "p95 ms"):
        detail.add_column(col, justify="left" if col in ("profile", "scenario") else "right", no_wrap=True)
    has_on = {(r["profile"], r["scenario"]) for r in rows if r["layers"] == "on"}
    for r in rows:
        if r["layers"] == "off" and (r["profile"], r["scenario"]) in has_on:
            continue  # shown in the "off" column of its layers-on row
        o = off.get((r["profile"], r["scenario"])) if r["layers"] == "on" else None
        detail.add_row(
            r["profile"], r["scenario"] + ("" if r["layers"] == "on" else " (off)"), str(r["trials"]),
            _pct(r["success_rate"]), _pct(o["success_rate"]) if o else "-", _pct(r["first_attempt_success"]),
            _pct(r["tool_selection_accuracy"]), _pct(r["argument_accuracy"]), _num(r["repairs"]),
            _num(r["retries"]), _num(r["turns"]), f"{r['tokens']:.0f}", f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}",
        )
    total = Table(title="summary per profile (gain = success with the layers on minus off)")
    for col in ("profile", "layers", "trials", "success", "gain", "1st try", "repairs", "retries", "turns",
                "p50 ms", "p95 ms"):
        total.add_column(col, justify="left" if col == "profile" else "right", no_wrap=True)
    gains = {g["profile"]: g["gain"] for g in gain(trials)}
    for r in summary(trials):
        g = gains.get(r["profile"]) if r["layers"] == "on" else None
        total.add_row(r["profile"], r["layers"], str(r["trials"]), _pct(r["success_rate"]),
                      "-" if g is None else f"{g * 100:+.0f} pts",
                      _pct(r["first_attempt_success"]), _num(r["repairs"]), _num(r["retries"]), _num(r["turns"]),
                      f"{r['p50_ms']:.1f}", f"{r['p95_ms']:.1f}")
    return [detail, total]
