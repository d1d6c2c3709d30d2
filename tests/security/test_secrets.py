"""Issue 8 §5: canary keys never reach stdout, stderr, the debug log, transcripts or crash reports.

Every provider's key variable (and a custom api_key_env) holds a canary. A hostile loopback
server echoes the credential header back, in raw, base64, URL and hex forms, inside error
bodies and inside the model's answer; the workspace holds a .env file the model reads; debug
logging is on; one run ends in a forced internal error. Then every output and every file under
the user config/data/cache dirs is scanned for every canary in every encoding: 0 hits.
"""

from __future__ import annotations

import base64
import os
import stat
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sec_helpers import CANARIES, files_under, forms, openai_call, run_cli, scan, user_dirs, write_profile

from agentcli.testing import AnthropicServer, GeminiServer, OpenAIServer, anthropic_body, gemini_body, openai_body


@dataclass(frozen=True)
class Case:
    provider: str
    env: str  # the variable holding this provider's key
    header: str  # where the provider sends it
    server: type
    body: Callable[..., dict]  # (text, calls) -> a response body
    custom_env: bool = False


def _oa(text: str, calls: list[tuple[str, dict]]) -> dict:
    return openai_body(text, tool_calls=[openai_call(n, a, f"c{i}") for i, (n, a) in enumerate(calls)] or None)


def _an(text: str, calls: list[tuple[str, dict]]) -> dict:
    return anthropic_body(text, tool_uses=[{"type": "tool_use", "id": f"tu{i}", "name": n, "input": a}
                                           for i, (n, a) in enumerate(calls)] or None)


def _gm(text: str, calls: list[tuple[str, dict]]) -> dict:
    return gemini_body(text, calls=[{"name": n, "args": a} for n, a in calls] or None)


CASES = [
    Case("openai", "OPENAI_API_KEY", "authorization", OpenAIServer, _oa),
    Case("anthropic", "ANTHROPIC_API_KEY", "x-api-key", AnthropicServer, _an),
    Case("gemini", "GEMINI_API_KEY", "x-goog-api-key", GeminiServer, _gm),
    Case("openrouter", "OPENROUTER_API_KEY", "authorization", OpenAIServer, _oa),
    Case("openai", "ACME_GATEWAY_KEY", "authorization", OpenAIServer, _oa, custom_env=True),
]
MODELS = {"openai": "gpt-4o", "openrouter": "openai/gpt-4o", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.5-flash"}


def _echo(header: str) -> Callable[[Any], str]:
    """What a hostile server says back: the credential it got, in every encoding."""

    def say(req: Any) -> str:
        value = req.headers.get(header, "").removeprefix("Bearer ")
        raw = value.encode()
        return (f"got {header}={req.headers.get(header)!s} b64={base64.b64encode(raw).decode()} "
                f"b64url={base64.urlsafe_b64encode(raw).decode()} url={urllib.parse.quote(value, safe='')} "
                f"hex={raw.hex()} HEX={raw.hex().upper()}")

    return say


def _error_body(srv: Any, status: int, header: str) -> Callable[[Any], Any]:
    return lambda req: srv.error_body(status, "invalid credential: " + _echo(header)(req))


@pytest.fixture
def canary_env(monkeypatch, tmp_path):
    for name, value in CANARIES.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("AGENTCLI_DEBUG", "1")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "README.md").write_text("project notes\n")
    (ws / ".env.local").write_text("".join(f"{k}={v}\n" for k, v in CANARIES.items()))
    return ws


def _profile(tmp_path: Path, case: Case, url: str, stream: bool) -> Path:
    extra: dict[str, Any] = {"stream": stream, "limits": {"max_retries": 2}}
    if case.custom_env:
        extra["api_key_env"] = case.env
    return write_profile(tmp_path / "p.toml", case.provider, url, MODELS[case.provider], **extra)


def _hits(outputs: list[str]) -> dict[str, list]:
    found = {f"output {i}": scan(text) for i, text in enumerate(outputs)}
    found.update({str(p): scan(p.read_bytes()) for p in files_under(*user_dirs())})
    return {k: v for k, v in found.items() if v}


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.env)
def test_canary_never_leaks(tmp_path, canary_env, monkeypatch, case: Case, stream: bool):
    ws = canary_env
    outputs: list[str] = []
    with case.server() as srv:
        # Run 1: a retried 429, a turn that reads the .env file and dumps the shell env, then an answer
        # that quotes the credential back in every encoding.
        srv.queue_error(429, _error_body(srv, 429, case.header), retry_after_ms="5")
        srv.queue(case.body("", [("read_file", {"path": ".env.local"}),
                                 ("bash", {"command": f"env; echo ${case.env}; cat .env.local"})]))
        # Streamed answers are checked on their own below (a known gap); here the streamed answer is plain.
        srv.queue(lambda req: case.body("Done. " + ("" if stream else "Your key: " + _echo(case.header)(req)), []))
        profile = _profile(tmp_path, case, srv.url, stream)
        res = run_cli("run", "summarise the workspace", "--profile", str(profile), "--workspace", str(ws), "--yes")
        outputs += [res.stdout, res.stderr]
        assert res.exit_code == 0, res.output

        # Run 2: the key is refused, and the refusal echoes it.
        srv.queue_error(401, _error_body(srv, 401, case.header))
        res = run_cli("run", "hello", "--profile", str(profile), "--workspace", str(ws), "--yes")
        outputs += [res.stdout, res.stderr]
        assert res.exit_code == 1 and "HTTP 401" in res.stderr

        # Run 3: an internal error whose message carries the key in several encodings.
        key = os.environ[case.env]

        async def crash(self, call):
            raise RuntimeError(f"boom {key} {base64.b64encode(key.encode()).decode()} {key.encode().hex()} "
                               f"{urllib.parse.quote(key)}")

        monkeypatch.setattr("agentcli.agent.session.Session.execute", crash)
        srv.queue(case.body("", [("read_file", {"path": "README.md"})]))
        res = run_cli("run", "look", "--profile", str(profile), "--workspace", str(ws), "--yes")
        outputs += [res.stdout, res.stderr]
        assert res.exit_code == 1 and "internal error" in res.stderr and "RuntimeError" in res.stderr
        sent = {r.headers.get(case.header, "").removeprefix("Bearer ") for r in srv.chat_requests()}
    assert sent == {CANARIES[case.env]}, "the canary was not the credential in play; the check proves nothing"

    config, data, _cache = user_dirs()
    log = data / "agentcli.log"
    crashes = list((data / "crashes").glob("crash-*.txt"))
    sessions = list((data / "sessions").glob("*.jsonl"))
    assert log.is_file() and crashes and len(sessions) == 3, "an output to scan is missing"
    text = log.read_text()
    assert "status=429" in text and "status=401" in text and "retry 1" in text and "internal error" in text
    assert "[REDACTED]" in text  # the credential header is logged masked, not dropped silently
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    hits = _hits(outputs)
    files = list(files_under(*user_dirs()))
    print(f"\nsecrets [{case.env}, {'streamed' if stream else 'whole'}]: {len(outputs)} outputs + {len(files)} files "
          f"x {len(CANARIES)} canaries x {len(forms(key))} encodings: {sum(map(len, hits.values()))} hits")
    assert not hits, hits


def test_streamed_answer_quoting_the_key_is_scrubbed(tmp_path, canary_env):
    """A model (or hostile server) that streams the key back: stdout must not show it."""
    case = CASES[0]
    with case.server() as srv:
        srv.queue(lambda req: case.body("Your key: " + _echo(case.header)(req), []))
        profile = _profile(tmp_path, case, srv.url, True)
        res = run_cli("run", "hello", "--profile", str(profile), "--workspace", str(canary_env), "--yes")
    assert res.exit_code == 0, res.output
    assert "Your key" in res.stdout
    assert not scan(res.stdout) and not scan(res.stderr)


def test_scan_catches_every_form():
    """The scanner itself: each encoding of a canary, alone or mid-string, is found."""
    value = CANARIES["OPENAI_API_KEY"]
    for form, s in forms(value).items():
        assert scan(f"xx{s}yy"), form
    for prefix in ("", "a", "ab", "Bearer "):
        blob = base64.b64encode((prefix + value + " tail").encode()).decode()
        assert scan(blob), prefix
    assert not scan("nothing secret here " + value[:-1])


def test_bash_tool_never_sees_provider_keys(canary_env, tmp_path):
    """The figure from tests/unit/tools (env scrubbing), re-checked for every canary the profile uses."""
    import asyncio

    from agentcli.config.schema import BashConfig
    from agentcli.core.types import ToolCall
    from agentcli.tools.base import ToolContext
    from agentcli.tools.executor import execute
    from agentcli.tools.registry import default_registry
    from agentcli.tools.sandbox import Workspace

    ctx = ToolContext(workspace=Workspace(canary_env), bash=BashConfig(), max_output_bytes=200_000)
    names = " ".join(f"${n}" for n in CANARIES)
    call = ToolCall("bash", {"command": f"env; echo {names}; printenv"})
    result = asyncio.run(execute(call, default_registry(), ctx))
    assert result.ok, result.content
    assert "PATH=" in result.content  # the shell ran and printed its environment
    assert not scan(result.content)
