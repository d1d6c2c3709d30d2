"""Real third-party servers on 127.0.0.1 for `make test-real`.

Everything here is skipped unless AGENTCLI_REAL=1 (the Makefile target sets it), so `make test`
stays fast and needs nothing beyond the test extra.

Reusable pieces:
- `free_port()` and the `spawn_server` fixture: start a command on a free port, wait until a URL
  answers, stop it at the end of the session (every process also has a hard lifetime);
- `tiny_model`: the generated GGUF (tests/real/tinymodel.py), built once into the pytest cache;
- `llama_server`: llama-cpp-python's OpenAI-compatible server on that model;
- `scripted_proxy`: a per-test ScriptedProxy in front of it (tests/real/proxy.py);
- `litellm_server`: the LiteLLM proxy with mock models and a route to the llama.cpp server;
- `agent`: run the real `agent` command in a subprocess against a profile.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # realkit, proxy, tinymodel

from realkit import MODEL_ALIAS, AgentResult

HERE = Path(__file__).parent
SERVER_LIFETIME_S = 900  # a server left behind stops by itself
START_TIMEOUT_S = 120
AGENT_TIMEOUT_S = 180


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if os.environ.get("AGENTCLI_REAL") == "1":
        return
    skip = pytest.mark.skip(reason="real-server tier: run `make test-real`")
    for item in items:
        if HERE in Path(str(item.fspath)).parents:
            item.add_marker(skip)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class ServerProcess:
    """A started server: its base URL, the process and where its output went."""

    url: str
    port: int
    proc: subprocess.Popen
    log: Path
    version: str = ""  # the server's version, where a test or fixture needs to say it
    which: str = ""  # which of several builds of one server (LiteLLM: pinned, newest)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)


def start_server(
    argv: Callable[[int], list[str]], ready_path: str, log: Path, *, env: dict[str, str] | None = None,
    cwd: Path | None = None, lifetime: float = SERVER_LIFETIME_S,
) -> ServerProcess:
    """Start `argv(port)` on a free port and wait until GET ready_path answers below 500."""
    port = free_port()
    out = log.open("wb")
    proc = subprocess.Popen(
        argv(port), stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})},
        cwd=cwd, start_new_session=True,
    )
    server = ServerProcess(f"http://127.0.0.1:{port}", port, proc, log)
    watchdog = threading.Timer(lifetime, server.stop)
    watchdog.daemon = True
    watchdog.start()
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{argv(port)[0]} exited with {proc.returncode}:\n{server.output()}")
        try:
            if httpx.get(server.url + ready_path, timeout=2).status_code < 500:
                return server
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    server.stop()
    raise RuntimeError(f"server did not start within {START_TIMEOUT_S} s:\n{server.output()}")


@pytest.fixture(scope="session")
def spawn_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Callable[..., ServerProcess]]:
    """A factory: spawn_server(argv_for_port, ready_path, name=..., env=...) -> ServerProcess."""
    started: list[ServerProcess] = []
    logs = tmp_path_factory.mktemp("server-logs")

    def spawn(argv: Callable[[int], list[str]], ready_path: str, *, name: str = "server", **kw: Any) -> ServerProcess:
        server = start_server(argv, ready_path, logs / f"{name}-{len(started)}.log", **kw)
        started.append(server)
        return server

    yield spawn
    for server in started:
        server.stop()


@pytest.fixture(scope="session")
def tiny_model() -> Path:
    """Built once per generator version into the venv's cache folder (AGENTCLI_REAL_CACHE overrides)."""
    import tinymodel

    return tinymodel.cached(Path(os.environ.get("AGENTCLI_REAL_CACHE") or Path(sys.prefix) / "real-cache"))


def llama_argv(model: Path, alias: str, port: int, *extra: str, n_ctx: int | None = 4096) -> list[str]:
    """llama-cpp-python's server on `model`; n_ctx None keeps the server's default (2048)."""
    ctx = ["--n_ctx", str(n_ctx)] if n_ctx is not None else []
    return [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", alias, "--host",
            "127.0.0.1", "--port", str(port), *ctx, "--n_threads", "1", "--verbose", "false", *extra]


@pytest.fixture(scope="session")
def llama_server(spawn_server: Callable[..., ServerProcess], tiny_model: Path) -> ServerProcess:
    return spawn_server(lambda port: llama_argv(tiny_model, MODEL_ALIAS, port), "/v1/models", name="llama")


@pytest.fixture(scope="session")
def llama_default_ctx(spawn_server: Callable[..., ServerProcess], tiny_model: Path) -> ServerProcess:
    """The same model at the server's default n_ctx (2048), reached without any proxy."""
    return spawn_server(lambda port: llama_argv(tiny_model, MODEL_ALIAS, port, n_ctx=None), "/v1/models",
                        name="llama-default-ctx")


@pytest.fixture(scope="session")
def llama_server_fc(spawn_server: Callable[..., ServerProcess], tiny_model: Path) -> ServerProcess:
    """The same model with llama-cpp-python's own `chatml-function-calling` chat format."""
    return spawn_server(
        lambda port: [sys.executable, "-m", "llama_cpp.server", "--model", str(tiny_model), "--model_alias",
                      MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "4096",
                      "--n_threads", "1", "--verbose", "false", "--chat_format", "chatml-function-calling"],
        "/v1/models", name="llama-fc",
    )


@pytest.fixture
def scripted_proxy(llama_server: ServerProcess) -> Iterator[Any]:
    from proxy import ScriptedProxy

    proxy = ScriptedProxy(llama_server.url).start()
    yield proxy
    proxy.stop()


# The pinned LiteLLM and the newest one that installs, each in its own venv inside .venv (their
# pins clash with agentcli's and with each other). AGENTCLI_LITELLM / AGENTCLI_LITELLM_NEW override.
LITELLM_VENVS = {"pinned": ("litellm", "AGENTCLI_LITELLM"), "newest": ("litellm-new", "AGENTCLI_LITELLM_NEW")}
MASTER_KEY = "sk-real-test"  # the proxy's master key; the agent fixture's AGENTCLI_REAL_KEY holds it
# Over the 1,000 bytes from which the newer proxies gzip a whole (not streamed) reply.
LONG_ANSWER = " ".join(f"The notes say hello ({i})." for i in range(200))


def litellm_bin(which: str = "pinned") -> Path:
    folder, variable = LITELLM_VENVS[which]
    return Path(os.environ.get(variable) or Path(sys.prefix) / folder / "bin" / "litellm")


def litellm_version(which: str) -> str:
    """The version the proxy's venv holds (its own `python -m pip` is not needed: read the metadata)."""
    exe = litellm_bin(which).with_name("python")
    out = subprocess.run([str(exe), "-c", "import importlib.metadata as m; print(m.version('litellm'))"],
                         capture_output=True, text=True, check=False, timeout=60)
    return out.stdout.strip() or "unknown"


@pytest.fixture(scope="session")
def litellm_upstream(llama_server: ServerProcess) -> Iterator[Any]:
    """The scripted proxy LiteLLM's `tiny` route goes through (tests set its script)."""
    from proxy import ScriptedProxy

    proxy = ScriptedProxy(llama_server.url).start()
    yield proxy
    proxy.stop()


@pytest.fixture
def litellm_route(litellm_upstream: Any) -> Any:
    litellm_upstream.script = []
    litellm_upstream.exchanges.clear()
    return litellm_upstream


def litellm_config(upstream_url: str) -> dict[str, Any]:
    """Mock models for errors and answers, `tiny` to the llama.cpp server through the scripted proxy."""
    return {
        "model_list": [
            {"model_name": "mock-answer", "litellm_params": {"model": "openai/mock", "api_key": "x",
                                                              "mock_response": "The notes say hello."}},
            {"model_name": "mock-long", "litellm_params": {"model": "openai/mock", "api_key": "x",
                                                            "mock_response": LONG_ANSWER}},
            {"model_name": "mock-429", "litellm_params": {"model": "openai/mock", "api_key": "x",
                                                           "mock_response": "litellm.RateLimitError"}},
            {"model_name": "mock-500", "litellm_params": {"model": "openai/mock", "api_key": "x",
                                                           "mock_response": "litellm.InternalServerError"}},
            {"model_name": "tiny", "litellm_params": {"model": f"openai/{MODEL_ALIAS}", "api_key": "x",
                                                      "api_base": f"{upstream_url}/v1"}},
        ],
        # 1.106+ sends openai/* models behind /v1/messages to the Responses API (which llama.cpp
        # does not serve) unless this is set; older versions ignore it.
        "litellm_settings": {"num_retries": 0, "drop_params": True,
                             "use_chat_completions_url_for_anthropic_messages": True},
        # A request without a key gets a real 401 ("No api key passed in"); without a database a wrong
        # key is a 400 "No connected db" instead.
        "general_settings": {"master_key": MASTER_KEY},
    }


@pytest.fixture(scope="session", params=list(LITELLM_VENVS))
def litellm_server(request: pytest.FixtureRequest, litellm_upstream: Any,
                   tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The LiteLLM proxy, once per version (pinned, newest); stopped when the tests of that version end."""
    which = request.param
    folder = tmp_path_factory.mktemp(f"litellm-{which}")
    config = folder / "config.yaml"
    config.write_text(json.dumps(litellm_config(litellm_upstream.url)))  # YAML is a superset of JSON
    server = start_server(
        lambda port: [str(litellm_bin(which)), "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        "/health/liveliness", folder / "litellm.log", cwd=folder,
        env={"LITELLM_LOG": "ERROR", "NO_DOCS": "True", "DISABLE_ADMIN_UI": "True"},
    )
    server.version, server.which = litellm_version(which), which
    yield server
    server.stop()


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("hello from the notes file\n")
    (ws / "main.py").write_text("print('hi')\n")
    return ws


@pytest.fixture
def agent(tmp_path: Path) -> Callable[..., AgentResult]:
    """agent(*args) -> AgentResult: the real `agent` command in a subprocess, with private user dirs."""
    home = tmp_path / "home"
    env = {**os.environ, "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CACHE_HOME": str(home / "cache"), "NO_COLOR": "1", "AGENTCLI_REAL_KEY": MASTER_KEY,
           "COLUMNS": "200"}
    env.pop("AGENTCLI_PROFILE", None)
    exe = Path(sys.executable).with_name("agent")

    def run(*args: str, stdin: str = "") -> AgentResult:
        proc = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, input=stdin, check=False,
                              timeout=AGENT_TIMEOUT_S)
        return AgentResult(proc.returncode, proc.stdout, proc.stderr)

    return run
