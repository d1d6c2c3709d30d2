"""CPU time per call of a parse, shared by the parse benchmarks (bench_parse.py, parse_sizes.py).

A module of its own so that neither script imports the other: each runs as a script."""

from __future__ import annotations

import time


def per_call(fn, arg, min_time: float = 0.02) -> float:
    """CPU seconds per call (this thread's): repeat until `min_time` elapsed, best of 3 rounds. CPU time
    and not wall time, so a busy machine (other processes on the same cores) does not count as ours."""
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
    for _ in range(2):
        t = time.thread_time()
        for _ in range(n):
            fn(arg)
        best = min(best, (time.thread_time() - t) / n)
    return best
