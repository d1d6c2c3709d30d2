"""Adding a provider is one module and one row of the provider table: a throwaway provider
registered in one place is accepted by profiles and runs a real turn over HTTP."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from agentcli.agent.build import open_session
from agentcli.agent.loop import Agent
from agentcli.config import load_profile
from agentcli.config.providers import PROVIDERS, ProviderEntry
from agentcli.core.events import Done
from agentcli.providers.base import Chunk, Provider, sse_json
from agentcli.testing.servers import OpenAIServer
from agentcli.wire.types import RequestSettings


class AcmeProvider(Provider):
    """A made-up vendor that speaks the Chat Completions shape on its own path."""

    name = "acme"
    api = "openai"

    def endpoint(self, settings: RequestSettings) -> str:
        return f"{self.url}/chat/completions"

    def adjust_body(self, body: dict[str, Any], settings: RequestSettings) -> dict[str, Any]:
        body["stream"] = bool(settings.stream)
        return body

    def stream_item(self, event: str, data: dict[str, Any] | str) -> Chunk:
        if isinstance(data, str) and data.strip() == "[DONE]":
            return None, True
        return sse_json(data), False


@pytest.fixture
def acme(monkeypatch: pytest.MonkeyPatch) -> None:
    # The vendor's module, as a plugin package would ship it.
    monkeypatch.setitem(sys.modules, "acme_vendor.provider", sys.modules[__name__])
    monkeypatch.setitem(PROVIDERS, "acme", ProviderEntry("acme_vendor.provider:AcmeProvider", "openai", None, None))


async def test_a_provider_is_one_module_and_one_row(acme: None, tmp_path: Path) -> None:
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
