"""Cold start of every command that needs no network, next to `llm --help` (simonw/llm, a CLI of
the same kind), and the heavy modules each one imports.

Run: python benchmarks/bench_startup.py [runs]
Target: each command within 0.15x of `llm --help` (CPU time; wall time shown too). `llm` is not a
dependency: `pip install llm` into the same venv to get the comparison; without it the absolute
figures are printed alone. Commands run interleaved, so a busy machine slows them alike, and the
medians are of user+system CPU time, which other processes on the machine barely change.
Bytecode caching is on for the runs (PYTHONDONTWRITEBYTECODE is dropped, and the warm-up run writes
the caches): an installed package starts from compiled bytecode, as `llm` does from site-packages.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HEAVY = ("httpx", "pydantic", "prompt_toolkit", "jsonschema", "json_repair", "rich", "typer")
TARGET = 0.15
REPLY = '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
FLOORS = {
    "python -c pass": "pass",
    "floor: typer": "import typer",
    "floor: typer + rich": "import typer, rich.console, rich.table",
    "floor: typer + pydantic": ("import typer\nfrom pydantic import BaseModel\n"
                                "class M(BaseModel):\n    x: int = 1\nM()"),
}


def commands(reply: Path) -> dict[str, list[str]]:
    """Label -> agent arguments: every command that can answer without the network."""
    return {
        "agent --version": ["--version"],
        "agent --help": ["--help"],
        "agent parse (one reply)": ["parse", str(reply)],
        "agent doctor --offline": ["doctor", "--offline", "--profile", "offline"],
        "agent tools": ["tools"],
        "agent profiles list": ["profiles", "list"],
        "agent sessions": ["sessions"],
        "agent run --help": ["run", "--help"],
    }


def _agent() -> list[str]:
    exe = Path(sys.executable).with_name("agent")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "agentcli"]


def _llm() -> list[str] | None:
    exe = Path(sys.executable).with_name("llm")
    found = str(exe) if exe.exists() else shutil.which("llm")
    return [found, "--help"] if found else None


def _distributions(script: str, env: dict[str, str]) -> str:
    """How many distributions the interpreter that runs `script` sees (from its #! line)."""
    try:
        first = Path(script).read_bytes()[:512].split(b"\n", 1)[0].decode()
    except (OSError, UnicodeDecodeError):
        return "?"
    python = first[2:].strip().split()[0] if first.startswith("#!") else sys.executable
    code = "import importlib.metadata as m; print(sum(1 for _ in m.distributions()))"
    res = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env, check=False)
    return res.stdout.strip() or "?"


def once(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(CPU ms, wall ms) of one run, children included."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
    wall = (time.perf_counter() - t0) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return cpu, wall


def heavy_imports(args: list[str], env: dict[str, str]) -> list[str]:
    code = ("import sys, runpy\nsys.argv = ['agent', *sys.argv[1:]]\n"
            "try:\n    runpy.run_module('agentcli', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            f"sys.stderr.write('\\nHEAVY:' + ','.join(m for m in {HEAVY!r} if m in sys.modules) + '\\n')")
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=False)
    line = next((ln for ln in reversed(res.stderr.splitlines()) if ln.startswith("HEAVY:")), "HEAVY:")
    return [m for m in line[6:].split(",") if m]


def main() -> int:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    with tempfile.TemporaryDirectory() as tmp:
        inherited = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env = {**inherited, "XDG_CONFIG_HOME": f"{tmp}/config", "XDG_DATA_HOME": f"{tmp}/data",
               "XDG_CACHE_HOME": f"{tmp}/cache", "NO_COLOR": "1"}
        reply = Path(tmp) / "reply.txt"
        reply.write_text(REPLY)
        table = {label: _agent() + args for label, args in commands(reply).items()}
        # The floors every command stands on: no command can start faster than the libraries it must
        # import, so these rows say how much of each figure is agentcli's own.
        for label, code in FLOORS.items():
            table[label] = [sys.executable, "-c", code]
        llm = _llm()
        if llm:
            table["llm --help"] = llm
        samples: dict[str, list[tuple[float, float]]] = {k: [] for k in table}
        for argv in table.values():
            once(argv, env)  # warm the file cache and write the bytecode caches
        for _ in range(runs):
            for label, argv in table.items():
                samples[label].append(once(argv, env))
        cpu = {k: statistics.median(c for c, _ in v) for k, v in samples.items()}
        wall = {k: statistics.median(w for _, w in v) for k, v in samples.items()}
        base = cpu.get("llm --help")
        print(f"median of {runs} interleaved runs; ratio = CPU time / CPU time of llm --help (target <= {TARGET}x)")
        print(f"{'command':<26}{'cpu ms':>8}{'wall ms':>9}{'ratio':>8}{'':>6}  heavy modules imported")
        missed = []
        for label in table:
            ratio = f"{cpu[label] / base:.2f}x" if base else "-"
            verdict = ""
            if base and label.startswith("agent"):
                verdict = "ok" if cpu[label] / base <= TARGET else "SLOW"
                if verdict == "SLOW":
                    missed.append(label)
            heavy = "" if not label.startswith("agent") else ", ".join(heavy_imports(
                table[label][len(_agent()):], env)) or "none"
            print(f"{label:<26}{cpu[label]:>8.1f}{wall[label]:>9.1f}{ratio:>8}{verdict:>6}  {heavy}")
        if not base:
            print("llm is not installed: `pip install llm` into this venv to compare")
        if base and llm:
            # llm loads plugins through every installed distribution's entry points, so its time (the
            # denominator of every ratio) grows with the venv: say which llm and how big a venv.
            version = subprocess.run([llm[0], "--version"], capture_output=True, text=True, env=env, check=False)
            print(f"baseline: {version.stdout.strip() or 'llm'}, in an environment of {_distributions(llm[0], env)} "
                  "installed distributions")
        if missed:
            print(f"over {TARGET}x: {', '.join(missed)}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
