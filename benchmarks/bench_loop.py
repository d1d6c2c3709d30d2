"""Loop cost per turn as a conversation grows: is the loop flat?

A scripted model (no network, no sleeps) reads a different file each turn, so every turn runs the
whole path: plan, send, parse, validate, approve, execute, record. CPU time is taken between
consecutive TurnStarted events; the figure for "at N turns" is the median of the ten turns that
end at N, so it is what turn N costs, not the average of the way there.

Run: python benchmarks/bench_loop.py [--turns 10,100,400]
Target: the cost per turn at the largest N within 10 % of the cost at the smallest.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TARGET = 1.10


def _turns(n: int) -> list[dict[str, Any]]:
    turns: list[dict[str, Any]] = []
    for i in range(n):
        args = json.dumps({"path": f"f{i % 50}.txt", "start_line": 1 + i // 50})
        call = {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": args}}
        turns.append({"openai": {"choices": [{"message": {"role": "assistant", "content": None,
                                                          "tool_calls": [call]},
                                              "finish_reason": "tool_calls"}]}})
    turns.append({"text": "done"})
    return turns


async def _run(tmp: Path, n: int) -> list[float]:
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.build import open_session
    from agentcli.agent.loop import Agent
    from agentcli.config import load_profile
    from agentcli.core.events import TurnStarted
    from agentcli.providers.scripted import ScriptedProvider

    async def no_sleep(_: float) -> None:
        return None

    prof = tmp / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    f'api_key_env = ""\n[profiles.p.limits]\nmax_retries = 0\nmax_turns = {n + 5}\n')
    profile = load_profile(str(prof)).profile
    ws = tmp / f"ws{n}"
    ws.mkdir()
    for i in range(50):
        (ws / f"f{i}.txt").write_text("".join(f"line {k} of file {i}\n" for k in range(400)))
    provider = ScriptedProvider.from_turns(_turns(n), api="openai", profile=profile, sleep=no_sleep)
    session = open_session(profile, ws, interactive=False, provider=provider)
    marks: list[float] = []
    async for ev in Agent(session, PolicyApprover(True)).run("read the files one by one"):
        if isinstance(ev, TurnStarted):
            marks.append(time.process_time())
    marks.append(time.process_time())
    return [b - a for a, b in zip(marks, marks[1:], strict=False)]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", default="10,100,400")
    opts = ap.parse_args(argv)
    sizes = [int(x) for x in opts.turns.split(",")]
    per_turn: dict[int, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        import os

        os.environ.update({"XDG_CONFIG_HOME": f"{tmp}/config", "XDG_DATA_HOME": f"{tmp}/data",
                           "XDG_CACHE_HOME": f"{tmp}/cache"})
        costs = asyncio.run(_run(Path(tmp), max(sizes)))
    print("CPU ms per turn (median of the ten turns ending at N), one run of", max(sizes), "turns")
    for n in sizes:
        window = costs[max(0, n - 10):n]
        per_turn[n] = statistics.median(window) * 1000
        print(f"  at {n:>4} turns: {per_turn[n]:.2f} ms")
    ratio = per_turn[sizes[-1]] / per_turn[sizes[0]]
    verdict = "ok" if ratio <= TARGET else "SLOW"
    print(f"turn {sizes[-1]} / turn {sizes[0]}: {ratio:.2f}x (target <= {TARGET:.2f}x) {verdict}")
    return 0 if verdict == "ok" else 1


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
