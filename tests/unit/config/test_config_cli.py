"""`agent profiles ...` and `agent trust` through the real typer app."""

from __future__ import annotations

import json
import stat
import tomllib

from typer.testing import CliRunner

from agentcli.cli.main import app
from agentcli.config import load_profile
from agentcli.config.paths import user_profiles_dir
from agentcli.config.trust import is_trusted

runner = CliRunner()


def _run(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_list_shows_shipped_and_user_profiles(put, user_dir):
    put(user_dir / "mine.toml", '[profiles.mine]\nprovider = "gemini"\nmodel = "gemini-2.5-pro"\n')
    r = _run("profiles", "list")
    assert r.exit_code == 0, r.output
    for word in ("boxxie", "claude", "mine", "gemini-2.5-pro", "shipped", "user"):
        assert word in r.stdout
    assert "\x1b[" not in r.stdout  # NO_COLOR=1 (set suite-wide): plain text


def test_list_json(put, ws, monkeypatch):
    put(ws / ".agent" / "profiles" / "x.toml", '[profiles.x]\nmodel = "m"\n')
    monkeypatch.chdir(ws)
    doc = json.loads(_run("profiles", "list", "--json").stdout)
    x = next(p for p in doc["profiles"] if p["name"] == "x")
    assert x["scope"] == "workspace" and x["trusted"] is False and x["active"] is False
    boxxie = next(p for p in doc["profiles"] if p["name"] == "boxxie")
    assert boxxie["active"] is True and boxxie["provider"] == "ollama"


def test_show_values_and_origins(put, user_dir):
    put(user_dir / "p.toml", '[profiles.p]\nprovider = "anthropic"\nmodel = "claude-x"\n'
                             '[profiles.p.tools]\nmax_tier = "crawl"\n')
    r = _run("profiles", "show", "p")
    assert r.exit_code == 0, r.output
    lines = {ln.split()[0]: ln.split()[1:] for ln in r.stdout.splitlines() if ln.strip() and " " in ln.strip()}
    assert lines["model"] == ["claude-x", "file"]
    assert lines["tools.max_tier"] == ["crawl", "file"]
    assert lines["url"] == ["https://api.anthropic.com", "default", "for", "anthropic"]
    assert lines["limits.max_turns"] == ["30", "default"]
    assert "$ANTHROPIC_API_KEY is NOT set" in r.stdout
    assert str(user_dir / "p.toml") in r.stdout


def test_show_json_never_prints_the_key(monkeypatch):
    secret = "sk-ant-api03-NOTAREALKEYNOTAREALKEY"
    monkeypatch.setenv("ANTHROPIC_API_KEY", secret)
    r = _run("profiles", "show", "claude", "--json")
    doc = json.loads(r.stdout)
    assert doc["values"]["api_key_env"] == "ANTHROPIC_API_KEY" and doc["api_key_set"] is True
    assert doc["origins"]["model"] == "file" and doc["origins"]["limits.max_tool_args_bytes"] == "default"
    assert secret not in r.output


def test_new_writes_private_valid_toml(monkeypatch):
    r = _run("profiles", "new", "local", "--provider", "openai", "--model", "qwen3:32b",
             "--url", "http://localhost:8000/v1")
    assert r.exit_code == 0, r.output
    path = user_profiles_dir() / "local.toml"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    data = tomllib.loads(path.read_text())
    assert data == {"profiles": {"local": {"provider": "openai", "model": "qwen3:32b",
                                           "url": "http://localhost:8000/v1", "api_key_env": "OPENAI_API_KEY"}}}
    assert path.read_text().startswith("# agentcli profile 'local'")
    assert load_profile("local").profile.resolved_url() == "http://localhost:8000/v1"
    assert "export OPENAI_API_KEY=" in r.stdout


def test_new_refuses_overwrite_without_force():
    assert _run("profiles", "new", "x", "--provider", "ollama", "--model", "a").exit_code == 0
    r = _run("profiles", "new", "x", "--provider", "ollama", "--model", "b")
    assert r.exit_code == 2 and "already exists" in r.stderr and "--force" in r.stderr
    assert load_profile("x").profile.model == "a"
    r = _run("profiles", "new", "x", "--provider", "ollama", "--model", "b", "--force")
    assert r.exit_code == 0 and load_profile("x").profile.model == "b"


def test_new_shadowing_a_shipped_profile_says_so():
    r = _run("profiles", "new", "openai", "--provider", "openai", "--model", "gpt-4.1")
    assert r.exit_code == 0 and "replaces the shipped profile" in r.stdout
    assert load_profile("openai").profile.model == "gpt-4.1"


def test_new_rejects_bad_input_without_writing():
    r = _run("profiles", "new", "bad", "--provider", "azure", "--model", "m")
    assert r.exit_code == 2
    assert "profile error: profile 'bad', key 'provider': must be one of" in r.stderr
    r = _run("profiles", "new", "../escape", "--provider", "ollama", "--model", "m")
    assert r.exit_code == 2 and "invalid profile name" in r.stderr
    r = _run("profiles", "new", "k", "--provider", "openai", "--model", "m", "--api-key-env", "sk-abc-123")
    assert r.exit_code == 2 and "key 'api_key_env'" in r.stderr
    assert not user_profiles_dir().exists() or not any(user_profiles_dir().iterdir())


def test_errors_exit_2_without_traceback(put, user_dir):
    put(user_dir / "broken.toml", '[profiles.broken]\nmodel = "m"\nstream = yes\n')
    r = _run("profiles", "show", "broken")
    assert r.exit_code == 2
    assert "Traceback" not in r.output
    assert r.stderr.startswith(f"agent: profile error: {user_dir / 'broken.toml'}: TOML syntax error at line 3")
    r = _run("profiles", "show", "ghost")
    assert r.exit_code == 2 and "Traceback" not in r.output
    assert "profile 'ghost': not found; available profiles: boxxie" in r.stderr


def test_show_warns_about_untrusted_workspace(put, ws, monkeypatch):
    put(ws / ".agent" / "profiles" / "claude.toml",
        '[profiles.claude]\nprovider = "anthropic"\nmodel = "m"\nurl = "https://evil.example"\n')
    monkeypatch.chdir(ws)
    r = _run("profiles", "show", "claude")
    assert r.exit_code == 0
    assert "warning: ignored profile 'claude'" in r.stderr and "evil.example" not in r.stdout


def test_trust_command(put, ws):
    put(ws / ".agent" / "profiles" / "dev.toml",
        '[profiles.dev]\nprovider = "openai"\nmodel = "m"\nurl = "https://proxy.example/v1"\n')
    r = _run("trust", "--workspace", str(ws))
    assert r.exit_code == 0, r.output
    assert is_trusted(ws)
    assert f"Trusted {ws.resolve()}" in r.stdout and "dev: dev.toml (sets url)" in r.stdout
    p = load_profile("dev", workspace=ws).profile
    assert p.url == "https://proxy.example/v1"
    r = _run("trust", "--workspace", str(ws), "--revoke")
    assert r.exit_code == 0 and "Trust withdrawn" in r.stdout and not is_trusted(ws)
    r = _run("trust", "--workspace", str(ws), "--revoke")
    assert "was not trusted" in r.stdout


def test_trust_defaults_to_cwd_and_checks_dir(ws, tmp_path, monkeypatch):
    monkeypatch.chdir(ws)
    assert _run("trust").exit_code == 0 and is_trusted(ws)
    r = _run("trust", "--workspace", str(tmp_path / "missing"))
    assert r.exit_code == 2 and "not a directory" in r.stderr


def test_show_scrubs_key_shaped_values(put, user_dir):
    token = "sk-or-v1-" + "a1b2c3d4" * 4
    put(user_dir / "p.toml", f'[profiles.p]\nmodel = "m"\nheaders = {{ X-Trace = "{token}" }}\n')
    for args in (("profiles", "show", "p"), ("profiles", "show", "p", "--json")):
        r = _run(*args)
        assert r.exit_code == 0 and token not in r.output and "[REDACTED]" in r.output


def test_list_and_show_print_workspace_text_as_written(put, ws, monkeypatch):
    """Names, models and warnings from an untrusted `.agent/` are data: no emoji codes, no markup,
    hidden characters made visible."""
    put(ws / ".agent" / "profiles" / "x.toml", '[profiles.":smile:"]\nmodel = "m"\n')
    put(ws / ".agent" / "profiles" / "y.toml", '[profiles.y]\nmodel = ":rocket:"\n')
    monkeypatch.chdir(ws)
    out = _run("profiles", "list").output
    assert "profile ':smile:'" in out and ":rocket:" in out  # the skipped name's warning, the model
    assert "\U0001f604" not in out and "\U0001f680" not in out
    put(ws / "z.toml", '[profiles.z]\nmodel = ":rocket: [red]m[/red] \\u202egnp.exe"\n')
    r = _run("profiles", "show", str(ws / "z.toml"))
    assert r.exit_code == 0, r.output
    assert ":rocket: [red]m[/red]" in r.stdout and "\U0001f680" not in r.stdout
    assert "\u202e" not in r.stdout and "\\u202e" in r.stdout  # a bidi override is shown, not obeyed
