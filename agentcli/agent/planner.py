"""Parallel execution planning (seed 000 §9): read-only calls run together, the rest in order."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def plan_batches(items: list[T], read_only: Callable[[T], bool]) -> list[list[T]]:
    """Split calls into batches: each run of consecutive read-only calls is one
    concurrent batch; every other call is a batch of its own, in call order."""
    batches: list[list[T]] = []
    for item in items:
        if read_only(item) and batches and len(batches[-1]) and read_only(batches[-1][0]):
            batches[-1].append(item)
        else:
            batches.append([item])
    return batches
