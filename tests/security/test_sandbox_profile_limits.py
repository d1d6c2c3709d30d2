"""The bash and background tools hand the profile's [bash] limits to the sandbox (not the defaults)."""

from __future__ import annotations

import json
from pathlib import Path

from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.core.events import Done
from agentcli.providers.scripted import ScriptedProvider


class _Yes:
    async def decide(self, cp):  # noqa: ANN001, ANN201
        from agentcli.agent.approval import Decision

        return Decision("yes")


async def _nothing(_: float) -> None:
    return None


async def test_a_profile_file_size_limit_binds_the_bash_tool(tmp_path: Path) -> None:
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = ""\n[profiles.p.tools]\nstart_tier = "run"\n'
                    "[profiles.p.bash]\nfile_size_mb = 1\n")
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir()
    call = {"id": "b1", "type": "function", "function": {
        "name": "bash", "arguments": json.dumps({"command": "head -c 3000000 /dev/zero > big; echo done"})}}
    turns = [{"openai": {"choices": [{"message": {"role": "assistant", "content": None, "tool_calls": [call]},
                                      "finish_reason": "tool_calls"}]}}, {"text": "ok"}]
    provider = ScriptedProvider.from_turns(turns, api="openai", profile=profile, sleep=_nothing)
    session = open_session(profile, ws, approve_mode="all", provider=provider, record=False)
    events = [ev async for ev in Agent(session, _Yes()).run("write a big file")]
    assert isinstance(events[-1], Done)
    assert (ws / "big").stat().st_size <= 1 << 20  # the 1 MB file-size limit of the profile held
