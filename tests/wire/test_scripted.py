"""The scripted provider: file and function turns, same parsers, same events, same retry policy."""

from __future__ import annotations

import json

import pytest
from wire_helpers import APIS, CALLS, TEXT, TOOLS, body_for, settings

from agentcli.config.schema import Profile
from agentcli.core.errors import ConfigError, ProviderError
from agentcli.core.errors import ProviderErrorCode as Code
from agentcli.core.events import RetryScheduled, StreamEvent, StreamKind
from agentcli.core.types import Message
from agentcli.providers import create
from agentcli.providers.scripted import ScriptedProvider
from agentcli.wire.types import ParseContext, WirePlan

HERMES = 'Checking.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "src/app.py"}}\n</tool_call>'


async def run(provider, *, api="openai", stream=False, parsers=(), native=True, events=None):
    plan = WirePlan(api=api, native_tools=native, dialect=None if native else "hermes", parsers=parsers)
    return await provider.complete([Message.user("go")], TOOLS, plan, settings(stream), ParseContext.of(TOOLS),
                                   events.append if events is not None else None)


def write_script(tmp_path, data) -> Profile:
    (tmp_path / "turns").mkdir()
    (tmp_path / "turns" / "demo.json").write_text(json.dumps(data))
    prof = Profile(name="offline", provider="scripted", model="demo", script="turns/demo.json")
    prof.source = tmp_path / "profiles.toml"  # relative scripts resolve against the profile file
    return prof


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True])
async def test_api_turns_parse_like_live_ones(api, stream):
    p = ScriptedProvider.from_turns([{api: body_for(api)}], api=api)
    events: list = []
    parsed = await run(p, api=api, stream=stream, events=events)
    assert parsed.text.strip() == TEXT
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [(n, a) for _i, n, a in CALLS]
    kinds = {e.kind for e in events if isinstance(e, StreamEvent)}
    if stream:
        assert {StreamKind.TEXT, StreamKind.TOOL_START, StreamKind.TOOL_END} <= kinds
        assert len([e for e in events if isinstance(e, StreamEvent) and e.kind is StreamKind.TEXT]) > 1
    else:
        assert not events
    p.assert_complete()


async def test_turn_api_may_differ_from_the_plan():
    p = ScriptedProvider.from_turns([{"anthropic": body_for("anthropic")}], api="openai")
    parsed = await run(p, api="openai")
    assert len(parsed.tool_calls) == 2


@pytest.mark.parametrize("stream", [False, True])
async def test_text_turns_go_through_the_plans_parsers(stream):
    p = ScriptedProvider.from_turns([{"text": HERMES}])
    parsed = await run(p, stream=stream, native=False, parsers=("hermes",))
    assert [(c.name, c.arguments) for c in parsed.tool_calls] == [("read_file", {"path": "src/app.py"})]
    assert parsed.text.strip() == "Checking."


async def test_faults_use_the_retry_policy(tmp_path):
    delays: list[float] = []

    async def sleep(d: float) -> None:
        delays.append(d)

    prof = write_script(tmp_path, {"api": "openai", "turns": [
        {"fault": {"status": 429, "retry_after": 1}},
        {"fault": "reset"},
        {"openai": body_for("openai", "done", [])},
    ]})
    p = create(prof, sleep=sleep)
    p.policy.random = lambda: 0.0
    events: list = []
    parsed = await run(p, events=events)
    assert parsed.text == "done" and delays == [1.0, 1.0]
    assert [e.reason for e in events if isinstance(e, RetryScheduled)] == ["rate limited (HTTP 429)", "connection failed"]
    assert len(p.requests) == 3 and p.requests[0].messages[0].text == "go"
    p.assert_complete()


async def test_fault_bodies_map_like_http_ones():
    p = ScriptedProvider.from_turns([{"fault": {"status": 400, "body": {"error": "registry.ollama.ai/library/gemma2:2b does not support tools"}}}], api="ollama")
    with pytest.raises(ProviderError) as info:
        await run(p, api="ollama")
    assert info.value.code is Code.TOOLS_UNSUPPORTED


async def test_out_of_turns_and_assert_complete():
    p = ScriptedProvider.from_turns([{"text": "a"}, {"text": "b"}])
    await run(p)
    with pytest.raises(AssertionError, match="1 of 2 turns"):
        p.assert_complete()
    await run(p)
    with pytest.raises(ProviderError) as info:
        await run(p)
    assert "ran out of turns" in info.value.message


async def test_from_function_sees_the_request():
    seen = []

    def model(messages, tools, plan):
        seen.append((messages[-1].text, [t.name for t in tools], plan.api))
        return {"text": f"you said {messages[-1].text}"}

    p = ScriptedProvider.from_function(model)
    parsed = await run(p)
    assert parsed.text == "you said go" and seen == [("go", ["read_file", "grep"], "openai")]
    p.assert_complete()


def test_bad_scripts_are_profile_errors(tmp_path):
    prof = write_script(tmp_path, {"turns": [{"txet": "typo"}]})
    with pytest.raises(ConfigError) as info:
        create(prof)
    assert "demo.json" in info.value.message and "turn 1" in info.value.message
    with pytest.raises(ConfigError):
        create(Profile(name="x", provider="scripted", model="m", script=str(tmp_path / "missing.json")))
    with pytest.raises(ConfigError):
        create(Profile(name="x", provider="scripted", model="m"))


async def test_file_api_sets_the_provider_api(tmp_path):
    prof = write_script(tmp_path, {"api": "gemini", "turns": [{"gemini": body_for("gemini")}]})
    p = create(prof)
    assert p.api == "gemini" and await p.list_models() == ["demo"]
    parsed = await run(p, api="gemini", stream=True)
    assert len(parsed.tool_calls) == 2
