"""Every profile mistake is one ConfigError naming the file, the profile and the key."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.config import load_profile
from agentcli.core.errors import ConfigError


def _error(ref: str, **kw) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_profile(ref, **kw)
    assert info.value.exit_code == 2
    return info.value


def test_unknown_key_names_file_profile_key_and_suggests(put, user_dir):
    path = put(user_dir / "p.toml", """
        [profiles.p]
        provider = "openai"
        model = "gpt-4o-mini"
        [profiles.p.tools]
        max_teir = "walk"
    """)
    err = _error("p")
    assert err.message == f"{path}, profile 'p', key 'tools.max_teir': unknown key"
    assert err.hint and "did you mean 'max_tier'?" in err.hint
    assert (err.file, err.profile, err.key) == (str(path), "p", "tools.max_teir")


def test_unknown_top_level_profile_key(put, user_dir):
    put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        modle = "typo"
    """)
    err = _error("p")
    assert "profile 'p', key 'modle': unknown key" in err.message
    assert "'model'" in (err.hint or "")


def test_wrong_type(put, user_dir):
    path = put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        [profiles.p.limits]
        max_turns = "lots"
    """)
    err = _error("p")
    assert err.message.startswith(f"{path}, profile 'p', key 'limits.max_turns': must be a valid integer")
    assert "(got 'lots')" in err.message


def test_bool_type(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nmodel = "m"\nstream = "maybe"\n')
    assert "key 'stream': must be a valid boolean" in _error("p").message


def test_bad_tier(put, user_dir):
    path = put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        tools = { max_tier = "sprint" }
    """)
    err = _error("p")
    assert err.message == (f"{path}, profile 'p', key 'tools.max_tier': "
                           "must be one of 'crawl', 'walk' or 'run' (got 'sprint')")


def test_bad_provider(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nprovider = "azure"\nmodel = "m"\n')
    err = _error("p")
    assert "key 'provider': must be one of 'openai'" in err.message and "(got 'azure')" in err.message


def test_missing_model(put, user_dir):
    path = put(user_dir / "p.toml", '[profiles.p]\nprovider = "ollama"\n')
    assert _error("p").message == f"{path}, profile 'p', key 'model': required key is missing"


def test_several_problems_reports_first_and_counts_rest(put, user_dir):
    put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        stream = "x"
        [profiles.p.limits]
        max_turns = 0
        max_retries = -1
    """)
    err = _error("p")
    assert "key 'stream'" in err.message
    assert "2 more problem(s): limits.max_turns, limits.max_retries" in (err.hint or "")


def test_missing_profile_lists_existing_names(put, user_dir):
    put(user_dir / "mine.toml", '[profiles.mine]\nmodel = "m"\n')
    err = _error("nope")
    assert err.message.startswith("profile 'nope': not found; available profiles: ")
    names = err.message.split("available profiles: ", 1)[1].split(", ")
    assert "mine" in names and "boxxie" in names and names == sorted(names)
    assert str(user_dir) in (err.hint or "")


def test_toml_syntax_error_has_line_and_column(put, user_dir):
    path = put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        provider = ollama
    """)
    err = _error("p")
    assert err.message.startswith(f"{path}: TOML syntax error at line 3, column 12: ")
    assert "invalid value" in err.message.lower()


def test_toml_error_at_end_of_file(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nmodel = "m\n')
    # an unterminated string stops at the newline: still a located message
    assert "TOML syntax error at line 2" in _error("p").message
    put(user_dir / "q.toml", '[profiles.q]\nmodel = ')
    assert "TOML syntax error at end of file (line 2)" in _error("q").message


def test_api_key_env_value_is_never_echoed(put, user_dir):
    secret = "sk-proj-THISISNOTAREALKEY-1234567890"
    put(user_dir / "p.toml", f'[profiles.p]\nprovider = "openai"\nmodel = "m"\napi_key_env = "{secret}"\n')
    err = _error("p")
    assert "key 'api_key_env': must be the NAME of an environment variable" in err.message
    assert secret not in err.message and secret not in (err.hint or "")


def test_credential_headers_refused_without_echo(put, user_dir):
    put(user_dir / "p.toml", """
        [profiles.p]
        model = "m"
        headers = { Authorization = "Bearer abcdefghijklmnop" }
    """)
    err = _error("p")
    assert "key 'headers'" in err.message and "keys never live in profiles" in err.message
    assert "abcdefghijklmnop" not in err.message


@pytest.mark.parametrize("url, reason", [
    ("localhost:11434", "must be an http:// or https:// base URL"),
    ("ftp://example.com", "must be an http:// or https:// base URL"),
    ("https://user:pw@example.com/v1", "must not carry credentials"),
])
def test_bad_urls(put, user_dir, url, reason):
    put(user_dir / "p.toml", f'[profiles.p]\nmodel = "m"\nurl = "{url}"\n')
    err = _error("p")
    assert "key 'url'" in err.message and reason in err.message


def test_reserved_request_keys(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nmodel = "m"\nrequest = { messages = [], top_k = 20 }\n')
    assert "key 'request': may not set messages" in _error("p").message


def test_name_key_inside_table_is_refused(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nname = "other"\nmodel = "m"\n')
    assert "profile 'p', key 'name': unknown key" in _error("p").message


def test_top_level_key_outside_profiles(put, tmp_path):
    path = put(tmp_path / "flat.toml", 'provider = "ollama"\nmodel = "m"\n')
    err = _error(str(path))
    assert err.message.startswith(f"{path}, key 'provider': unknown top-level key")


def test_file_without_profiles(put, tmp_path):
    path = put(tmp_path / "empty.toml", "# nothing here\n")
    assert _error(str(path)).message == f"{path}: holds no [profiles.NAME] table"


def test_profile_must_be_a_table(put, tmp_path):
    path = put(tmp_path / "x.toml", 'profiles = { p = 3 }\n')
    assert "profile 'p': must be a table" in _error(str(path)).message


def test_missing_file(tmp_path):
    path = tmp_path / "nope.toml"
    assert _error(str(path)).message == f"{path}: file not found"


def test_multi_profile_file_needs_a_name(put, tmp_path):
    path = put(tmp_path / "two.toml", '[profiles.a]\nmodel = "m"\n[profiles.b]\nmodel = "n"\n')
    err = _error(str(path))
    assert "holds 2 profiles (a, b); name one as" in err.message and "#NAME" in err.message
    err = _error(f"{path}#c")
    assert err.message == f"{path}, profile 'c': not found in this file; it defines: a, b"


def test_bad_default_profile_says_where_it_came_from(monkeypatch):
    monkeypatch.setenv("AGENTCLI_PROFILE", "ghost")
    err = _error(None)  # type: ignore[arg-type]
    assert "profile 'ghost': not found" in err.message
    assert "AGENTCLI_PROFILE" in (err.hint or "")


def test_settings_file_errors(put, monkeypatch):
    from agentcli.config.paths import settings_file

    put(settings_file(), 'default_profil = "x"\n')
    err = _error(None)  # type: ignore[arg-type]
    assert err.message == f"{settings_file()}, key 'default_profil': unknown key"
    put(settings_file(), "default_profile = 3\n")
    assert "must be a str (got int)" in _error(None).message  # type: ignore[arg-type]


_CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie", "x-api-key", "api-key", "x-goog-api-key"]


@given(name=st.sampled_from(_CREDENTIAL_HEADERS), flips=st.lists(st.booleans(), min_size=24, max_size=24),
       pad=st.sampled_from(["", " ", "\t", "  "]))
@settings(max_examples=60, deadline=None)
def test_a_credential_header_is_refused_in_any_case_and_padding(name, flips, pad):
    """Header names are case-insensitive on the wire, so every spelling of a credential header is refused."""
    from pydantic import ValidationError

    from agentcli.config.schema import Profile

    spelled = pad + "".join(c.upper() if f else c for c, f in zip(name, flips, strict=False)) + pad
    with pytest.raises(ValidationError, match="carries a credential"):
        Profile(model="m", headers={spelled: "v"})


@given(name=st.sampled_from(_CREDENTIAL_HEADERS), affix=st.sampled_from(["-hint", "s", "my-", "via-"]))
@settings(max_examples=30, deadline=None)
def test_a_header_that_only_contains_a_credential_name_is_kept(name, affix):
    from agentcli.config.schema import Profile

    other = affix + name if affix.endswith("-") else name + affix
    assert Profile(model="m", headers={other: "v"}).headers == {other: "v"}
