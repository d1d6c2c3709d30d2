"""Run scenarios through the real loop: one temp workspace per trial, trials in parallel, metrics out.

A trial is the agent loop end to end (session, provider, parsers, validation, tools, guards),
with the scripted model in place of a server unless the run is live. Each trial runs under
one layer variant (`agentcli.agent.layers.variants`): "on", one layer off, or all off. Every
variant keeps the profile's retry budget, so a difference is the layer's, not the budget's.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.agent.layers import ALL_ON, Layers
from agentcli.core.errors import (
    AgentCliError,
    ErrorCode,
    ProviderError,
    ProviderErrorCode,
    ToolError,
)
from agentcli.core.events import Done, Notice, RetryScheduled, ToolFinished
from agentcli.core.types import Tier
from agentcli.evals import scenarios as sc_table
from agentcli.evals.noisy import NoiseConfig, ScriptedModel

if TYPE_CHECKING:
    from agentcli.config.schema import Profile

# Notice codes that are not parser repairs (the loop reports repairs with the repair kind as code).
NOT_REPAIRS = frozenset({"", "tier", "fallback", "repeat", "compact"})
MAX_TURNS = 12


SCRIPTED = "scripted: "  # the label of every offline row: a scripted persona, never a real model


@dataclass(slots=True)
class Subject:
    """What is evaluated: a scripted persona (offline), or a user's profile against its endpoint (live).

    `name` is the row label: "scripted: <persona>" offline, the profile's own name only live."""

    name: str
    profile: Profile
    api: str
    family: str = ""
    leak: str = "hermes"
    noise: NoiseConfig | None = None
    live: bool = False


@dataclass(slots=True)
class Trial:
    """One run of one scenario, measured."""

    subject: str
    scenario: str
    layers: str  # the variant label: "on", "off" or "no-<layer>"
    index: int
    passed: bool
    reason: str | None
    stop: str
    calls: int = 0
    right_tool: int = 0
    right_args: int = 0
    repairs: int = 0
    validation_errors: int = 0
    fallbacks: int = 0  # calls found only in a text form the plan did not ask for
    provider_retries: int = 0
    turns: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    elapsed_ms: float = 0.0
    faults: list[str] = field(default_factory=list)
    dialects: list[str] = field(default_factory=list)
    native: bool = True
    plan_dialect: str | None = None
    noisy: bool = False  # the persona injects random faults, so any scenario may need any layer
    endpoint_error: str | None = None  # live: the endpoint could not be used (no figure for the model)
    edit_tool: str = ""  # the edit tool the session offered (report: success and turns per edit tool)

    @property
    def first_attempt(self) -> bool:
        return self.passed and not (self.repairs or self.validation_errors or self.fallbacks)

    @property
    def retries(self) -> int:
        return self.validation_errors + self.provider_retries


def subject_for_persona(name: str) -> Subject:
    from agentcli.evals.personas import PERSONAS

    p = PERSONAS[name]
    return Subject(SCRIPTED + p.name, p.profile(), p.api, p.family, p.leak, p.noise)


def subject_for_profile(ref: str, live: bool = False) -> Subject:
    """A user's profile: live it talks to its endpoint; offline the scripted model speaks its API and
    the wire plan its model id negotiates, and the row says so ("scripted: <api> <model>")."""
    from agentcli.config import load_profile
    from agentcli.models import resolve_capability
    from agentcli.providers import provider_class
    from agentcli.providers.scripted.writers import TEXT

    profile = load_profile(ref, interactive=False).profile
    api = provider_class(profile.provider).api
    try:  # the model slips into the text form it was trained on
        dialect = resolve_capability(profile.model, overrides=profile.capabilities,
                                     provider=profile.provider).capability.text_dialect
    except ValueError:
        dialect = None
    name = (profile.name or ref) if live else f"{SCRIPTED}{api} {profile.model}"
    return Subject(name, profile, api, family=profile.model, leak=dialect if dialect in TEXT else "hermes", live=live)


def _is_validation(ev: ToolFinished) -> bool:
    err = ev.result.error
    return not ev.result.ok and isinstance(err, ToolError) and err.code is ErrorCode.VALIDATION


async def _no_sleep(_seconds: float) -> None:
    return None


def _prepare(profile: Profile, scenario: sc_table.Scenario, layers: Layers) -> Profile:
    """The trial's profile: the scenario's limits; the retry budget is the profile's in every variant."""
    p = profile.model_copy(deep=True)
    p.limits.max_turns = min(p.limits.max_turns, MAX_TURNS)
    for key, value in scenario.limits.items():
        setattr(p.limits, key, value)
    if scenario.edit_tool:
        p.tools.edit_tool = scenario.edit_tool  # type: ignore[assignment]  # a form name, checked by the schema
    for key, value in scenario.bash.items():
        setattr(p.bash, key, value)
    if not layers.fallback:
        p.tools.call_parser = "native"  # calls only from the plan's own form (native fields or the prompted dialect)
    return p


def seed_for(subject: str, scenario: str, index: int, base: int = 0) -> int:
    """Stable across runs and processes (unlike hash())."""
    return zlib.crc32(f"{base}:{subject}:{scenario}:{index}".encode())


async def run_trial(subject: Subject, scenario_name: str, variant: str = "on", index: int = 0, *,
                    layers: Layers = ALL_ON, live: bool = False, base_seed: int = 0) -> Trial:
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.build import open_session
    from agentcli.agent.loop import Agent

    scenario = sc_table.get(scenario_name)
    root = Path(tempfile.mkdtemp(prefix="agentcli-eval-"))
    try:
        ws = root / "workspace"
        ws.mkdir()
        for rel, text in scenario.files.items():
            (ws / rel).parent.mkdir(parents=True, exist_ok=True)
            (ws / rel).write_text(text, encoding="utf-8")
        if scenario.prepare is not None:
            scenario.prepare(ws)
        for rel, text in scenario.outside.items():
            (root / rel).write_text(text, encoding="utf-8")
        before = sc_table.snapshot(root, ws)
        goal = scenario.goal.replace("{root}", str(root))
        profile = _prepare(subject.profile, scenario, layers)
        model = None
        provider = None
        if not live:
            from agentcli.providers.scripted import ScriptedProvider

            model = ScriptedModel(scenario.policy, noise=subject.noise, leak=subject.leak,
                                  seed=seed_for(subject.name, scenario_name, index, base_seed),
                                  preludes=[dict(t) for t in scenario.preludes],
                                  rejects_native_tools=scenario.rejects_native_tools)
            # The provider gets a keyless scripted copy; the session keeps the real profile, so the
            # capability and wire plan are the ones a live run would negotiate.
            offline = profile.model_copy(update={"provider": "scripted", "url": None, "api_key_env": ""})
            provider = ScriptedProvider.from_function(model, api=subject.api, profile=offline, sleep=_no_sleep)
        # A scenario names its tier; else the profile's cap (the run has no human: everything is approved).
        tier = scenario.tier or profile.tools.max_tier
        if tier and Tier.parse(tier) > Tier.parse(profile.tools.max_tier):
            tier = profile.tools.max_tier  # the profile's cap wins; the check then judges the outcome
        session = open_session(profile, ws, tier=tier, goal=goal, approve_mode="all", record=False,
                               provider=provider)
        session.layers = layers
        session.guard.enabled = layers.repeat_guard
        endpoint = _watch_endpoint(session)
        events: list[Any] = []
        started = time.perf_counter()
        async with session:  # the provider, and background processes a scenario started, closed on every path
            async for ev in Agent(session, PolicyApprover(approve_all=True)).run(goal):
                events.append(ev)
        elapsed = (time.perf_counter() - started) * 1000
        done = events[-1]
        assert isinstance(done, Done)
        unusable = endpoint[-1] if endpoint and done.stop == "error" and done.error == endpoint[-1] else None
        if unusable:
            reason: str | None = f"endpoint: {unusable}"
        else:
            outcome = sc_table.Outcome(ws, root, events, done, before)
            try:
                reason = scenario.check(outcome)
            except Exception as exc:  # noqa: BLE001 - a check must report, never crash the whole eval
                reason = f"check raised {type(exc).__name__}: {exc}"
        trial = _measure(subject, scenario, variant, index, events, done, reason, elapsed, model, session.plan)
        trial.endpoint_error = unusable
        trial.edit_tool = _edit_tool(session)
        return trial
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _edit_tool(session: Any) -> str:
    from agentcli.tools.edit_choice import choose, tool_name

    return tool_name(choose(session.profile.tools.edit_tool, session.capability.capability.edit_tool)[0])


def _watch_endpoint(session: Any) -> list[str]:
    """Collect the provider errors the retry policy gave up on: a trial that ends on one measured the
    endpoint, not the model. A server refusing native tools is an answer, for the fallback layer."""
    seen: list[str] = []
    complete = session.provider.complete

    async def watched(*args: Any, **kwargs: Any) -> Any:
        try:
            return await complete(*args, **kwargs)
        except ProviderError as exc:
            if exc.code is not ProviderErrorCode.TOOLS_UNSUPPORTED:
                    seen.append(exc.message + (f" ({exc.hint})" if exc.hint else ""))
            raise

    session.provider.complete = watched
    return seen


def _measure(subject: Subject, scenario: sc_table.Scenario, variant: str, index: int, events: list[Any],
             done: Done, reason: str | None, elapsed: float, model: ScriptedModel | None, plan: Any) -> Trial:
    finished = [e for e in events if isinstance(e, ToolFinished)]
    return Trial(
        subject.name, scenario.name, variant, index, reason is None, reason, done.stop,
        calls=len(finished),
        right_tool=sum(1 for e in finished if e.call.name in scenario.tools and not e.call.unknown),
        right_args=sum(1 for e in finished if not _is_validation(e)),
        repairs=sum(1 for e in events if isinstance(e, Notice) and e.level == "info" and e.code not in NOT_REPAIRS),
        validation_errors=sum(1 for e in finished if _is_validation(e)),
        fallbacks=sum(1 for e in finished if not e.call.dialect.startswith("native") and e.call.dialect != plan.dialect),
        provider_retries=sum(1 for e in events if isinstance(e, RetryScheduled)),
        turns=done.turns,
        input_tokens=done.usage.input_tokens,
        output_tokens=done.usage.output_tokens,
        elapsed_ms=round(elapsed, 3),
        faults=list(model.faults) if model else [],
        dialects=[e.call.dialect for e in finished],
        native=bool(plan.native_tools),
        plan_dialect=plan.dialect,
        noisy=subject.noise is not None,
    )


@dataclass(frozen=True, slots=True)
class Job:
    subject: Subject
    scenario: str
    variant: str
    layers: Layers
    index: int


def plan_jobs(subjects: list[Subject], scenarios: list[str], trials: int,
              variants: dict[str, Layers] | None = None) -> list[Job]:
    """Every (subject, scenario, variant, trial); `variants` defaults to layers on only."""
    table = variants if variants is not None else {"on": ALL_ON}
    return [Job(s, n, label, on, i) for s in subjects for n in scenarios for label, on in table.items()
            for i in range(trials)]


async def run_jobs(jobs: list[Job], *, concurrency: int = 1, live: bool = False, base_seed: int = 0,
                   progress: Callable[[Trial], None] | None = None) -> list[Trial]:
    """Every job, at most `concurrency` at once; results in job order."""
    gate = asyncio.Semaphore(max(1, concurrency))

    async def one(job: Job) -> Trial:
        async with gate:
            try:
                trial = await run_trial(job.subject, job.scenario, job.variant, job.index, layers=job.layers,
                                        live=live, base_seed=base_seed)
            except AgentCliError:
                raise  # a missing key or a bad profile is the user's to fix, not a failed trial
            except Exception as exc:  # noqa: BLE001 - one broken trial must not end the whole eval
                trial = Trial(job.subject.name, job.scenario, job.variant, job.index, False,
                              f"trial crashed: {type(exc).__name__}: {exc}", "crashed",
                              noisy=job.subject.noise is not None)
        if progress:
            progress(trial)
        return trial

    return list(await asyncio.gather(*(one(j) for j in jobs)))
