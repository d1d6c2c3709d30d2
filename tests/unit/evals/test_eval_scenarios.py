"""Every scenario through the real loop, for every persona; the noisy model and the layers switch."""

from __future__ import annotations

import dataclasses

import pytest

from agentcli.agent.layers import ALL_OFF, ALL_ON, LAYERS, variants
from agentcli.evals import report, runner
from agentcli.evals.noisy import FAULTS, NoiseConfig, lesson
from agentcli.evals.personas import PERSONAS
from agentcli.evals.scenarios import SCENARIOS, get, select
from agentcli.providers.scripted.model import Call
from agentcli.providers.scripted.writers import Out

ALL = list(SCENARIOS)
# Controls that start real processes (git, a sandboxed server): run for every persona above, left out
# of the many-variant runs below, where no layer can matter to them and they would only cost time.
PROCESS_CONTROLS = ("git_commit", "background_server")
CHEAP = [n for n in ALL if n not in PROCESS_CONTROLS]
ON = {"on": ALL_ON}
OFF = {"off": ALL_OFF}


def _run(subject, names, layers=None, trials=1, base_seed=0):
    import asyncio

    jobs = runner.plan_jobs([subject], names, trials, layers or ON)
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
                "empty_final", "chat_only", "tier_escalation", "path_escape", "name_variant", "tools_rejected",
                "tier_request", "file_moves", "git_commit", "background_server"}
    assert required <= set(SCENARIOS)
    exercised = {layer for n in SCENARIOS for layer in get(n).layers}
    assert exercised == set(LAYERS), "every layer needs a scenario where it should matter"
    assert select("all") == ALL
    assert select("happy_path, xml_leak") == ["happy_path", "xml_leak"]
    with pytest.raises(KeyError):
        select("happy_path,nope")


def test_every_variant_keeps_the_profiles_retry_budget():
    subject = runner.subject_for_persona("openai-native")
    for label, layers in variants().items():
        p = runner._prepare(subject.profile, get("malformed_json"), layers)
        assert p.limits.validation_retries == subject.profile.limits.validation_retries, label
        assert p.limits.max_turns == min(subject.profile.limits.max_turns, runner.MAX_TURNS), label


@pytest.mark.parametrize("persona", ["openai-native", "hermes-emulated", "ollama-native", "claude-xml-emulated"])
def test_a_layer_changes_only_the_scenarios_that_exercise_it(persona):
    """Controls stay controls: with a clean model, turning a layer off moves only the scenarios the
    table says it matters to (and the report flags nothing as unexpected)."""
    trials = _run(runner.subject_for_persona(persona), CHEAP, layers=variants())
    on = {t.scenario: t.passed for t in trials if t.layers == "on"}
    assert all(on.values()), on
    for t in trials:
        if t.layers in ("on", "off") or t.passed:
            continue
        layer = t.layers.removeprefix("no-")
        assert layer in get(t.scenario).layers, (t.layers, t.scenario, t.reason)
    rows = report.contributions(trials)
    assert {r["layer"] for r in rows} == {*LAYERS, "all"}
    assert all(r["unexpected"] == [] for r in rows), rows
    controls = [n for n in CHEAP if not get(n).layers]
    assert controls and all(t.passed for t in trials if t.scenario in controls), "a control scenario failed"


def test_what_each_layer_does_for_a_clean_native_model():
    by = {(t.scenario, t.layers): t
          for t in _run(runner.subject_for_persona("openai-native"), CHEAP, layers=variants())}
    # Layers that only save a round trip: the same success, one validation retry more.
    for scenario, variant in (("malformed_json", "no-repair"), ("name_variant", "no-names"),
                              ("type_error_recovery", "no-coercion")):
        on, off = by[(scenario, "on")], by[(scenario, variant)]
        assert on.passed and off.passed and on.validation_errors == 0 and off.validation_errors == 1, (scenario, off)
        assert off.turns == on.turns + 1
    # Layers a clean model cannot do without.
    assert not by[("missing_required_argument", "no-messages")].passed
    assert not by[("unknown_tool", "no-messages")].passed
    assert not by[("xml_leak", "no-fallback")].passed and not by[("tools_rejected", "no-fallback")].passed
    rep = by[("repeat_loop", "no-repeat_guard")]
    assert not rep.passed and rep.stop == "max_turns"
    # All off: the naive client still gets the whole retry budget before it gives up.
    off = by[("missing_required_argument", "off")]
    assert not off.passed and off.stop == "error" and off.validation_errors == ALL_ON_RETRIES + 1


ALL_ON_RETRIES = runner.subject_for_persona("openai-native").profile.limits.validation_retries


def test_the_model_fixes_only_what_the_error_told_it():
    meant = Call("read_file", {"path": "a.txt", "start_line": 3})
    assert lesson(meant, Out("open_file", meant.args)) == {"read_file"}
    assert lesson(meant, Out("read_file", meant.args, raw="{path: 'a.txt'}")) == {"JSON"}
    assert lesson(meant, Out("read_file", {"start_line": 3})) == {"path"}
    assert lesson(meant, Out("read_file", {"path": "a.txt", "start_line": "3"})) == {"start_line"}
    assert lesson(Call("list_files", {}), Out("list_files", {"recursive": "false"})) == {"recursive"}
    subject = runner.subject_for_persona("openai-native")
    told = _run(subject, ["unknown_tool"])[0]
    untold = _run(subject, ["unknown_tool"], layers={"no-messages": ALL_ON.without("messages")})[0]
    assert told.faults == ["unknown_name"] and told.passed
    assert untold.faults == ["unknown_name"] * untold.validation_errors and not untold.passed


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
    a = [t.faults for t in _run(subject, CHEAP, trials=2)]
    b = [t.faults for t in _run(subject, CHEAP, trials=2)]
    c = [t.faults for t in _run(subject, CHEAP, trials=2, base_seed=7)]
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
