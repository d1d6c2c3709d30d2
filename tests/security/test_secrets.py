"""Issue 8 §5: canary keys never reach stdout, stderr, the debug log, transcripts or crash reports.

Every provider's key variable (and a custom api_key_env) holds a canary. A hostile loopback
server echoes the credential header back, in raw, base64, URL and hex forms, inside error
bodies and inside the model's answer; the workspace holds a .env file the model reads; debug
logging is on; one run ends in a forced internal error. Then every output and every file under
the user config/data/cache dirs is scanned for every canary in every encoding: 0 hits.
"""

from __future__ import annotations

import base64
import contextlib
import importlib
import json
import os
import random
import stat
import string
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sec_helpers import CANARIES, files_under, forms, openai_call, run_cli, scan, user_dirs, write_profile

from agentcli.core.redaction import MASK, StreamScrubber, mark_secret_env, redact
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


# -- issue 23 §7: any variable name, every encoding and alignment, streams, custom headers ------

_KEY_CHARS = string.ascii_letters + string.digits + "-_.~+/=!$%&*:@"
# Keys are random strings as real keys are (hypothesis would shrink to "000...", whose encodings the
# surrounding text can repeat: no leak, just a key no one issues).
keys = st.builds(lambda seed, n: "".join(random.Random(seed).choices(_KEY_CHARS, k=n)),
                 st.integers(0, 2**32), st.integers(12, 80))
fillers = st.text(alphabet=string.printable, max_size=40)


def _encodings(blob: bytes) -> dict[str, str]:
    """How a file or command output holding the key may be shown: the whole text encoded."""
    return {
        "raw": blob.decode("latin-1"),
        "base64": base64.b64encode(blob).decode(),
        "base64url": base64.urlsafe_b64encode(blob).decode(),
        "base64-wrapped": "\n".join(base64.b64encode(blob).decode()[i:i + 76] for i in range(0, 10_000, 76)),
        "url": urllib.parse.quote(blob, safe=""),
        "url-plus": urllib.parse.quote_plus(blob),
        "hex": blob.hex(),
        "HEX": blob.hex().upper(),
        "json": json.dumps(blob.decode("latin-1")),
    }


def _leaks(text: str, key: str) -> list[tuple[str, str]]:
    return scan(text, {"KEY": key})


@settings(max_examples=60, deadline=None)
@given(key=keys, before=fillers, after=fillers, shift=st.integers(0, 2))
def test_a_key_under_any_variable_name_is_scrubbed_in_every_encoding_and_alignment(key, before, after, shift):
    """`api_key_env = "LLM_GATEWAY_AUTH"`: no secret-looking name, still a secret, in any form the
    model or a tool may print it, at every base64 byte alignment (a .env line, "Bearer <key>")."""
    blob = ("x" * shift + before + key + after).encode("latin-1", "replace")
    with key_in("LLM_GATEWAY_AUTH", key):
        for name, text in _encodings(blob).items():
            shown = redact(text)
            assert not _leaks(shown.replace("\n", "") if name == "base64-wrapped" else shown, key), (name, shown)


@contextlib.contextmanager
def key_in(name: str, value: str) -> Iterator[None]:
    """A variable that a profile names as its key (marked, as loading the profile does), for one example."""
    old = os.environ.get(name)
    os.environ[name] = value
    mark_secret_env(name)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = old


def test_loading_a_profile_marks_its_key_variable_and_custom_headers(monkeypatch, tmp_path):
    from agentcli.config.schema import Profile

    key, token = "gw-" + "q9X2" * 6, "tok-" + "Zr81" * 5
    monkeypatch.setenv("ROUTER_ACCESS_ENV", key)
    assert redact(f"cat .env: ROUTER_ACCESS_ENV={key}") == f"cat .env: ROUTER_ACCESS_ENV={key}"  # not yet known
    Profile(name="gw", provider="openai", model="m", url="http://127.0.0.1:9/v1", api_key_env="ROUTER_ACCESS_ENV",
            headers={"X-Auth-Token": token, "X-Title": "my app"})
    assert redact(f"ROUTER_ACCESS_ENV={key} X-Auth-Token: {token}") == f"ROUTER_ACCESS_ENV={MASK} X-Auth-Token: {MASK}"
    assert redact("my app") == "my app"  # attribution headers are no secret


@settings(max_examples=40, deadline=None)
@given(key=keys, words=st.lists(st.sampled_from(["a", "bb", "key:", "\n", " ", "é", "x" * 50]), max_size=30),
       seed=st.integers(0, 2**32))
def test_the_stream_scrubber_never_releases_any_part_of_a_key(key, words, seed):
    """Random chunkings of a stream quoting the key in several forms: nothing of it shows, and the
    stream says what the whole text says once scrubbed."""
    raw = key.encode()
    rng = random.Random(seed)
    text = "".join(rng.choice([*words, key, base64.b64encode(raw).decode(), raw.hex(), urllib.parse.quote(key)]) +
                   rng.choice(["", " ", "\n"]) for _ in range(12))
    cuts = sorted(rng.sample(range(1, len(text)), min(len(text) - 1, rng.randint(0, 40))))
    parts = [text[i:j] for i, j in zip([0, *cuts], [*cuts, len(text)])]
    with key_in("LLM_GATEWAY_AUTH", key):
        s = StreamScrubber()
        out = [s.feed(p) for p in parts] + [s.flush()]
        assert all(not _leaks(o, key) for o in out)
        assert "".join(out) == redact(text)


def test_a_key_after_a_long_run_without_spaces_is_not_cut_in_two(monkeypatch):
    """The old scrubber released held text at 4,096 characters and cut a key there."""
    key = "GwAuth" + "k3Y9" * 10
    monkeypatch.setenv("LLM_GATEWAY_AUTH", key)
    mark_secret_env("LLM_GATEWAY_AUTH")
    for lead in (4090, 4095, 4096, 5000):
        text = "z" * lead + key + "z" * 20
        s = StreamScrubber()
        out = [s.feed(text[i:i + 7]) for i in range(0, len(text), 7)] + [s.flush()]
        assert all(key[:8] not in o and key[-8:] not in o for o in out), lead
        assert "".join(out) == redact(text)


def test_custom_auth_headers_never_show_in_profiles_show_or_the_debug_log(tmp_path, monkeypatch):
    token = "xat-" + "Pq7w" * 6
    monkeypatch.setenv("AGENTCLI_DEBUG", "1")
    monkeypatch.setenv("LLM_GATEWAY_AUTH", "gwk-" + "Lm4n" * 6)
    ws = tmp_path / "ws"
    ws.mkdir()
    with OpenAIServer() as srv:
        srv.queue(openai_body("hello"))
        profile = write_profile(tmp_path / "p.toml", "openai", srv.url, "gpt-4o", api_key_env="LLM_GATEWAY_AUTH",
                                headers={"X-Auth-Token": token})
        shown = run_cli("profiles", "show", "sec", "--profile", str(profile))
        shown_json = run_cli("profiles", "show", "sec", "--profile", str(profile), "--json")
        res = run_cli("run", "hi", "--profile", str(profile), "--workspace", str(ws))
        assert srv.last.headers.get("x-auth-token") == token  # the header was really in play
    assert res.exit_code == 0, res.output
    log = (user_dirs()[1] / "agentcli.log").read_text()
    assert "x-auth-token" in log.lower()
    for text in (shown.output, shown_json.output, res.output, log):
        assert not scan(text, {"token": token, "key": os.environ["LLM_GATEWAY_AUTH"]}), text


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
def test_a_key_under_a_plain_variable_name_never_leaks_from_a_run(tmp_path, monkeypatch, stream):
    """`api_key_env = "LLM_GATEWAY_AUTH"`: the model reads the .env file holding it and quotes it back
    in every encoding, in error bodies and in its answer; nothing shown or written holds it."""
    key = "gwA" + base64.b32encode(os.urandom(15)).decode().lower()  # fresh, not key-shaped: only the value net
    monkeypatch.setenv("LLM_GATEWAY_AUTH", key)
    monkeypatch.setenv("AGENTCLI_DEBUG", "1")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / ".env").write_text(f"LLM_GATEWAY_AUTH={key}\nOTHER=1\n")
    with OpenAIServer() as srv:
        srv.queue_error(429, _error_body(srv, 429, "authorization"), retry_after_ms="5")
        srv.queue(_oa("", [("read_file", {"path": ".env"})]))
        srv.queue(lambda req: _oa("Your key: " + _echo("authorization")(req), []))
        profile = write_profile(tmp_path / "p.toml", "openai", srv.url, "gpt-4o", api_key_env="LLM_GATEWAY_AUTH",
                                stream=stream)
        res = run_cli("run", "what is in .env?", "--profile", str(profile), "--workspace", str(ws), "--yes")
        assert res.exit_code == 0, res.output
        assert srv.chat_requests()[0].headers["authorization"] == f"Bearer {key}"  # the key was in play
        read_back = json.dumps(srv.chat_requests()[-1].body)
    assert "LLM_GATEWAY_AUTH=[REDACTED]" in read_back and key not in read_back  # tool output is scrubbed too
    outputs = {"stdout": res.stdout, "stderr": res.stderr}
    outputs.update({str(p): p.read_text("utf-8", "replace") for p in files_under(*user_dirs())})
    hits = {where: scan(text, {"LLM_GATEWAY_AUTH": key}) for where, text in outputs.items()}
    assert "Your key" in res.stdout
    assert not {k: v for k, v in hits.items() if v}


def test_the_known_secrets_are_worked_out_once_per_environment(monkeypatch):
    """Transcripts call redact on every record: the environment is not re-read and re-sorted each time."""
    r = importlib.import_module("agentcli.core.redaction")  # the package exports a function of the same name

    redact("warm up")
    before = r._KNOWN.builds
    for i in range(200):
        redact(f"record {i}")
    assert r._KNOWN.builds == before
    monkeypatch.setenv("ANOTHER_SERVICE_TOKEN", "tok-" + "Hj5k" * 4)
    assert redact("tok-" + "Hj5k" * 4) == MASK and r._KNOWN.builds == before + 1
    mark_secret_env("PLAINLY_NAMED_VAR_FOR_COUNT")
    redact("x")
    redact("y")
    assert r._KNOWN.builds == before + 2
    for i in range(20):  # other variables change between writes (a tool's working folder...): no rebuild
        monkeypatch.setenv("PLAIN_SETTING_FOR_COUNT", f"/some/folder/{i}")
        redact(f"record {i}")
    assert r._KNOWN.builds == before + 2
    monkeypatch.setenv("ANOTHER_SERVICE_TOKEN", "tok-" + "Zq7w" * 4)  # a secret's value changes: one rebuild
    assert redact("tok-" + "Zq7w" * 4) == MASK and redact("tok-" + "Hj5k" * 4) != MASK
    assert r._KNOWN.builds == before + 3
