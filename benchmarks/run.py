"""`make bench`: every benchmark in turn (start-up, model-id parsing, parsing cost)."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).parent
BENCHES = ["bench_startup.py", "bench_model_id.py", "bench_parse.py", "bench_parse_scale.py"]

for name in BENCHES:
    path = HERE / name
    if not path.exists():
        continue
    print(f"\n== {name}")
    sys.argv = [str(path)]
    runpy.run_path(str(path), run_name="__main__")
