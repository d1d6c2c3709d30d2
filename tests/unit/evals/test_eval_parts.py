"""Writers round-trip through the real parsers; reports, the golden matrix, built-in models, the demo."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from agentcli import wire
from agentcli.agent.layers import ALL_OFF, ALL_ON
from agentcli.core.events import Checkpoint, CheckpointKind, Done, Notice, ToolFinished
from agentcli.core.types import Tool
from agentcli.evals import matrix, report, runner
from agentcli.providers.scripted.builtin import BUILTIN_MODELS, is_builtin, load_builtin
from agentcli.providers.scripted.writers import NATIVE, TEXT, Out, write_turn
from agentcli.wire.dialects import DIALECTS
from agentcli.wire.types import ParseContext, WirePlan

TOOLS = [Tool("read_file", "", {"type": "object", "properties": {"path": {"type": "string"}}})]
CALL = Out("read_file", {"path": "src/ä b.py"})


@pytest.mark.parametrize("api", list(NATIVE))
def test_native_turns_parse_back(api):
    plan = WirePlan(api=api, native_tools=True, parsers=())
    turn = write_turn(plan, "Reading.", [CALL], (12, 0))
    (kind, body), = turn.items()
    parsed = wire.parse_response(plan, body, ParseContext.of(TOOLS))
    assert kind == api and parsed.text == "Reading."
    assert [(c.name, c.arguments, c.dialect) for c in parsed.tool_calls] == [("read_file", CALL.args, f"native_{api}")]
    assert parsed.usage.input_tokens == 12 and parsed.usage.output_tokens > 0


@pytest.mark.parametrize("dialect", list(TEXT))
def test_text_calls_parse_back(dialect):
    base = dialect.replace("_bare", "")
    plan = WirePlan(api="openai", native_tools=True, parsers=(base, *DIALECTS))
    turn = write_turn(plan, "", [Out(CALL.name, CALL.args, dialect=dialect)])
    parsed = wire.parse_response(plan, turn["openai"], ParseContext.of(TOOLS, prefer=(base,)))
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("read_file", CALL.args)], parsed
    assert parsed.tool_calls[0].dialect == base


def test_broken_json_goes_where_it_can_be_written():
    broken = Out("read_file", {"path": "a"}, raw='{"path": "a",}')
    native = write_turn(WirePlan(api="openai", native_tools=True), "", [broken])
    assert native["openai"]["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"path": "a",}'
    claude = write_turn(WirePlan(api="anthropic", native_tools=True), "", [broken])
    assert '<tool_call>' in claude["anthropic"]["content"][0]["text"]  # no raw JSON in tool_use.input
    parsed = wire.parse_response(WirePlan(api="anthropic", parsers=tuple(DIALECTS)), claude["anthropic"],
                                 ParseContext.of(TOOLS))
    assert parsed.tool_calls[0].arguments == {"path": "a"} and parsed.repairs[0].kind == "json_repair"


def test_percentile_and_aggregate_schema():
    assert report.percentile([5, 1, 3, 2, 4], 50) == 3
    assert report.percentile([1.0] * 19 + [100.0], 95) == 1.0
    assert report.percentile([1.0] * 18 + [100.0, 100.0], 95) == 100.0
    trials = asyncio.run(runner.run_jobs(runner.plan_jobs(
        [runner.subject_for_persona("noisy-openai")], ["happy_path", "chat_only"], 2,
        {"on": ALL_ON, "off": ALL_OFF})))
    out = report.to_json(trials)
    assert json.loads(json.dumps(out)) == out
    rows = out["results"]
    assert len(rows) == 4 and {r["layers"] for r in rows} == {"on", "off"}
    for r in rows:
        assert set(report.FIELDS) <= set(r)
        assert r["trials"] == 2 and 0 <= r["success_rate"] <= 1 and r["p50_ms"] <= r["p95_ms"]
    chat = next(r for r in rows if r["scenario"] == "chat_only" and r["layers"] == "on")
    assert chat["tool_selection_accuracy"] == 1.0 and chat["argument_accuracy"] is None and chat["turns"] == 1
    assert len(report.tables(trials)) == 3
    (c,) = out["layers"]
    assert set(report.CONTRIBUTION_FIELDS) <= set(c)
    assert c["profile"] == "scripted: noisy-openai" and c["layer"] == "all" and c["variant"] == "off"
    assert c["contribution"] == round(c["success_on"] - c["success_without"], 3)


def test_golden_fixtures_run_through_the_parsers():
    rows = matrix.run_golden()
    assert len(rows) >= 12
    assert {r["family"] for r in rows} >= {"llama", "qwen", "kimi"}
    for r in rows:
        assert r["source"].startswith("https://github.com/")
        if r["known_gap"]:
            assert not r["parsed"], f"{r['id']} parses now: drop its known_gap note"
        else:
            assert r["parsed"], f"golden fixture {r['id']} no longer parses ({r['source']})"
    ids = {r["id"] for r in rows if r["parsed"]}
    assert {"qwen3_coder_missing_opener_anthropic_endpoint", "llama32_pythonic_prompt_format",
            "kimi_k2_section_in_content", "llama32_json_fenced_in_content"} <= ids
    grid = matrix.golden_matrix(rows)
    assert sum(g["fixtures"] for g in grid) == len(rows)
    assert all(0 <= g["parse_success"] <= 1 for g in grid)


def test_trial_matrix_rows():
    subjects = [runner.subject_for_persona(n) for n in ("openai-native", "pythonic-emulated")]
    trials = asyncio.run(runner.run_jobs(runner.plan_jobs(subjects, ["xml_leak"], 1, {"on": ALL_ON, "off": ALL_OFF})))
    rows = {(r["profile"].removeprefix("scripted: "), r["layers"]): r for r in matrix.trial_matrix(trials, subjects)}
    assert rows[("openai-native", "on")]["mode"] == "native"
    assert rows[("pythonic-emulated", "on")]["mode"] == "emulated"
    assert rows[("pythonic-emulated", "on")]["dialect"] == "pythonic"
    assert rows[("openai-native", "on")]["success_rate"] == 1.0 and rows[("openai-native", "off")]["success_rate"] == 0.0


def test_builtin_registry():
    assert is_builtin("builtin:demo") and not is_builtin("turns.json") and not is_builtin(None)
    api, fn = load_builtin("builtin:demo")
    assert api == "openai" and callable(fn) and "demo" in BUILTIN_MODELS
    with pytest.raises(KeyError, match="known: demo"):
        load_builtin("builtin:nope")


def test_scripted_provider_resolves_builtin_models():
    from agentcli.config.schema import Profile
    from agentcli.core.errors import ConfigError
    from agentcli.providers.scripted import ScriptedProvider

    p = ScriptedProvider(Profile(name="x", provider="scripted", model="m", script="builtin:demo"))
    assert p.api == "openai" and p.remaining == 0
    with pytest.raises(ConfigError):
        ScriptedProvider(Profile(name="x", provider="scripted", model="m", script="builtin:nope"))


async def _demo_events(tmp_path: Path, goal: str, tier: str = "crawl", mode: str = "ask") -> tuple[list, Path]:
    from agentcli.agent.approval import PolicyApprover
    from agentcli.agent.build import open_session
    from agentcli.agent.loop import Agent
    from agentcli.cli.demo import prepare
    from agentcli.config import load_profile

    ws = prepare(tmp_path)
    profile = load_profile("offline").profile
    session = open_session(profile, ws, tier=tier, goal=goal, approve_mode=mode, record=False)
    events = [ev async for ev in Agent(session, PolicyApprover(approve_all=True)).run(goal)]  # a person saying yes
    return events, ws


async def test_demo_session_shows_dialects_repair_checkpoint_and_answer(tmp_path):
    from agentcli.cli.demo import GOAL

    events, ws = await _demo_events(tmp_path, GOAL)
    calls = [e.call for e in events if isinstance(e, ToolFinished)]
    assert [(c.name, c.dialect) for c in calls] == [
        ("list_files", "native_openai"), ("read_file", "hermes"), ("request_tier", "native_openai"),
        ("edit_file", "claude_xml")]
    assert all(e.result.ok for e in events if isinstance(e, ToolFinished))
    assert any(isinstance(e, Notice) and e.code == "json_repair" for e in events)
    assert any(isinstance(e, Checkpoint) and e.kind is CheckpointKind.TIER_ESCALATION for e in events)
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "answered" and "Hello" in done.answer
    assert 'return f"Hello, {name}!"' in (ws / "greeting.py").read_text()
    package_copy = Path(__file__).resolve().parents[3] / "agentcli/evals/demo_workspace/greeting.py"
    assert "Helo," in package_copy.read_text(), "the demo must never edit the shipped workspace"


async def test_demo_model_only_looks_when_not_asked_to_fix(tmp_path):
    events, ws = await _demo_events(tmp_path, "What is in greeting.py?")
    done = events[-1]
    assert done.stop == "answered" and "typo on line 5" in done.answer and "offline demo model" in done.answer
    assert "Helo," in (ws / "greeting.py").read_text()
