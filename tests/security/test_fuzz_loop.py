"""Whole-loop fuzz: noise as model output, through the parsers, the loop, the tools and every renderer.

Random bytes, random Unicode, markup-like text and half-formed tool calls (text forms and
native calls with random argument strings) are played as model turns, streamed and whole.
Each run must end with a Done event; nothing may raise, nothing hidden may reach the terminal,
every --json line must be JSON, and no parser exception may be swallowed unseen
(`agentcli.wire.failures` stays at zero). `make test` runs a small sample; `make fuzz` sets
AGENTCLI_FUZZ_EXAMPLES for the full run.
"""

from __future__ import annotations

import asyncio
import io
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.agent.approval import Decision
from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.escape import visible
from agentcli.core.events import Done
from agentcli.providers.scripted import ScriptedProvider

EXAMPLES = int(os.environ.get("AGENTCLI_FUZZ_EXAMPLES", "0") or 0) // 25 or 25  # make fuzz: 50,000 -> 2,000 runs
MARKUP = ["[", "]", "[/", "[bold]", "[/]", "[link=http://x]", "\\", "<tool_call>", "</tool_call>", "<think>",
          "</think>", '{"name": "read_file", "arguments": ', '{"path": "', '"}', "}", "[TOOL_CALLS]", "<|python_tag|>",
          "<function=search>", "</function>", "```json\n", "```", "\x1b[31m", "\u202e", "\ud800", "😀", "\n", " "]
TOOLS = ["read_file", "list_files", "search", "write_file", "bash", "nope", ""]

random_bytes = st.binary(max_size=200).map(lambda b: b.decode("utf-8", "surrogateescape"))
random_text = st.text(max_size=200)
markup_like = st.lists(st.sampled_from(MARKUP) | st.text(max_size=5), max_size=40).map("".join)
noise = st.one_of(random_bytes, random_text, markup_like)


def _native(name: str, raw_args: str) -> dict:
    return {"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": name, "arguments": raw_args}}]},
        "finish_reason": "tool_calls"}]}}


args_like = st.one_of(noise, st.dictionaries(st.sampled_from(["path", "pattern", "type", "x"]), noise | st.integers(),
                                             max_size=3).map(json.dumps))
turn = st.one_of(noise.map(lambda t: {"text": t}), st.builds(_native, st.sampled_from(TOOLS), args_like))


class _Yes:
    async def decide(self, cp):  # noqa: ANN001, ANN201
        return Decision("yes")


async def _no_sleep(_):  # noqa: ANN001, ANN202
    return None


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    root = tmp_path_factory.mktemp("fuzz")
    (root / "ws").mkdir()
    (root / "ws" / "a.txt").write_text("hello [/x] \u202e\n")
    prof = root / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = "K_FOR_TEST"\n[profiles.p.limits]\nmax_retries = 0\nmax_turns = 6\n'
                    '[profiles.p.tools]\nmax_tier = "crawl"\n')
    return root


@pytest.fixture
def screen(monkeypatch):
    import agentcli.ui.render as render

    buf = io.StringIO()
    monkeypatch.setattr(render, "make_console", lambda stderr=False: render._safe_console_class()(
        file=buf, width=200, color_system=None, markup=False, emoji=False, highlight=False, soft_wrap=True))
    return buf


@pytest.mark.slow
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                      HealthCheck.too_slow, HealthCheck.data_too_large])
@given(turns=st.lists(turn, min_size=1, max_size=3), final=noise, stream=st.booleans(), emulated=st.booleans())
def test_fuzz_whole_loop(place, screen, monkeypatch, turns, final, stream, emulated):
    from agentcli.ui.render import JsonRenderer, TerminalRenderer
    from agentcli.wire import failures

    monkeypatch.setenv("K_FOR_TEST", "sk-test-0000000000000000")
    profile = load_profile(str(place / "p.toml")).profile
    profile.stream = stream
    if emulated:
        profile.capabilities["native_tools"] = False
    provider = ScriptedProvider.from_turns([*turns, {"text": final}], api="openai", profile=profile, sleep=_no_sleep)
    session = open_session(profile, place / "ws", provider=provider, approve_mode="all", record=False)
    before = failures.total()
    terminal, as_json = TerminalRenderer(), JsonRenderer(io.StringIO())
    events: list = []

    async def drive() -> None:
        async for ev in Agent(session, _Yes()).run("go"):
            events.append(ev)
            terminal(ev)
            as_json(ev)

    asyncio.run(drive())
    assert isinstance(events[-1], Done)
    assert failures.total() == before, failures.recent()
    shown = screen.getvalue()
    assert visible(shown) == shown
    for line in as_json.stream.getvalue().split("\n")[:-1]:
        json.loads(line)
    as_json.stream.getvalue().encode("utf-8")
