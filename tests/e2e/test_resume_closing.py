"""Resuming a run that was stopped after its answer was saved, before it was closed: the session is
closed with that answer and the model is asked nothing (a killed run at its very end)."""

from __future__ import annotations

import json

import pytest
from e2e_helpers import run_agent

from agentcli.testing import OpenAIServer, openai_body


@pytest.fixture
def home(tmp_path, monkeypatch):
    h = tmp_path / "home"
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(var, str(h / sub))
    return h


def _profile(tmp_path, url: str):
    path = tmp_path / "p.toml"
    path.write_text(f'[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "{url}"\napi_key_env = ""\n'
                    "[profiles.p.limits]\nmax_retries = 0\n")
    return path


def test_a_run_killed_after_its_answer_is_closed_on_resume_without_a_model_call(tmp_path, home):
    ws = tmp_path / "ws"
    ws.mkdir()
    with OpenAIServer() as srv:
        srv.queue(openai_body("The answer is 42."))
        profile = _profile(tmp_path, srv.url)
        assert run_agent("run", "what is it?", "--profile", str(profile), "-w", str(ws), "-q").exit_code == 0
        [transcript] = (home / "data" / "agentcli" / "sessions").glob("*.jsonl")
        lines = transcript.read_text().splitlines()
        assert json.loads(lines[-1])["type"] == "end"
        transcript.write_text("\n".join(lines[:-1]) + "\n")  # as if killed before the end record

        result = run_agent("run", "--resume", transcript.stem, "--profile", str(profile), "-w", str(ws), "-q")
        assert result.exit_code == 0, result.output
        assert "The answer is 42." in result.stdout
        assert len(srv.chat_requests()) == 1  # the model was asked once, by the first run only
        end = json.loads(transcript.read_text().splitlines()[-1])
        assert end["type"] == "end" and end["stop"] == "answered" and end["answer"] == "The answer is 42."

        again = run_agent("run", "--resume", transcript.stem, "--profile", str(profile), "-w", str(ws), "-q")
        assert again.exit_code == 2 and "nothing to do" in again.output  # now closed: nothing left
