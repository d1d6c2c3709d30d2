"""`agent eval`: scenarios through the real loop, per profile and scenario, per layer variant.

Offline (the default) scripted personas play each wire family; their rows say "scripted: ...".
Every layer is turned off on its own and all together, on the same loop with the same retry
budget, and the report shows what each one contributes. `--live` sends the same scenarios
to the profiles' real endpoints, layers on and all off by default (a live run costs money);
trials that could not use the endpoint are shown with their reason and make the exit non-zero.
"""

from __future__ import annotations

import sys
from typing import Any

from agentcli.core import aio, jsonsafe
from agentcli.core.errors import UsageError

EXIT_ENDPOINT = 1  # some live trials never reached a usable endpoint: their figures say nothing


def _subjects(profiles: list[str], live: bool) -> list[Any]:
    from agentcli.evals.personas import DEFAULT_PERSONAS, PERSONAS
    from agentcli.evals.runner import subject_for_persona, subject_for_profile

    if live and not profiles:
        raise UsageError("--live needs at least one --profile", hint="agent eval --live --profile openai")
    names = profiles or list(DEFAULT_PERSONAS)
    out = []
    for name in names:
        persona = name.removeprefix("scripted:").strip()
        if persona in PERSONAS and not live:
            out.append(subject_for_persona(persona))
        else:
            out.append(subject_for_profile(name, live=live))
    return out


FULL = "agent eval --layers all --trials 3"  # the whole matrix: every layer off on its own, 3 trials each


def _variants(spec: str | None, live: bool) -> dict[str, Any]:
    """--layers: "all" (on, each layer off, all off), or a list of "on", "off" and layer names.
    The default is on and off: what the layers do together, in a fraction of the trials."""
    from agentcli.agent.layers import ALL_OFF, ALL_ON, LAYERS, variants

    if spec is None:
        spec = "on,off"
    names = [n.strip() for n in spec.split(",") if n.strip()]
    if names == ["all"]:
        return variants()
    out: dict[str, Any] = {"on": ALL_ON}
    for n in names:
        if n in ("on", "off"):
            out[n] = ALL_ON if n == "on" else ALL_OFF
        elif n.removeprefix("no-") in LAYERS:
            out[f"no-{n.removeprefix('no-')}"] = ALL_ON.without(n.removeprefix("no-"))
        else:
            raise UsageError(f"unknown layer {n!r}", hint=f"use all, on, off or one of: {', '.join(LAYERS)}")
    return out


def execute(
    profiles: list[str] | None = None, scenarios: str = "all", trials: int | None = None, jobs: int = 1,
    json_out: bool = False, live: bool = False, matrix: bool = False, layers: str | None = None,
) -> int:
    from agentcli.evals import matrix as mx
    from agentcli.evals import report, runner
    from agentcli.evals.scenarios import select

    quick = trials is None and layers is None and not live
    if trials is None:
        trials = 3 if layers == "all" else 1
    if trials < 1 or jobs < 1:
        raise UsageError("--trials and --jobs must be at least 1")
    try:
        names = select(scenarios)
    except KeyError as exc:
        raise UsageError(str(exc.args[0])) from None
    subjects = _subjects(list(profiles or ()), live)
    work = runner.plan_jobs(subjects, names, trials, _variants(layers, live))
    if quick and not json_out:
        sys.stderr.write(f"agent eval: {len(work)} trials (layers on and off, 1 trial each); "
                         f"the full matrix, each layer off on its own: {FULL}\n")
    progress = None
    bar: Any = None
    if not json_out and sys.stderr.isatty():
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        from agentcli.ui.render import make_console

        bar = Progress(TextColumn("trials"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                       console=make_console(stderr=True), transient=True)
        task = bar.add_task("trials", total=len(work))

        def progress(_trial: Any) -> None:
            bar.advance(task)

    if bar is not None:
        bar.start()
    try:
        results = aio.run(runner.run_jobs(work, concurrency=jobs, live=live, progress=progress))
    finally:
        if bar is not None:
            bar.stop()
    unusable = [t for t in results if t.endpoint_error]
    extra: dict[str, Any] = {"source": "live" if live else "scripted"}
    golden: list[dict[str, Any]] = []
    if matrix:
        golden = mx.run_golden()
        extra.update({"matrix": mx.trial_matrix(results, subjects), "golden": golden,
                      "golden_matrix": mx.golden_matrix(golden)})
    if json_out:
        sys.stdout.write(jsonsafe.dumps(report.to_json(results, extra), ensure_ascii=False) + "\n")
        return _endpoint_exit(unusable, len(results))
    from agentcli.core.escape import styled
    from agentcli.ui.render import make_console

    console = make_console()
    if not console.is_terminal:
        console.width = max(console.width, 180)  # a pipe or file gets whole tables, not ellipses
    from agentcli.ui.fit import fit_table

    for table in report.tables(results):
        hidden = fit_table(table, console, drop_first=("trials",)) if console.is_terminal else 0
        console.print(table)
        if hidden:
            console.print(f"({hidden} columns left out to fit; --json has them all)", style="dim")
    if matrix:
        for table in mx.tables(golden, extra["matrix"]):
            console.print(table)
        gaps = [r for r in golden if not r["parsed"]]
        for r in gaps:
            console.print(styled((f"golden fixture {r['id']} not parsed", "yellow"),
                                 f" ({r['known_gap'] or 'regression'}): {r['source']}"))
    return _endpoint_exit(unusable, len(results))


def _endpoint_exit(unusable: list[Any], total: int) -> int:
    """Non-zero when live trials could not use the endpoint, with the first reason on stderr."""
    if not unusable:
        return 0
    from agentcli.core.redaction import redact

    first = unusable[0]
    sys.stderr.write(f"agent: {len(unusable)} of {total} trials could not use the endpoint of "
                     f"{first.subject}: {redact(first.endpoint_error or '')}\n")
    return EXIT_ENDPOINT
