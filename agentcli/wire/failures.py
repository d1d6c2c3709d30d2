"""Parser failures: caught so a turn is never lost, but counted and logged, never silent.

A dialect or pipeline step that raises degrades to "no call, text unchanged" (a model's odd
output must not end the run). That same catch would hide our own bugs from every test and
from the fuzz run, so each one is recorded here: a count per place, the last few errors, and
a debug-log line with the traceback (AGENTCLI_DEBUG=1). `agent parse --debug` prints them;
the fuzz suite asserts the count stays zero. This is an observation, like a log, not state
any parse result depends on.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from typing import NamedTuple

_lock = threading.Lock()
_counts: Counter[str] = Counter()
_recent: deque[Failure] = deque(maxlen=20)


# A NamedTuple, not a dataclass: every parse imports it, and a dataclass costs some 0.5 ms to build.
class Failure(NamedTuple):
    """One caught exception: where (dialect or step) and what."""

    where: str
    error: str


def record(where: str, exc: BaseException) -> None:
    """Count a caught parser exception and log it with its traceback."""
    with _lock:
        _counts[where] += 1
        _recent.append(Failure(where, f"{type(exc).__name__}: {exc}"[:300]))
    import logging  # only a failure logs: a parse that has none never loads logging (about 2 ms)

    logging.getLogger(__name__).debug("parser failure in %s", where, exc_info=exc)


def total() -> int:
    """Failures recorded in this process so far."""
    with _lock:
        return sum(_counts.values())


def counts() -> dict[str, int]:
    with _lock:
        return dict(_counts)


def recent() -> list[Failure]:
    with _lock:
        return list(_recent)


def reset() -> None:
    with _lock:
        _counts.clear()
        _recent.clear()
