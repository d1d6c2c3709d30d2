"""Start-up time of `agent --help` and `agent --version`, and what they import.

Run: python benchmarks/bench_startup.py [runs]
Goal: well under 150 ms for --help on a 2-core machine.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time

HEAVY = ("httpx", "pydantic", "prompt_toolkit", "jsonschema", "json_repair", "rich")


def timed(args: list[str], runs: int) -> list[float]:
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "agentcli", *args], check=True, stdout=subprocess.DEVNULL)
        out.append((time.perf_counter() - t0) * 1000)
    return out


def heavy_imports() -> list[str]:
    code = "import sys; sys.argv=['agent','--help']\nfrom agentcli.cli.main import app\ntry: app()\nexcept SystemExit: pass\n" \
           f"print(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    last = res.stdout.strip().splitlines()[-1] if res.stdout.strip() else ""
    return [m for m in last.split(",") if m and m in HEAVY]


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 15
    base = timed(["--version"], 1)  # warm the file cache
    python_only = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        python_only.append((time.perf_counter() - t0) * 1000)
    print(f"{'command':<22}{'median ms':>10}{'p90 ms':>10}")
    for label, samples in (("python -c pass", python_only), ("agent --version", timed(["--version"], runs)),
                           ("agent --help", timed(["--help"], runs))):
        p90 = sorted(samples)[int(0.9 * (len(samples) - 1))]
        print(f"{label:<22}{statistics.median(samples):>10.1f}{p90:>10.1f}")
    del base
    heavy = heavy_imports()
    print("heavy modules imported by --help:", ", ".join(heavy) if heavy else "none")


if __name__ == "__main__":
    main()
