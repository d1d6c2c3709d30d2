"""CPU time per call of a parse, shared by the parse benchmarks (bench_parse.py, parse_sizes.py, and
bench_parse_vllm.py in vLLM's own venv: this module imports nothing but the standard library).

A module of its own so that no script imports another: each runs as a script."""

from __future__ import annotations

import time


def per_call(fn, arg, min_time: float = 0.02, once_past: float = float("inf")) -> float:
    """CPU seconds per call (this thread's): repeat until `min_time` elapsed, best of 3 rounds. CPU time
    and not wall time, so a busy machine (other processes on the same cores) does not count as ours.
    A call slower than `once_past` seconds is timed in one round: it says enough, and three would
    take minutes."""
    n, best = 1, float("inf")
    while True:
        t = time.thread_time()
        for _ in range(n):
            fn(arg)
        dt = time.thread_time() - t
        if dt >= min_time:
            break
        n *= 4
    best = dt / n
    if best > once_past:
        return best
    for _ in range(2):
        t = time.thread_time()
        for _ in range(n):
            fn(arg)
        best = min(best, (time.thread_time() - t) / n)
    return best
