"""Parse cost per dialect and argument size, next to vLLM's parser and one json.loads of the arguments.

The inputs are the dialect fixtures (formats taken from each model's template and vLLM's tests):
for each dialect, the first clean one-call case with a plain string argument has that argument
grown with filler words to 1 KB, 10 KB and 100 KB of JSON arguments. The grown reply must still
read as exactly that call through the dialect, or the dialect is left out of the table (and said so).

Per dialect and size: ours forced (parse_text with that dialect alone, the full pipeline to finished
calls), ours auto (every dialect, the default chain), vLLM's extract_tool_calls on the same text
(bench_parse_vllm.py, in its own venv: vLLM's pins clash with ours), and one json.loads of the
arguments. vLLM's Mistral and DeepSeek parsers return arguments undecoded, so "vLLM + one decode"
is the fair anchor: the verdict is ours forced <= vLLM + json.loads. The arguments are decoded as a
reply writes them (characters outside ASCII as themselves, not as \\u escapes): decoding a text
that holds any costs about three times the ASCII one, and that is the text a parser decodes.
Where vLLM cannot run, the verdict falls back to ours forced <= CLEAN_TARGET x json.loads, and the
report says vLLM was not measured and why.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "dialects"
SIZES = (1 << 10, 10 << 10, 100 << 10)
FILLER = " lorem ipsum dolor sit amet"  # nothing any dialect or JSON escapes: the raw and encoded forms agree
CLEAN_TARGET = 3.0  # the corpus target (ours within 3x json.loads) used when vLLM is not there
AUTO_OVER_FORCED_US = 60.0  # the small-reply target for the auto chain over the forced dialect
VLLM_PYTHON_ENV = "AGENTCLI_BENCH_VLLM_PYTHON"
VLLM_VENV = ROOT / ".venv" / "vllm"

# Our dialect -> vLLM's registered tool parser of the same format (vLLM's names differ for a few).
VLLM_NAMES: dict[str, str] = {
    "hermes": "hermes", "qwen3_coder": "qwen3_coder", "mistral": "mistral", "llama3_json": "llama3_json",
    "deepseek_v3": "deepseek_v3", "deepseek_v31": "deepseek_v31", "deepseek_v32": "deepseek_v32",
    "deepseek_v4": "deepseek_v4", "deepseek_v41": "deepseek_v41", "kimi_k2": "kimi_k2", "kimi_k3": "kimi_k3",
    "k2_horizon": "k2_horizon", "glm4_moe": "glm45", "minicpm5": "minicpm5", "hunyuan": "hunyuan_a13b",
    "minimax_m2": "minimax_m2", "minimax_m3": "minimax_m3", "dots": "dots", "phi4_mini": "phi4_mini_json",
    "lfm2": "lfm2", "seed_oss": "seed_oss", "functiongemma": "functiongemma", "gemma4": "gemma4",
    "step3": "step3", "internlm2": "internlm", "jamba": "jamba", "granite": "granite", "xlam": "xlam",
    "longcat": "longcat", "apertus": "apertus", "olmo3": "olmo3", "gigachat": "gigachat3", "inkling": "inkling",
    "command_r": "cohere_command3", "pythonic": "pythonic",
}


@dataclass(frozen=True)
class Sized:
    """One reply in `dialect` whose single call's JSON arguments are about `size` characters."""

    dialect: str
    case: str  # the fixture case it was grown from
    size: int
    text: str
    name: str
    arguments: dict[str, Any]

    def schema(self) -> dict[str, Any]:
        """The offered tool's parameters: each argument typed as its value is (both parsers get it)."""
        kinds = {str: "string", bool: "boolean", int: "integer", float: "number", list: "array", dict: "object"}
        return {"type": "object", "properties": {k: {"type": kinds.get(type(v), "string")}
                                                 for k, v in self.arguments.items()}}


def context(s: Sized) -> Any:
    """The parse context of a served request offering the call's tool (as vLLM's request does)."""
    from agentcli.core.types import Tool
    from agentcli.wire.types import ParseContext

    return ParseContext.of([Tool(s.name, "", s.schema())])


def _reads_as(s: Sized) -> bool:
    from agentcli.wire.pipeline import parse_text

    resp = parse_text(s.text, context(s), (s.dialect,))
    return (len(resp.tool_calls) == 1 and not resp.repairs and not resp.tool_calls[0].error
            and resp.tool_calls[0].name == s.name and resp.tool_calls[0].arguments == s.arguments)


def grow(case: dict[str, Any], dialect: str, size: int) -> Sized | None:
    """The case's reply with one string argument lengthened (in place, as written or JSON-encoded) so
    the arguments encode to about `size` characters; None when no argument grows into a reply that
    still reads as exactly that call."""
    call = case["calls"][0]
    args = call.get("arguments")
    if not isinstance(args, dict):
        return None
    text = case["text"]
    for key, value in args.items():
        if not isinstance(value, str) or not value:
            continue
        need = max(0, size - len(json.dumps(args)))
        extra = (FILLER * (need // len(FILLER) + 1))[:need]
        for written in dict.fromkeys((value, json.dumps(value, ensure_ascii=False)[1:-1], json.dumps(value)[1:-1])):
            if text.count(written) != 1:
                continue
            grown = Sized(dialect, case.get("id", ""), size, text.replace(written, written + extra), call["name"],
                          {**args, key: value + extra})
            if _reads_as(grown):
                return grown
    return None


def candidates(dialect: str, sizes: tuple[int, ...] = SIZES, most: int = 4) -> list[list[Sized]]:
    """Up to `most` fixture cases of `dialect` (one call each) grown to every size, in fixture order."""
    path = FIXTURES / f"{dialect}.json"
    cases = json.loads(path.read_text(encoding="utf-8"))["cases"] if path.exists() else []
    out = []
    for case in cases:
        if len(case.get("calls") or []) != 1:
            continue
        grown = [g for g in (grow(case, dialect, n) for n in sizes) if g]
        if len(grown) == len(sizes):
            out.append(grown)
            if len(out) == most:
                break
    return out


def sized_inputs(sizes: tuple[int, ...] = SIZES, only: tuple[str, ...] | None = None
                 ) -> tuple[dict[str, list[list[Sized]]], list[str]]:
    """(dialect -> candidate cases grown to every size, dialects with no growable case)."""
    from agentcli.wire import dialects

    out, missing = {}, []
    for name in only or tuple(dialects.names()):
        found = candidates(name, sizes)
        if found:
            out[name] = found
        else:
            missing.append(name)
    return out, missing


def vllm_python() -> tuple[str | None, str]:
    """(interpreter of the venv vLLM is installed in, or None; why not)."""
    exe = os.environ.get(VLLM_PYTHON_ENV) or str(VLLM_VENV / "bin" / "python")
    if not Path(exe).exists():
        return None, (f"no vLLM venv ({VLLM_VENV.relative_to(ROOT)}; `make bench-vllm` makes it, "
                      f"or set {VLLM_PYTHON_ENV})")
    return exe, ""


def run_vllm(inputs: dict[str, list[list[Sized]]], quick: bool
             ) -> tuple[dict[str, dict[str, Any]], str]:
    """vLLM's figures per dialect, measured in vLLM's venv on the same texts: {dialect: {case, seconds:
    {size: s | None}, note}}; ({}, why) when it cannot run. vLLM picks, per dialect, the first candidate
    case it reads as the expected call, and ours is then timed on that case."""
    exe, why = vllm_python()
    if exe is None:
        return {}, why
    jobs = [{"dialect": d, "parser": VLLM_NAMES[d],
             "cases": [[{"case": s.case, "size": s.size, "text": s.text, "name": s.name, "arguments": s.arguments,
                         "schema": s.schema()} for s in grown] for grown in found]}
            for d, found in inputs.items() if d in VLLM_NAMES]
    with tempfile.TemporaryDirectory(prefix="agentcli-bench-vllm-") as tmp:
        src, dst = Path(tmp) / "in.json", Path(tmp) / "out.json"
        src.write_text(json.dumps(jobs), encoding="utf-8")
        try:
            res = subprocess.run([exe, str(Path(__file__).with_name("bench_parse_vllm.py")), str(src), str(dst),
                                  "--passes", str(PASSES), *(["--quick"] if quick else [])], capture_output=True, text=True, timeout=1500,
                                 check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {}, f"the vLLM bench did not run: {exc}"
        if res.returncode != 0 or not dst.exists():
            return {}, f"the vLLM bench failed (exit {res.returncode}): {res.stderr.strip()[-300:]}"
        out = json.loads(dst.read_text(encoding="utf-8"))
    return {r["dialect"]: r for r in out["results"]}, out.get("version", "")


@dataclass(frozen=True)
class Row:
    dialect: str
    size: int
    forced: float  # CPU seconds per reply
    auto: float
    loads: float
    vllm: float | None  # None: not measured (why in note)
    note: str = ""
    vllm_at_least: bool = False  # `vllm` is a lower bound (a size too slow to run), not a measurement

    def anchor(self) -> float:
        """What ours forced may cost: vLLM + one decode, or CLEAN_TARGET decodes where vLLM was not measured."""
        return self.vllm + self.loads if self.vllm is not None else CLEAN_TARGET * self.loads

    def verdict(self) -> str:
        return "ok" if self.forced <= self.anchor() else "SLOW"

    def auto_verdict(self) -> str:
        return "ok" if (self.auto - self.forced) * 1e6 <= AUTO_OVER_FORCED_US else "SLOW"


PASSES = 2  # passes over the whole table; each cell is its least figure


def measure(inputs: dict[str, list[list[Sized]]], timer: Callable[[Callable[[Any], Any], Any], float],
            vllm: dict[str, dict[str, Any]]) -> list[Row]:
    from agentcli.wire.pipeline import parse_text

    # Two passes over the whole table, the least figure of each cell kept: a spell of load on this
    # machine (another process, a slow start) lands on different rows in each pass, where repeating a
    # row at once would meet the same spell.
    best: dict[tuple[str, int], tuple[float, float, float]] = {}
    for _ in range(PASSES):
        for dialect, found in inputs.items():
            v = vllm.get(dialect, {})
            grown = next((g for g in found if g[0].case == v.get("case")), found[0])
            for s in grown:
                ctx = context(s)
                forced = timer(lambda t, c=ctx, d=(dialect,): parse_text(t, c, d), s.text)
                auto = timer(lambda t, c=ctx: parse_text(t, c), s.text)
                loads = timer(json.loads, json.dumps(s.arguments, ensure_ascii=False))
                was = best.get((dialect, s.size), (forced, auto, loads))
                best[(dialect, s.size)] = (min(was[0], forced), min(was[1], auto), min(was[2], loads))
    rows = []
    for dialect, found in inputs.items():
        v = vllm.get(dialect, {})
        grown = next((g for g in found if g[0].case == v.get("case")), found[0])
        for s in grown:
            forced, auto, loads = best[(dialect, s.size)]
            seconds = (v.get("seconds") or {}).get(str(s.size))
            bound = seconds is None and str(s.size) in (v.get("at_least") or {})
            if bound:
                seconds = v["at_least"][str(s.size)]
            note = v.get("notes", {}).get(str(s.size)) or v.get("note") or (
                "" if dialect in VLLM_NAMES else "vLLM has no parser for this format")
            rows.append(Row(dialect, s.size, forced, auto, loads, seconds, note if seconds is None or bound else "",
                            bound))
    return rows


def report(rows: list[Row], vllm_note: str, missing: list[str]) -> tuple[list[str], bool]:
    """The per-dialect, per-size table and whether every row met both verdicts."""
    us = 1e6
    lines = [f"{'dialect':<17}{'args':>5}{'forced':>9}{'auto':>9}{'auto-forced':>12}{'vLLM':>14}{'loads':>8}"
             f"{'anchor':>13}{'forced/anchor':>14}  verdict (forced, auto)"]
    ok = True
    for r in rows:
        verdicts = (r.verdict(), r.auto_verdict())
        ok &= verdicts == ("ok", "ok")
        vcol = (f"{('>=' if r.vllm_at_least else '') + format(r.vllm * us, '.1f'):>14}" if r.vllm is not None
                else f"{'-':>14}")
        mark = "" if r.vllm is not None else "*"
        lines.append(f"{r.dialect:<17}{r.size // 1024:>4}K{r.forced * us:>9.1f}{r.auto * us:>9.1f}"
                     f"{(r.auto - r.forced) * us:>+12.1f}{vcol}{r.loads * us:>8.2f}{r.anchor() * us:>12.1f}{mark or ' '}"
                     f"{r.forced / r.anchor():>14.2f}  {verdicts[0]}, {verdicts[1]}")
    measured = sum(r.vllm is not None and not r.vllm_at_least for r in rows)
    lines += [
        "CPU µs per reply. forced: parse_text with the dialect alone (the full pipeline to finished calls, the tool "
        "offered); auto: every dialect; vLLM: its extract_tool_calls on the same text and request; loads: one "
        f"json.loads of the arguments; each figure (ours, vLLM's, loads) the least of {PASSES} passes over the whole table.",
        f"anchor: vLLM + loads ({measured} of {len(rows)} rows measured; >= a lower bound); * where vLLM was not "
        "measured: "
        f"{CLEAN_TARGET:g} x loads (the corpus target).",
        f"verdict: forced <= anchor; auto: auto - forced <= {AUTO_OVER_FORCED_US:g} µs.",
    ]
    if vllm_note and not measured:
        lines.append(f"vLLM was not measured: {vllm_note}")
    elif vllm_note:
        lines.append(f"vLLM: {vllm_note}")
    by_note: dict[str, dict[str, list[str]]] = {}  # why -> dialect -> sizes
    for r in rows:
        if (r.vllm is None or r.vllm_at_least) and r.note:
            by_note.setdefault(r.note, {}).setdefault(r.dialect, []).append(f"{r.size // 1024}K")
    every = len({r.size for r in rows})
    for why, where in by_note.items():
        named = [d if len(sizes) == every else f"{d} {'/'.join(sizes)}" for d, sizes in where.items()]
        lines.append(f"  {', '.join(named)}: {why}")
    if missing:
        lines.append(f"no fixture case grows to every size (left out): {', '.join(missing)}")
    return lines, ok


def main(timer: Callable[[Callable[[Any], Any], Any], float], quick: bool) -> bool:
    sizes = SIZES[:2] if quick else SIZES
    inputs, missing = sized_inputs(sizes)
    vllm, note = run_vllm(inputs, quick)
    lines, ok = report(measure(inputs, timer, vllm), note, missing)
    print("\n".join(lines))
    return ok


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from cpu_timing import per_call

    raise SystemExit(0 if main(per_call, "--quick" in sys.argv) else 1)
