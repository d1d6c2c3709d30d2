"""What each reliability layer contributes, over every offline persona and scenario (`agent eval`).

Run: python benchmarks/bench_eval.py [trials]
Every row is a scripted persona ("scripted: ..."), never a real model: these figures say what the
layers do for the mistakes the personas are scripted to make, on the same loop with the same
retry budget for every variant. `agent eval --live --profile P` measures a real endpoint.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import defaultdict


def main() -> int:
    trials = sys.argv[1] if len(sys.argv) > 1 else "2"
    out = subprocess.run([sys.executable, "-m", "agentcli", "eval", "--json", "--trials", trials, "--jobs", "4"],
                         capture_output=True, text=True, check=True)
    data = json.loads(out.stdout)
    by_layer: dict[str, list[dict]] = defaultdict(list)
    for row in data["layers"]:
        by_layer[row["layer"]].append(row)
    on = [s for s in data["summary"] if s["layers"] == "on"]
    n = sum(s["trials"] for s in on)
    print(f"{len(on)} scripted personas x {len({r['scenario'] for r in data['results']})} scenarios x {trials} trials "
          f"= {n} trials per variant; success with every layer on: "
          f"{sum(s['success_rate'] * s['trials'] for s in on) / n:.1%}")
    print(f"\n{'layer off':<14}{'success':>9}{'contribution':>14}{'turns saved':>13}  "
          f"{'personas hurt':>13}  scenarios it changed  (unexpected)")
    for layer, rows in by_layer.items():
        total = sum(r["trials"] for r in rows)
        without = sum(r["success_without"] * r["trials"] for r in rows) / total
        contrib = sum(r["contribution"] * r["trials"] for r in rows) / total
        turns = sum(r["turns_saved"] * r["trials"] for r in rows) / total
        hurt = sum(r["contribution"] > 0 for r in rows)
        changed = sorted({s for r in rows for s in r["changed"]})
        unexpected = sorted({s for r in rows for s in r["unexpected"]})
        print(f"{layer:<14}{without:>9.1%}{contrib * 100:>+12.1f} pts{turns:>+13.2f}  {hurt:>6} of {len(rows):<5}  "
              f"{', '.join(changed) or '-'}" + (f"  ({', '.join(unexpected)})" if unexpected else ""))
    print("\ncontribution = success with every layer on minus success with that layer off (all: every layer off)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
