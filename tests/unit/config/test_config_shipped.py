"""The shipped profiles: package data and top-level copies agree, and every one loads."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from agentcli.config import load_profile, provider_defaults, shipped_dir
from agentcli.config.schema import Profile

REPO_PROFILES = Path(__file__).resolve().parents[3] / "profiles"
SHIPPED = sorted(p.name for p in shipped_dir().glob("*.toml"))
REQUIRED = {"boxxie", "openai", "claude", "gemini", "openrouter", "ollama-llama"}


def test_top_level_profiles_match_package_data():
    assert REPO_PROFILES.is_dir()
    top = sorted(p.name for p in REPO_PROFILES.glob("*.toml"))
    assert top == SHIPPED, "profiles/ and agentcli/config/profiles/ hold different files"
    for name in SHIPPED:
        assert (REPO_PROFILES / name).read_bytes() == (shipped_dir() / name).read_bytes(), (
            f"profiles/{name} differs from agentcli/config/profiles/{name}; copy the package file over it")


def test_required_profiles_are_shipped():
    assert {Path(n).stem for n in SHIPPED} >= REQUIRED


@pytest.mark.parametrize("filename", SHIPPED)
def test_each_shipped_profile_loads_and_is_commented(filename):
    path = shipped_dir() / filename
    text = path.read_text()
    tables = tomllib.loads(text)["profiles"]
    assert list(tables) == [Path(filename).stem], "one profile per file, named like the file"
    loaded = load_profile(str(path))
    p = loaded.profile
    assert loaded.warnings == []
    assert text.lstrip().startswith("#") and text.count("\n#") >= 3, "explain the file to a newcomer"
    key_env = p.resolved_api_key_env()
    assert key_env == provider_defaults[p.provider]["api_key_env"]
    if key_env:
        assert f"export {key_env}=" in text, "say which variable holds the key"
    assert p.resolved_url() == provider_defaults[p.provider]["url"]


def test_expected_models():
    models = {n: load_profile(n).profile for n in REQUIRED}
    assert (models["boxxie"].provider, models["boxxie"].model) == ("ollama", "qwen3-next-80b-tools")
    assert models["boxxie"].url == "http://localhost:11434"
    assert models["openai"].model == "gpt-4o-mini"
    assert models["claude"].model == "claude-sonnet-4-20250514"
    assert models["gemini"].model.startswith("gemini-2.")
    assert models["ollama-llama"].model == "llama3.3:70b"
    assert models["openrouter"].provider == "openrouter" and "/" in models["openrouter"].model


def test_provider_defaults_cover_every_provider():
    from agentcli.config.providers import PROVIDERS
    from agentcli.providers import names

    assert set(provider_defaults) == set(PROVIDERS) == set(names())
    assert provider_defaults["openai"] == {"url": "https://api.openai.com/v1", "api_key_env": "OPENAI_API_KEY"}
    assert provider_defaults["ollama"]["api_key_env"] is None
    assert provider_defaults["scripted"]["url"] is None
    assert Profile(provider="scripted", model="x").resolved_url() is None


def test_a_shipped_profile_by_name_parses_its_own_file_only(monkeypatch, tmp_path):
    """One profile per shipped file (above) means no other shipped file can define it too: loading
    it by name reads that one file, not every shipped profile."""
    from agentcli.config import discovery

    read: list[str] = []
    real = discovery._tables
    monkeypatch.setattr(discovery, "_tables", lambda path: read.append(path.name) or real(path))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    loaded = load_profile("offline", workspace=tmp_path)
    assert loaded.profile.name == "offline" and read == ["offline.toml"]
    assert len(SHIPPED) > 1  # there were others to skip
