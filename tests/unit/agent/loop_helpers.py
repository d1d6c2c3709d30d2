"""Shared set-up for loop tests: a session on a scripted model, and an approver that records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentcli.agent.approval import Decision
from agentcli.agent.build import open_session
from agentcli.agent.session import Session
from agentcli.config import load_profile
from agentcli.core.events import Checkpoint
from agentcli.providers.scripted import ScriptedProvider


class Recorder:
    """Answers checkpoints from a list, in order, and keeps what it was asked."""

    def __init__(self, *answers: Decision) -> None:
        self.answers = list(answers)
        self.seen: list[Checkpoint] = []

    async def decide(self, cp: Checkpoint) -> Decision:
        self.seen.append(cp)
        return self.answers.pop(0)


async def no_sleep(_: float) -> None:
    return None


def scripted_session(tmp_path: Path, turns: list[dict[str, Any]], *, interactive: bool = True) -> Session:
    """A session whose model plays `turns` (OpenAI shapes), with no retries and no key."""
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = ""\n[profiles.p.limits]\nmax_retries = 0\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    provider = ScriptedProvider.from_turns(turns, api="openai", profile=profile, sleep=no_sleep)
    return open_session(profile, ws, interactive=interactive, provider=provider)
