"""`agent eval`: scenarios through the real loop, per profile and scenario, with the layers on and off.

Offline (the default) the scripted model plays each profile's wire family; `--live` sends the
same scenarios to the profiles' real endpoints (layers on only: a live run costs money).
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.errors import UsageError


def _subjects(profiles: list[str], live: bool) -> list[Any]:
    from agentcli.evals.personas import DEFAULT_PERSONAS, PERSONAS
    from agentcli.evals.runner import subject_for_persona, subject_for_profile

    if live and not profiles:
        raise UsageError("--live needs at least one --profile", hint="agent eval --live --profile openai")
    names = profiles or list(DEFAULT_PERSONAS)
    out = []
    for name in names:
        if name in PERSONAS and not live:
            out.append(subject_for_persona(name))
        else:
            out.append(subject_for_profile(name))
    return out


def execute(
    profiles: list[str] | None = None, scenarios: str = "all", trials: int = 3, jobs: int = 1,
    json_out: bool = False, live: bool = False, matrix: bool = False,
) -> int:
    from agentcli.evals import matrix as mx
    from agentcli.evals import report, runner
    from agentcli.evals.scenarios import select

    if trials < 1 or jobs < 1:
        raise UsageError("--trials and --jobs must be at least 1")
    try:
        names = select(scenarios)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    subjects = _subjects(list(profiles or ()), live)
    layers = (True,) if live else (True, False)
    work = runner.plan_jobs(subjects, names, trials, layers)
    progress = None
    if not json_out and sys.stderr.isatty():
        from agentcli.ui.render import make_console

        err = make_console(stderr=True)
        done = [0]

        def progress(_trial: Any) -> None:
            done[0] += 1
            err.print(f"\r{done[0]}/{len(work)} trials", end="")

    results = asyncio.run(runner.run_jobs(work, concurrency=jobs, live=live, progress=progress))
    extra: dict[str, Any] = {}
    golden: list[dict[str, Any]] = []
    if matrix:
        golden = mx.run_golden()
        extra = {"matrix": mx.trial_matrix(results, subjects), "golden": golden,
                 "golden_matrix": mx.golden_matrix(golden)}
    if json_out:
        sys.stdout.write(jsonsafe.dumps(report.to_json(results, extra), ensure_ascii=False) + "\n")
        return 0
    from agentcli.ui.escape import styled
    from agentcli.ui.render import make_console

    console = make_console()
    if not console.is_terminal:
        console.width = max(console.width, 180)  # a pipe or file gets whole tables, not ellipses
    if progress is not None:
        make_console(stderr=True).print()
    for table in report.tables(results):
        console.print(table)
    if matrix:
        for table in mx.tables(golden, extra["matrix"]):
            console.print(table)
        gaps = [r for r in golden if not r["parsed"]]
        for r in gaps:
            console.print(styled((f"golden fixture {r['id']} not parsed", "yellow"),
                                 f" ({r['known_gap'] or 'regression'}): {r['source']}"))
    return 0
