"""Provider from the model id, as a table: first matching rule wins; routers keep their ids."""

from __future__ import annotations

import pytest

from agentcli.config.model_routes import ROUTES, provider_for


@pytest.mark.parametrize("model,profile_provider,want_provider,want_model", [
    ("claude-3-5-sonnet-latest", "ollama", "anthropic", "claude-3-5-sonnet-latest"),
    ("gpt-4.1", "ollama", "openai", "gpt-4.1"),
    ("o1", "ollama", "openai", "o1"),
    ("o4-mini", "anthropic", "openai", "o4-mini"),
    ("gemini-2.5-pro", "openai", "gemini", "gemini-2.5-pro"),
    ("ollama/qwen3:8b", "openai", "ollama", "qwen3:8b"),
    ("gpt-oss:20b", "ollama", "ollama", "gpt-oss:20b"),  # a local tag, not OpenAI's API
    ("llama3.1", "ollama", "ollama", "llama3.1"),
    ("o1x-model", "ollama", "ollama", "o1x-model"),
    ("anthropic/claude-sonnet-4", "openrouter", "openrouter", "anthropic/claude-sonnet-4"),
])
def test_routes(model, profile_provider, want_provider, want_model):
    choice = provider_for(model, profile_provider)
    assert (choice.provider, choice.model) == (want_provider, want_model)
    assert choice.rule


def test_the_rules_are_data():
    assert len(ROUTES) >= 5 and all(r.rule and r.pattern.pattern for r in ROUTES)
