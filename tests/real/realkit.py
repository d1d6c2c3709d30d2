"""Helpers for the real-server tests: profiles and the result of one `agent` run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

MODEL_ALIAS = "tiny"


@dataclass
class AgentResult:
    code: int
    stdout: str
    stderr: str

    def events(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.stdout.splitlines() if line.startswith("{")]

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [e for e in self.events() if e.get("type") == kind or e.get("event") == kind]


def write_profile(folder: Path, url: str, *, provider: str = "openai", model: str = MODEL_ALIAS, stream: bool = True,
                  native: bool = True, tool_format: str | None = None, key_env: str = "AGENTCLI_REAL_KEY",
                  **limits: Any) -> Path:
    """A profile `real` for one server; the key (LiteLLM's master key) is read from `key_env`."""
    lines = ["[profiles.real]", f'provider = "{provider}"', f'model = "{model}"', f'url = "{url}"',
             f'api_key_env = "{key_env}"',
             f"stream = {str(stream).lower()}", "[profiles.real.capabilities]",
             f"native_tools = {str(native).lower()}", "[profiles.real.tools]", 'max_tier = "walk"']
    if tool_format:
        lines.append(f'tool_format = "{tool_format}"')
    lines.append("[profiles.real.limits]")
    lines += [f"{k} = {json.dumps(v)}" for k, v in {"max_retries": 2, "max_turns": 8, **limits}.items()]
    path = folder / "real.toml"
    path.write_text("\n".join(lines) + "\n")
    return path
