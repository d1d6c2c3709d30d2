"""Every scenario through the real loop, for every persona; the noisy model and the layers switch."""

from __future__ import annotations

import dataclasses

import pytest

from agentcli.evals import runner
from agentcli.evals.noisy import FAULTS, NoiseConfig
from agentcli.evals.personas import PERSONAS
from agentcli.evals.scenarios import SCENARIOS, select

ALL = list(SCENARIOS)


def _run(subject, names, layers=(True,), trials=1, base_seed=0):
    import asyncio

    jobs = runner.plan_jobs([subject], names, trials, layers)
    return asyncio.run(runner.run_jobs(jobs, concurrency=4, base_seed=base_seed))


# Failures the eval currently finds in lower layers (a ratchet: remove the entry when it passes).
KNOWN_FAILURES = {
}


@pytest.mark.parametrize("persona", list(PERSONAS))
def test_every_scenario_passes_with_layers_on(persona):
    trials = _run(runner.subject_for_persona(persona), ALL)
    failed = {(persona, t.scenario): t.reason for t in trials if not t.passed}
    known = {k for k in KNOWN_FAILURES if k[0] == persona}
    assert set(failed) == known, {"unexpected": {k: v for k, v in failed.items() if k not in known},
                                  "now passing (drop from KNOWN_FAILURES)": sorted(known - set(failed))}
    assert {t.scenario for t in trials} == set(ALL)


def test_scenario_table_is_complete():
    required = {"happy_path", "parallel_reads", "missing_required_argument", "type_error_recovery", "unknown_tool",
                "long_arguments_guard", "oversize_output", "xml_leak", "malformed_json", "repeat_loop",
                "empty_final", "chat_only", "tier_escalation", "path_escape"}
    assert required <= set(SCENARIOS)
    assert select("all") == ALL
    assert select("happy_path, xml_leak") == ["happy_path", "xml_leak"]
    with pytest.raises(KeyError):
        select("happy_path,nope")


@pytest.mark.parametrize("persona", ["noisy-openai", "noisy-hermes"])
def test_layers_off_is_measurably_worse_on_the_noisy_model(persona):
    trials = _run(runner.subject_for_persona(persona), ALL, layers=(True, False), trials=2)
    on = [t for t in trials if t.layers]
    off = [t for t in trials if not t.layers]
    rate_on = sum(t.passed for t in on) / len(on)
    rate_off = sum(t.passed for t in off) / len(off)
    assert rate_on == 1.0
    assert rate_off <= rate_on - 0.3, (rate_on, rate_off)
    assert any(t.faults for t in on), "the noisy model injected no fault at all"
    assert sum(t.repairs for t in on) > 0 and sum(t.repairs for t in off) == 0


def test_the_model_reacts_to_the_validation_error():
    subject = runner.subject_for_persona("openai-native")
    t = _run(subject, ["missing_required_argument"])[0]
    assert t.passed and t.validation_errors == 1 and t.faults == ["drop_required"] and t.turns == 3
    assert not t.first_attempt
    off = _run(subject, ["missing_required_argument"], layers=(False,))[0]
    assert not off.passed and off.stop == "error"


def test_repairs_make_first_attempt_fail_but_success_hold():
    t = _run(runner.subject_for_persona("openai-native"), ["malformed_json", "type_error_recovery"])
    assert all(x.passed and x.repairs >= 1 and x.validation_errors == 0 and not x.first_attempt for x in t)


def test_text_call_is_a_fallback_for_native_plans():
    t = _run(runner.subject_for_persona("anthropic-native"), ["xml_leak"])[0]
    assert t.passed and t.fallbacks == 1 and t.dialects == ["claude_xml"]


def test_guards_fire():
    subject = runner.subject_for_persona("openai-native")
    by = {t.scenario: t for t in _run(subject, ["repeat_loop", "long_arguments_guard", "path_escape", "provider_retry"])}
    assert by["repeat_loop"].passed and by["repeat_loop"].calls == 4
    assert by["long_arguments_guard"].validation_errors == 1 and by["long_arguments_guard"].passed
    assert by["path_escape"].passed and by["path_escape"].calls == 3
    assert by["provider_retry"].provider_retries == 1 and by["provider_retry"].retries == 1


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("persona", ["openai-native", "hermes-emulated", "ollama-native"])
def test_each_fault_is_survived_with_layers_on(fault, persona):
    base = runner.subject_for_persona(persona)
    subject = dataclasses.replace(base, noise=NoiseConfig(rate=1.0, weights={fault: 1.0}), name=f"{persona}+{fault}")
    trials = _run(subject, ["happy_path", "parallel_reads"])
    assert all(t.passed for t in trials), [(t.scenario, t.reason) for t in trials]
    assert any(fault in t.faults for t in trials), f"{fault} was never injected"


def test_noise_is_deterministic_per_seed():
    subject = runner.subject_for_persona("noisy-hermes")
    a = [t.faults for t in _run(subject, ALL, trials=2)]
    b = [t.faults for t in _run(subject, ALL, trials=2)]
    c = [t.faults for t in _run(subject, ALL, trials=2, base_seed=7)]
    assert a == b and a != c


def test_noise_config_is_checked():
    with pytest.raises(ValueError):
        NoiseConfig(rate=1.5)
    with pytest.raises(ValueError):
        NoiseConfig(weights={"sneeze": 1.0})


def test_a_crawl_capped_profile_is_judged_not_crashed():
    base = runner.subject_for_persona("openai-native")
    profile = base.profile.model_copy(deep=True)
    profile.tools.max_tier = "crawl"
    subject = dataclasses.replace(base, profile=profile, name="crawl-only")
    by = {t.scenario: t for t in _run(subject, ["tier_escalation", "path_escape", "happy_path"])}
    assert not by["tier_escalation"].passed and "summary.txt" in by["tier_escalation"].reason
    assert by["path_escape"].passed
    assert not by["happy_path"].passed and by["happy_path"].stop != "crashed"
