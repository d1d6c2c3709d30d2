"""Time parse_model_id over the ids of the parser's test table; prints µs per id.

Uncached (the parser's lru_cache is cleared each round) and cached, so both the
first sight of an id and a repeat lookup are measured.
"""

from __future__ import annotations

import ast
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from agentcli.models import get_capability, registry  # noqa: E402
from agentcli.models.parser import _parse, parse_model_id  # noqa: E402

TABLE = ROOT / "tests" / "unit" / "models" / "test_parser.py"


def load_ids() -> list[str]:
    """The ids of CASES in the test table, read without importing the test module."""
    tree = ast.parse(TABLE.read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CASES" for t in node.targets):
            return [row[0] for row in ast.literal_eval(node.value)]
    raise SystemExit(f"no CASES table in {TABLE}")


def bench(ids: list[str], rounds: int, *, cached: bool) -> float:
    best = float("inf")
    for _ in range(rounds):
        if not cached:
            _parse.cache_clear()
        start = time.perf_counter()
        for model_id in ids:
            parse_model_id(model_id)
        best = min(best, (time.perf_counter() - start) / len(ids))
    return best * 1e6


def main() -> None:
    ids = load_ids()
    bench(ids, 3, cached=False)  # warm up imports and regex caches
    uncached = bench(ids, 50, cached=False)
    cached = bench(ids, 50, cached=True)
    t0 = time.perf_counter()
    registry.load()
    load_ms = (time.perf_counter() - t0) * 1e3
    start = time.perf_counter()
    for model_id in ids:
        get_capability(model_id)
    resolve = (time.perf_counter() - start) / len(ids) * 1e6
    print(f"parse_model_id: {len(ids)} ids, {uncached:.1f} µs/id uncached, {cached:.2f} µs/id cached")
    print(f"known_models.json load: {load_ms:.1f} ms (once per process)")
    print(f"get_capability, first call per id: {resolve:.1f} µs/id")


if __name__ == "__main__":
    main()
