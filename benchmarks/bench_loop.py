"""Loop cost per turn as a conversation grows: is the loop flat?

A scripted model (no network, no sleeps) reads a different file each turn, so every turn runs the
whole path: plan, send, parse, validate, approve, execute, record. A turn is what the loop does from
one TurnStarted event to the next. The figure "at N turns" is the cost of the ten turns that end at
turn N of one conversation, so it is what turn N costs, not the average of the way there.

CPU time on a shared machine drifts by more than the 10 % this checks, so each round opens one fresh
conversation per N, drives each (untimed) to just before its window, and then times the windows'
turns interleaved: turn N-9 of every conversation, then turn N-8 of every one, and so on, in a
rotating order. Whatever else the machine is doing falls on every window alike. Each window turn is
so timed once a round; the figure is the median over the window of each turn's least time (other
processes only ever add to a turn's time; work the turn itself does is in every round), and the
median of every sample is printed beside it. Counted in a separate round, and so the same under any
load: calls per turn (Python and builtin, on the loop's thread), transcript bytes written per turn,
and the messages sent to the model at that turn (these grow until compaction folds them: sending the
conversation is inherent, the loop's own bookkeeping is not).

Run: python benchmarks/bench_loop.py [--turns 10,100,400] [--rounds 5]
Target: the cost per turn at the largest N within 10 % of the cost at the smallest (CPU and calls).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TARGET = 1.10
WINDOW = 10  # turns per window: the ten turns ending at N
FILES = 50


def _turns(n: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for i in range(n):
        args = json.dumps({"path": f"f{i % FILES}.txt", "start_line": 1 + i // FILES})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": args}}
        turns.append({"openai": {"choices": [{"message": {"role": "assistant", "content": None,
                                                          "tool_calls": [call]},
                                              "finish_reason": "tool_calls"}]}})
    turns.append({"text": "done"})
    return turns


@dataclass
class Samples:
    """What the turns of one window cost, over every round."""

    rounds: list[list[float]] = field(default_factory=list)  # per round, CPU seconds of each window turn in order
    calls: list[int] = field(default_factory=list)  # Python calls per turn (the counting round)
    written: list[int] = field(default_factory=list)  # transcript bytes per turn
    sent: list[int] = field(default_factory=list)  # messages in the request of that turn


class Conversation:
    """One scripted conversation of `n` tool turns, driven a turn at a time."""

    def __init__(self, tmp: Path, n: int, tag: str) -> None:
        from agentcli.agent.approval import PolicyApprover
        from agentcli.agent.build import open_session
        from agentcli.agent.loop import Agent
        from agentcli.config import load_profile
        from agentcli.providers.scripted import ScriptedProvider

        async def no_sleep(_: float) -> None:
            return None

        base = tmp / tag
        base.mkdir()
        prof = base / "p.toml"
        prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                        f'api_key_env = ""\n[profiles.p.limits]\nmax_retries = 0\nmax_turns = {n + 5}\n')
        profile = load_profile(str(prof)).profile
        ws = base / "ws"
        ws.mkdir()
        for i in range(FILES):
            (ws / f"f{i}.txt").write_text("".join(f"line {k} of file {i}\n" for k in range(400)))
        self.provider = ScriptedProvider.from_turns(_turns(n), api="openai", profile=profile, sleep=no_sleep)
        self.session = open_session(profile, ws, interactive=False, provider=self.provider)
        self.events: AsyncIterator[Any] = Agent(self.session, PolicyApprover(True)).run("read the files one by one")
        self.n = n
        self.done = 0  # turns finished

    async def _to_next_turn(self) -> None:
        from agentcli.core.events import TurnStarted

        async for ev in self.events:
            if isinstance(ev, TurnStarted):
                return

    async def start(self) -> None:
        await self._to_next_turn()  # the run's set-up, up to the first TurnStarted

    async def turn(self) -> None:
        """One turn: from this TurnStarted to the next (the last tool turn ends at the final answer's)."""
        await self._to_next_turn()
        self.done += 1
        if self.provider.requests:
            self.provider.requests.clear()  # the test double's request log is not the loop's work

    def transcript_size(self) -> int:
        t = self.session.transcript
        return t.path.stat().st_size if t is not None else 0

    async def close(self) -> None:
        async for _ in self.events:  # the final answer and the Done event
            pass
        await self.session.aclose()


def _call_counter() -> tuple[Callable[..., None], list[int]]:
    count = [0]

    def prof(frame: Any, event: str, arg: Any) -> None:
        if event == "call" or event == "c_call":
            count[0] += 1

    return prof, count


async def _round(tmp: Path, sizes: list[int], tag: str, samples: dict[int, Samples], count: bool) -> None:
    convs = [Conversation(tmp, n, f"{tag}-{n}") for n in sizes]
    for c in convs:
        await c.start()
        while c.done < c.n - WINDOW:  # untimed: the way to the window
            await c.turn()
    times: dict[int, list[float]] = {n: [] for n in sizes}
    for step in range(WINDOW):
        k = step % len(convs)
        for c in convs[k:] + convs[:k]:  # a rotating order: no window always runs first
            if c.done >= c.n:
                continue
            if count:
                prof, calls = _call_counter()
                size, sent = c.transcript_size(), len(c.session.history) + 1  # + the system prompt
                sys.setprofile(prof)
                await c.turn()
                sys.setprofile(None)
                s = samples[c.n]
                s.calls.append(calls[0])
                s.written.append(c.transcript_size() - size)
                s.sent.append(sent)
            else:
                t0 = time.process_time()
                await c.turn()
                times[c.n].append(time.process_time() - t0)
    for c in convs:
        await c.close()
    if not count:
        for n, ts in times.items():
            samples[n].rounds.append(ts)


def _measure(sizes: list[int], rounds: int) -> dict[int, Samples]:
    samples = {n: Samples() for n in sizes}
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.update({"XDG_CONFIG_HOME": f"{tmp}/config", "XDG_DATA_HOME": f"{tmp}/data",
                           "XDG_CACHE_HOME": f"{tmp}/cache"})

        async def all_rounds() -> None:
            await _round(Path(tmp), sizes, "count", samples, count=True)  # also warms every cache
            for r in range(rounds):
                await _round(Path(tmp), sizes, f"r{r}", samples, count=False)

        asyncio.run(all_rounds())
    return samples


def least_per_turn(rounds: list[list[float]]) -> float:
    """The median over the window's turns of each turn's least CPU time over the rounds. A turn's
    own work is in every round; what other processes cost it (cache, memory bandwidth) only ever
    adds, so the least of a few rounds is its own cost, and real growth still shows in full."""
    return statistics.median(min(times) for times in zip(*rounds, strict=True))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="10,100,400")
    ap.add_argument("--rounds", type=int, default=5)
    opts = ap.parse_args(argv)
    sizes = sorted(int(x) for x in opts.turns.split(","))
    if sizes[0] < WINDOW:
        ap.error(f"every N must be at least {WINDOW} (a window is the {WINDOW} turns ending at N)")
    samples = _measure(sizes, opts.rounds)
    print(f"CPU ms per turn at N turns of one conversation: the {WINDOW} turns ending at N, each timed in "
          f"{opts.rounds} rounds")
    print("(a fresh conversation per N each round, the windows' turns interleaved); the figure is the median")
    print("of each turn's least time, the median of every sample beside it. Counted in a separate round:")
    print("calls per turn (Python and builtin, loop thread), transcript bytes written, messages sent")
    cpu: dict[int, float] = {}
    calls: dict[int, float] = {}
    for n in sizes:
        s = samples[n]
        cpu[n] = least_per_turn(s.rounds) * 1000
        calls[n] = statistics.median(s.calls)
        every = statistics.median(t for r in s.rounds for t in r) * 1000
        print(f"  at {n:>4} turns: {cpu[n]:.2f} ms (median {every:.2f}); {calls[n]:.0f} calls, "
              f"{statistics.median(s.written) / 1024:.1f} KB written, {statistics.median(s.sent):.0f} messages sent")
    first, last = sizes[0], sizes[-1]
    ratio, calls_ratio = cpu[last] / cpu[first], calls[last] / calls[first]
    verdict = "ok" if ratio <= TARGET and calls_ratio <= TARGET else "SLOW"
    print(f"turn {last} / turn {first}: CPU {ratio:.2f}x, calls {calls_ratio:.2f}x (target <= {TARGET:.2f}x) {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
