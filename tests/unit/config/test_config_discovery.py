"""Discovery order, path references, the default profile, origins and listings."""

from __future__ import annotations

from pathlib import Path

import pytest

from agentcli.config import list_profiles, load_profile, scan, shipped_dir
from agentcli.config.paths import settings_file
from agentcli.config.trust import trust
from agentcli.core.errors import ConfigError


def _profile(name: str, model: str, extra: str = "") -> str:
    return f'[profiles.{name}]\nprovider = "openai"\nmodel = "{model}"\n{extra}'


def test_order_workspace_then_user_then_shipped(put, ws, user_dir):
    assert load_profile("openai", workspace=ws).profile.model == "gpt-4o-mini"  # shipped
    put(user_dir / "openai.toml", _profile("openai", "user-model"))
    loaded = load_profile("openai", workspace=ws)
    assert (loaded.profile.model, loaded.scope) == ("user-model", "user")
    put(ws / ".agent" / "profiles" / "openai.toml", _profile("openai", "ws-model"))
    trust(ws)
    loaded = load_profile("openai", workspace=ws)
    assert (loaded.profile.model, loaded.scope, loaded.warnings) == ("ws-model", "workspace", [])
    assert loaded.profile.source == ws / ".agent" / "profiles" / "openai.toml"


def test_workspace_defaults_to_cwd(put, ws, monkeypatch):
    put(ws / ".agent" / "profiles" / "here.toml", _profile("here", "m"))
    trust(ws)
    monkeypatch.chdir(ws)
    assert load_profile("here").profile.name == "here"


def test_profile_found_in_a_file_with_another_name(put, user_dir):
    put(user_dir / "work.toml", _profile("alpha", "a") + "\n" + _profile("beta", "b"))
    assert load_profile("beta").profile.model == "b"
    assert load_profile("alpha").profile.source == user_dir / "work.toml"


def test_name_file_wins_over_other_files_with_a_warning(put, user_dir):
    put(user_dir / "all.toml", _profile("p", "from-all"))
    put(user_dir / "p.toml", _profile("p", "from-p"))
    loaded = load_profile("p")
    assert loaded.profile.model == "from-p"
    assert any("also defined in" in w and "all.toml" in w for w in loaded.warnings)


def test_two_other_files_defining_a_name_is_ambiguous(put, user_dir):
    put(user_dir / "a.toml", _profile("p", "1"))
    put(user_dir / "b.toml", _profile("p", "2"))
    with pytest.raises(ConfigError, match=r"profile 'p': defined in more than one file: .*a\.toml, .*b\.toml"):
        load_profile("p")


def test_broken_unrelated_file_is_a_warning_not_an_error(put, user_dir):
    put(user_dir / "broken.toml", "[profiles.x\n")
    put(user_dir / "good.toml", _profile("good", "m"))
    loaded = load_profile("good")
    assert loaded.profile.model == "m"
    assert len(loaded.warnings) == 1 and "broken.toml" in loaded.warnings[0] and "line 1" in loaded.warnings[0]


def test_path_reference_and_hash_name(put, tmp_path, monkeypatch):
    single = put(tmp_path / "one.toml", _profile("solo", "s"))
    assert load_profile(str(single)).profile.name == "solo"
    multi = put(tmp_path / "two.toml", _profile("a", "ma") + _profile("b", "mb"))
    loaded = load_profile(f"{multi}#b")
    assert (loaded.profile.name, loaded.profile.model, loaded.scope) == ("b", "mb", "file")
    monkeypatch.chdir(tmp_path)
    assert load_profile("one.toml").profile.name == "solo"  # relative path
    assert load_profile("./two.toml#a").profile.model == "ma"


def test_path_in_home_is_expanded(put, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    put(tmp_path / "mine.toml", _profile("mine", "m"))
    assert load_profile("~/mine.toml").profile.name == "mine"


def test_default_profile_fallback_env_and_settings(put, user_dir, monkeypatch):
    loaded = load_profile(None)
    assert loaded.profile.name == "boxxie" and loaded.profile.provider == "ollama"
    put(user_dir / "fav.toml", _profile("fav", "m"))
    put(settings_file(), 'default_profile = "fav"\n')
    assert load_profile(None).profile.name == "fav"
    assert load_profile("").profile.name == "fav"
    monkeypatch.setenv("AGENTCLI_PROFILE", "openai")  # the environment beats the settings file
    assert load_profile(None).profile.name == "openai"


def test_origins_say_file_or_default(put, user_dir):
    path = put(user_dir / "p.toml", _profile("p", "m", "[profiles.p.tools]\nmax_tier = \"walk\"\n"
                                             "[profiles.p.capabilities]\nnative_tools = false\n"))
    origins = load_profile("p").origins
    assert origins["model"] == origins["provider"] == origins["tools.max_tier"] == str(path)
    assert origins["capabilities.native_tools"] == str(path)
    assert origins["url"] == origins["tools.call_parser"] == origins["limits.max_turns"] == "default"
    assert origins["bash.allow"] == "default"
    assert "name" not in origins and "source" not in origins


def test_resolved_url_and_key_env(put, user_dir):
    put(user_dir / "local.toml", '[profiles.local]\nprovider = "openai"\nmodel = "m"\n'
                                 'url = "http://127.0.0.1:8000/v1/"\napi_key_env = ""\n')
    p = load_profile("local").profile
    assert p.resolved_url() == "http://127.0.0.1:8000/v1" and p.resolved_api_key_env() is None
    put(user_dir / "plain.toml", '[profiles.plain]\nprovider = "anthropic"\nmodel = "claude-x"\n')
    p = load_profile("plain").profile
    assert (p.url, p.api_key_env) == (None, None)
    assert (p.resolved_url(), p.resolved_api_key_env()) == ("https://api.anthropic.com", "ANTHROPIC_API_KEY")


def test_list_profiles_marks_shadowed_and_scopes(put, ws, user_dir):
    put(user_dir / "openai.toml", _profile("openai", "mine"))
    refs = list_profiles(ws)
    openai = [r for r in refs if r.name == "openai"]
    assert [(r.scope, r.shadowed) for r in openai] == [("user", False), ("shipped", True)]
    assert openai[0].model == "mine" and openai[0].provider == "openai"
    assert {r.name for r in refs if r.scope == "shipped"} >= {"boxxie", "openai", "claude"}


def test_scan_reports_broken_files(put, user_dir):
    put(user_dir / "bad.toml", "x = [1,\n")
    refs, warnings = scan()
    assert refs and any("bad.toml" in w and "TOML syntax error" in w for w in warnings)


def test_shipped_dir_is_package_data():
    assert shipped_dir() == Path(__import__("agentcli.config", fromlist=["x"]).__file__).parent / "profiles"
