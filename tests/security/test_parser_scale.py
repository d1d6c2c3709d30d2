"""Issue 8 §9: the parsers at scale. Generated and mutated outputs across every text dialect and
every native API shape go through agentcli.wire.parse_text and agentcli.wire.parse_response:
0 uncaught exceptions. A few thousand cases by default; AGENTCLI_FUZZ_EXAMPLES>=50000 (make fuzz)
runs the full corpus. Parse time on 1 MB inputs is printed, not asserted (see
benchmarks/bench_parse_scale.py for the p99 figure).
"""

from __future__ import annotations

import os
import time
import traceback

import pytest
from parse_corpus import Mutator, dialect_texts, native_bodies

from agentcli.core.errors import AgentCliError
from agentcli.core.types import ParsedResponse
from agentcli.wire import dialects, native, parse_response, parse_text
from agentcli.wire.types import ParseContext, WirePlan

_ENV = int(os.environ.get("AGENTCLI_FUZZ_EXAMPLES", "0") or 0)
EXAMPLES = max(_ENV, 2000)
BIG = 200 if _ENV >= 50_000 else 12  # 1 MB inputs
CTX = ParseContext.of()


def _ok(resp: ParsedResponse) -> bool:
    return isinstance(resp, ParsedResponse) and isinstance(resp.text, str) and all(
        isinstance(c.name, str) and isinstance(c.arguments, dict) for c in resp.tool_calls)


class Tally:
    def __init__(self) -> None:
        self.cases = self.structured = 0
        self.failures: list[str] = []
        self.slowest = (0.0, "")

    def run(self, label: str, fn, *args) -> float:
        self.cases += 1
        t0 = time.perf_counter()
        try:
            resp = fn(*args)
            if not _ok(resp):
                self.failures.append(f"{label}: malformed ParsedResponse {resp!r:.200}")
        except AgentCliError:
            self.structured += 1  # a clear, typed error for an unusable body: handled by the provider
        except Exception:  # noqa: BLE001 - this is what the check counts
            self.failures.append(f"{label}: {traceback.format_exc(limit=3)[-600:]}")
        dt = time.perf_counter() - t0
        if dt > self.slowest[0]:
            size = len(args[0]) if isinstance(args[0], str) else len(str(args[1]))
            self.slowest = (dt, f"{label}, {size} chars")
        return dt


def _p(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))] if s else 0.0


@pytest.mark.slow
def test_parse_at_scale_never_raises():
    texts, bodies = dialect_texts(), native_bodies()
    names = dialects.names()
    apis = [a for a in native.names() if a in bodies]
    assert set(texts) == set(names), "every registered dialect needs fixtures to mutate"
    m = Mutator(int(os.environ.get("AGENTCLI_SEED", "0") or 0) or 8, texts, bodies)
    tally = Tally()
    every = [None, *names]
    n_text = int(EXAMPLES * 0.7)
    for i in range(n_text):
        d = every[i % len(every)]
        text = m.text(d)
        tally.run(f"text[{d}]", parse_text, text, CTX, (d,) if d else None)
    plans = {a: WirePlan(api=a, native_tools=True, parsers=tuple(names)) for a in apis}
    for i in range(EXAMPLES - n_text):
        api = apis[i % len(apis)]
        tally.run(f"body[{api}]", parse_response, plans[api], m.body(api), CTX)
    big_times: list[float] = []
    for i in range(BIG):
        d = every[i % len(every)]
        big_times.append(tally.run(f"1MB[{d}]", parse_text, m.big(d), CTX, (d,) if d else None))
    print(f"\nparser scale: {tally.cases} outputs ({n_text} texts over {len(names)} dialects + all, "
          f"{EXAMPLES - n_text} bodies over {len(apis)} APIs, {BIG} of ~1 MB): {len(tally.failures)} uncaught "
          f"exceptions, {tally.structured} typed errors; 1 MB parse p50 {_p(big_times, 0.5) * 1e3:.1f} ms, "
          f"p99 {_p(big_times, 0.99) * 1e3:.1f} ms; slowest case {tally.slowest[0] * 1e3:.0f} ms ({tally.slowest[1]})")
    assert not tally.failures, "\n".join(tally.failures[:5])
    assert tally.cases >= EXAMPLES
