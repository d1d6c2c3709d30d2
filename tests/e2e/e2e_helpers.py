"""End-to-end helpers: profiles pointing at loopback servers, and running `agent` in-process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentcli.cli.main import app

KEY_ENV = "AGENTCLI_TEST_KEY"
KEY = "sk-test-canary-0123456789abcdef"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    (ws / "check.py").write_text("from calc import add\nassert add(2, 3) == 5, 'add is wrong'\nprint('all good')\n")
    (tmp_path / "secret.txt").write_text("TOP SECRET CANARY")
    return ws


def write_profile(tmp_path: Path, provider: str, url: str, model: str, **extra: Any) -> Path:
    lines = ["[profiles.e2e]", f'provider = "{provider}"', f'model = "{model}"', f'url = "{url}"']
    if provider != "ollama":
        lines.append(f'api_key_env = "{KEY_ENV}"')
    for table, values in extra.items():
        if isinstance(values, dict):
            lines.append(f"[profiles.e2e.{table}]")
            lines += [f"{k} = {json.dumps(v)}" for k, v in values.items()]
        else:
            lines.insert(4, f"{table} = {json.dumps(values)}")
    path = tmp_path / "e2e.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


def run_agent(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def openai_call(name: str, args: dict, call_id: str) -> dict:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}


def tool_messages(body: dict) -> list[dict]:
    return [m for m in body["messages"] if m["role"] == "tool"]


@pytest.fixture(autouse=True)
def _key(monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
