"""`/model` and `/profile` resolve the new model the way opening a session does: learned facts for
it at its endpoint apply, and a profile value it cannot take is refused before anything changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.agent.build import open_session
from agentcli.agent.session import Session
from agentcli.agent.switch import apply_profile, switch
from agentcli.config import load_profile
from agentcli.core.errors import ConfigError
from agentcli.core.types import Tier
from agentcli.providers.scripted import ScriptedProvider

PROFILES = ('[profiles.p]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\nurl = "http://127.0.0.1:9"\n'
            '[profiles.bad]\nprovider = "openai"\nmodel = "gpt-4o"\n'
            '[profiles.bad.capabilities]\nno_such_capability = 1\n')


@pytest.fixture
def path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0000000000000000")
    (tmp_path / "ws").mkdir()
    (tmp_path / "p.toml").write_text(PROFILES)
    return tmp_path / "p.toml"


def _session(path: Path) -> Session:
    profile = load_profile(f"{path}#p").profile
    return open_session(profile, path.parent / "ws", provider=ScriptedProvider.from_turns([], api="ollama"))


def test_a_switch_applies_what_was_learned_about_the_new_model_there(path: Path) -> None:
    s = _session(path)
    switch(s, "openai/gpt-4o")
    assert s.plan.native_tools and s.learned is not None
    s.learned.record("gpt-4o", s.provider.url, "native_tools", False, "a test")
    switch(s, "qwen2.5:7b")
    switch(s, "openai/gpt-4o")
    assert not s.plan.native_tools  # the learned fact, not the family's default


def test_a_profile_value_the_model_cannot_take_changes_nothing(path: Path) -> None:
    s = _session(path)
    before = (s.profile, s.provider, s.capability, s.plan)
    with pytest.raises(ConfigError, match="no_such_capability") as caught:
        apply_profile(s, load_profile(f"{path}#bad").profile)
    assert caught.value.key == "capabilities"
    assert (s.profile, s.provider, s.capability, s.plan) == before


def test_a_switch_keeps_the_runs_tier_flag_as_its_cap(path: Path) -> None:
    profile = load_profile(f"{path}#p").profile
    s = open_session(profile, path.parent / "ws", cap="crawl",
                     provider=ScriptedProvider.from_turns([], api="ollama"))
    switch(s, "openai/gpt-4o")  # a profile whose own max_tier is higher
    assert s.max_tier is Tier.CRAWL and s.tier_grant().cap is Tier.CRAWL
    plain = _session(path)
    switch(plain, "openai/gpt-4o")
    assert plain.max_tier is Tier.RUN  # no flag: the profile's cap, as before
