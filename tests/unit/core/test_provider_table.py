"""Adding a provider on an API shape agentcli speaks is one row of the provider table: a throwaway
provider registered in one place is accepted by profiles and runs a real turn over HTTP."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.config.providers import PROVIDERS, ProviderFacts
from agentcli.core.events import Done
from agentcli.testing.servers import OpenAIServer


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> None:
    # A made-up vendor on the Chat Completions shape: its row is all there is.
    monkeypatch.setitem(PROVIDERS, "acme", ProviderFacts("openai", None, "ACME_API_KEY"))
    monkeypatch.setenv("ACME_API_KEY", "acme-test-key-0123456789")


async def test_a_provider_on_a_known_shape_is_one_row(acme: None, tmp_path: Path) -> None:
    with OpenAIServer() as server:
        server.queue({"choices": [{"index": 0, "message": {"role": "assistant", "content": "hello from acme"},
                                   "finish_reason": "stop"}]})
        prof = tmp_path / "p.toml"
        prof.write_text(f'[profiles.p]\nprovider = "acme"\nmodel = "acme-1"\nurl = "{server.url}"\nstream = false\n')
        profile = load_profile(str(prof)).profile
        ws = tmp_path / "ws"
        ws.mkdir()
        session = open_session(profile, ws, interactive=False, record=False)
        events = [ev async for ev in Agent(session, _Never()).run("hi")]
        await session.provider.aclose()
    done = events[-1]
    assert isinstance(done, Done) and done.answer == "hello from acme"
    assert session.provider.name == "acme"  # the row's name, and its key variable:
    assert server.last.headers["authorization"] == "Bearer acme-test-key-0123456789"
    assert server.last.path.endswith("/chat/completions") and server.last.body["model"] == "acme-1"


def test_an_unknown_provider_is_a_profile_error(tmp_path: Path) -> None:
    from agentcli.core.errors import ConfigError

    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "acme"\nmodel = "m"\n')
    with pytest.raises(ConfigError, match="must be one of 'openai'"):
        load_profile(str(prof))


class _Never:
    async def decide(self, cp: Any) -> Any:
        raise AssertionError(f"no checkpoint expected: {cp}")
