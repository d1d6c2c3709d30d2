"""Fixtures for protocol tests: loopback servers, profiles pointing at them, a sleep that only records."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from agentcli.testing.servers import AnthropicServer, GeminiServer, LoopbackServer, OllamaServer, OpenAIServer


class RecordingSleep:
    """Stands in for asyncio.sleep: records each delay, never waits."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, delay: float) -> None:
        self.delays.append(delay)


@pytest.fixture
def sleeps() -> RecordingSleep:
    return RecordingSleep()


def _serve(cls: type[LoopbackServer], **kw: Any) -> Iterator[LoopbackServer]:
    with cls(**kw) as srv:
        yield srv


@pytest.fixture
def openai_server() -> Iterator[OpenAIServer]:
    yield from _serve(OpenAIServer)  # type: ignore[misc]


@pytest.fixture
def anthropic_server() -> Iterator[AnthropicServer]:
    yield from _serve(AnthropicServer)  # type: ignore[misc]


@pytest.fixture
def ollama_server() -> Iterator[OllamaServer]:
    yield from _serve(OllamaServer)  # type: ignore[misc]


@pytest.fixture
def gemini_server() -> Iterator[GeminiServer]:
    yield from _serve(GeminiServer)  # type: ignore[misc]


@pytest.fixture
def key_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """Export the test key under a secret-looking name, as a user would."""
    from wire_helpers import KEY

    monkeypatch.setenv("LOOPBACK_API_KEY", KEY)
    return "LOOPBACK_API_KEY"
