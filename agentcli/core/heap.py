"""Start-up's objects are not the cyclic collector's business.

A command's modules, its profile models and its session live until the process ends, yet each
time allocation fills a generation the collector walks whatever is not yet in the oldest one, and
a full collection walks it all: about 4 % of a cold `agent run` or `agent doctor`. `settle()`
(`gc.freeze`) moves everything alive at that moment out of the collector's reach; cycles made
later are collected as before. Commands call it after each stage that loads much and keeps it.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


def settle() -> None:
    """Everything alive now stays for the process's life: no collection walks it again."""
    gc.freeze()


@contextmanager
def paused() -> Iterator[None]:
    """No cyclic collection while a bounded piece of work runs (a one-shot report): the cycles it
    makes wait for the next collection after it, and everything else is freed as usual."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
