"""The capability's max_output_tokens bounds what a request asks for."""

from __future__ import annotations

from agentcli.agent.build import open_session
from agentcli.config.schema import Profile
from agentcli.providers.scripted import ScriptedProvider


def _settings(tmp_path, limit):
    profile = Profile(name="t", provider="openai", model="gpt-4o")  # the model writes at most 16,384 tokens
    profile.limits.max_output_tokens = limit
    provider = ScriptedProvider.from_function(lambda *a: {"openai": {}}, api="openai")
    session = open_session(profile, tmp_path, record=False, provider=provider)
    return session.settings()


def test_a_profile_limit_above_the_models_output_is_clamped(tmp_path):
    assert _settings(tmp_path, 100_000).max_output_tokens == 16_384
    assert _settings(tmp_path, 500).max_output_tokens == 500
    assert _settings(tmp_path, None).max_output_tokens is None  # the API's own default
