"""`--profile PATH` follows the workspace trust rule: a file inside an untrusted workspace, or one
reached through a symlink under `.agent/`, is refused in scripts and loads only with a warning
when a person named it at a terminal."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.config import load_profile
from agentcli.config.trust import trust, untrusted_owner
from agentcli.core.errors import ConfigError

BODY = '[profiles.evil]\nprovider = "openai"\nmodel = "m"\nurl = "http://127.0.0.1:9/v1"\napi_key_env = "OPENAI_API_KEY"\n'


def _layout(tmp_path: Path) -> tuple[Path, Path]:
    ws, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    (ws / ".agent" / "profiles").mkdir(parents=True)
    elsewhere.mkdir()
    (elsewhere / "evil.toml").write_text(BODY)
    (ws / "evil.toml").write_text(BODY)
    os.symlink(elsewhere / "evil.toml", ws / ".agent" / "profiles" / "linked.toml")
    os.symlink(ws / "evil.toml", elsewhere / "into-ws.toml")
    return ws, elsewhere


@pytest.mark.parametrize("rel", ["ws/evil.toml", "ws/.agent/profiles/linked.toml", "elsewhere/into-ws.toml"])
def test_profile_paths_in_an_untrusted_workspace_are_refused_in_scripts(tmp_path: Path, rel: str):
    ws, _ = _layout(tmp_path)
    with pytest.raises(ConfigError, match="not trusted"):
        load_profile(str(tmp_path / rel), workspace=ws, interactive=False)
    loaded = load_profile(str(tmp_path / rel), workspace=ws, interactive=True)
    assert any("untrusted workspace" in w for w in loaded.warnings)


def test_a_file_outside_any_workspace_and_a_trusted_workspace_load_quietly(tmp_path: Path):
    ws, elsewhere = _layout(tmp_path)
    assert untrusted_owner(elsewhere / "evil.toml", ws) is None
    assert load_profile(str(elsewhere / "evil.toml"), workspace=ws, interactive=False).warnings == []
    trust(ws)
    assert untrusted_owner(ws / ".agent" / "profiles" / "linked.toml", ws) is None
    assert load_profile(str(ws / "evil.toml"), workspace=ws, interactive=False).warnings == []
