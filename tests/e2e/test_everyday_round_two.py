"""Everyday use, round two, driven through the real `agent` program as a user runs it (a child
process with its own stdin, stdout and exit code; CliRunner where no terminal or pipe is involved):
piped text with a goal, `-c` with nothing new, whole header lines in a log, `mcp add --enable` and
`mcp remove`, a listing whose reader leaves, a missing key, `--json` errors, profile completion,
the quick `agent eval`, learned facts of scripted runs, a missing Ollama model, tool summaries,
and SIGTERM / SIGHUP with an MCP server running.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from e2e_helpers import run_agent

from agentcli.testing import OllamaServer, OpenAIServer, openai_body

FIXTURE_SERVER = Path(__file__).resolve().parents[1] / "fixtures" / "mcp" / "fixture_server.py"
BOUND_S = 60  # a bound on waiting for a child process, never an assertion about speed


@pytest.fixture
def home(tmp_path, monkeypatch):
    """Private config, data and cache dirs (for this process and the children it starts)."""
    h = tmp_path / "home"
    for var, sub in (("XDG_CONFIG_HOME", "config"), ("XDG_DATA_HOME", "data"), ("XDG_CACHE_HOME", "cache")):
        monkeypatch.setenv(var, str(h / sub))
    monkeypatch.setenv("HOME", str(h))
    (h / "config" / "agentcli" / "profiles").mkdir(parents=True)
    return h


def _profile(home: Path, name: str, body: str) -> None:
    (home / "config" / "agentcli" / "profiles" / f"{name}.toml").write_text(f"[profiles.{name}]\n{body}")


def _openai(home: Path, url: str, name: str = "p") -> None:
    _profile(home, name, f'provider = "openai"\nmodel = "gpt-4o"\nurl = "{url}"\napi_key_env = "E2E_KEY"\n'
                         "stream = false\n")


def agent(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "E2E_KEY": "sk-test-0123456789abcdef"}
    return subprocess.run([sys.executable, "-m", "agentcli", *args], cwd=cwd, env=env, capture_output=True,
                          input=stdin if stdin is not None else b"", timeout=BOUND_S * 2, check=False)


def _users(server: OpenAIServer, n: int = -1) -> list[str]:
    return [m["content"] for m in server.requests[n].body["messages"] if m["role"] == "user"]


# -- 3: piped text goes with the goal -------------------------------------------------------------

def test_piped_text_follows_the_goal_as_a_fenced_block(home, tmp_path):
    with OpenAIServer() as srv:
        _openai(home, srv.url)
        srv.queue(openai_body("It prints one."))
        srv.queue(openai_body("Long."))
        done = agent("run", "summarise this", "-p", "p", cwd=tmp_path, stdin=b"print(1)\n```inner```\n")
        assert done.returncode == 0, done.stderr
        text = _users(srv)[0]
        # The goal first, then the text in a fence longer than any backtick run inside it.
        assert text == "summarise this\n\n````\nprint(1)\n```inner```\n````"

        big = b"x" * 300_000
        done = agent("run", "how long is it", "-p", "p", cwd=tmp_path, stdin=big)
        assert done.returncode == 0, done.stderr
        assert b"only the first 200000" in done.stderr and b"300000 bytes" in done.stderr
        sent = _users(srv)[0]
        assert sent.count("x") == 200_000 and "the rest was cut" in sent

        done = agent("run", "what is this", "-p", "p", cwd=tmp_path, stdin=b"\x7fELF\x00\x00")
        assert done.returncode == 2 and b"looks binary" in done.stderr
        assert len(srv.requests) == 2  # refused before any request


# -- 4: `run -c` with no new goal ------------------------------------------------------------------

def test_continue_without_a_goal_makes_no_model_call(home, tmp_path):
    with OpenAIServer() as srv:
        _openai(home, srv.url)
        srv.queue(openai_body("The answer."))
        assert agent("run", "a question", "-p", "p", cwd=tmp_path).returncode == 0
        done = agent("run", "-c", cwd=tmp_path)
        assert done.returncode == 2
        assert b"nothing to do" in done.stderr and b'agent run -c "what next"' in done.stderr
        done = agent("run", "-c", "--json", cwd=tmp_path)
        assert done.returncode == 2
        assert json.loads(done.stdout.decode().splitlines()[-1])["event"] == "error"
        assert len(srv.requests) == 1  # never a second, billed answer to the same question


# -- 6: the whole header in a log -------------------------------------------------------------------

def test_header_lines_are_whole_when_stderr_is_not_a_terminal(home, tmp_path):
    deep = tmp_path / ("a-folder-with-a-rather-long-name-" * 3) / "project"
    deep.mkdir(parents=True)
    first = agent("run", "hello", "-p", "offline", cwd=deep)
    assert first.returncode == 0, first.stderr
    done = agent("run", "-c", "and again", cwd=deep)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.decode().splitlines()
    assert lines[0].endswith("tools native (openai)"), lines[0]
    second = lines[1]
    assert str(deep).replace(str(home), "~") in second or str(deep) in second
    session_id = json.loads(agent("sessions", "--json", cwd=deep).stdout)[0]["id"]
    assert second.endswith(f"session {session_id}")  # the id, in full, at the end of a long line
    assert len(second) > 80


# -- 7: mcp add --enable, mcp remove ----------------------------------------------------------------

def test_mcp_add_enables_and_remove_cleans_up_the_profiles(home, tmp_path):
    mine = home / "config" / "agentcli" / "profiles" / "mine.toml"
    mine.write_text('# my own profile\n[profiles.mine]\nprovider = "scripted"  # a comment\nmodel = "m"\n'
                    'script = "builtin:demo"\n\n[profiles.mine.tools]\nmax_tier = "walk"\n')
    cmd = ["--", sys.executable, str(FIXTURE_SERVER)]
    result = run_agent("mcp", "add", "fx", "--enable", "mine", "--enable", "offline", *cmd)
    assert result.exit_code == 0, result.output
    assert "enabled in profile mine" in result.stdout and "copy of the shipped profile" in result.stdout
    text = mine.read_text()
    assert 'mcp = ["fx"]' in text and "# my own profile" in text and "# a comment" in text
    shown = json.loads(run_agent("profiles", "show", "offline", "--json").stdout)
    assert "fx" in json.dumps(shown)

    result = run_agent("mcp", "add", "fy", "--enable", "nosuch", *cmd)
    assert result.exit_code == 2 and "no profile 'nosuch'" in result.output
    assert "fy" not in run_agent("mcp", "list").stdout  # refused before anything was written

    result = run_agent("mcp", "remove", "fx")
    assert result.exit_code == 0, result.output
    assert "dropped it from profile mine" in result.stdout and "dropped it from profile offline" in result.stdout
    assert 'mcp = []' in mine.read_text() and "# a comment" in mine.read_text()
    assert run_agent("profiles", "show", "mine").exit_code == 0  # loads again: no dangling name
    assert run_agent("tools", "--profile", "mine").exit_code == 0

    run_agent("mcp", "add", "fz", "--all", *cmd)
    assert 'mcp = ["fz"]' in (home / "config" / "agentcli" / "profiles" / "boxxie.toml").read_text()
    # --all copies only the default shipped profile: a copy would stop the others' updates reaching the user
    assert not (home / "config" / "agentcli" / "profiles" / "claude.toml").exists()
    result = run_agent("mcp", "remove", "fz", "--keep-profiles")
    assert "profile mine still names it" in result.stdout


def test_mcp_remove_names_a_profile_it_cannot_edit_safely(home):
    odd = home / "config" / "agentcli" / "profiles" / "odd.toml"
    text = '[profiles.odd]\nprovider = "scripted"\nmodel = "m"\nscript = "builtin:demo"\nmcp = [\n  "fx",\n]\n'
    odd.write_text(text)
    assert run_agent("mcp", "add", "fx", "--", sys.executable, str(FIXTURE_SERVER)).exit_code == 0
    result = run_agent("mcp", "remove", "fx")
    assert result.exit_code == 0, result.output
    assert "profile odd: the mcp list of profile 'odd'" in result.stdout and "spans several lines" in result.stdout
    assert 'mcp = []' in result.stdout  # the line to write by hand
    assert odd.read_text() == text  # never guessed at


# -- 15: the small ones -----------------------------------------------------------------------------

def test_a_listing_whose_reader_leaves_exits_0(home, tmp_path):
    assert run_agent("run", "hi", "-p", "offline", "-q", "-w", str(tmp_path)).exit_code == 0
    read_end, write_end = os.pipe()
    os.close(read_end)  # a reader that has already left (`| head -1` once it has its line), every time
    proc = subprocess.Popen([sys.executable, "-m", "agentcli", "sessions", "--all"], cwd=tmp_path,
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    _, err = proc.communicate(timeout=BOUND_S)
    assert proc.returncode == 0, err
    assert b"Traceback" not in err and b"internal error" not in err


def test_missing_key_is_exit_2_and_json_errors_are_json(home, tmp_path, monkeypatch):
    _profile(home, "keyless", 'provider = "openai"\nmodel = "gpt-4o"\napi_key_env = "NO_SUCH_KEY_VAR"\n')
    monkeypatch.delenv("NO_SUCH_KEY_VAR", raising=False)
    result = run_agent("run", "hi", "-p", "keyless", "-w", str(tmp_path))
    assert result.exit_code == 2 and "$NO_SUCH_KEY_VAR is not set" in result.stderr

    result = run_agent("run", "hi", "-p", "nosuchprofile", "--json", "-w", str(tmp_path))
    assert result.exit_code == 2
    record = json.loads(result.stdout.splitlines()[-1])
    assert record["event"] == "error" and record["error"] == "profile error" and record["exit_code"] == 2
    assert "nosuchprofile" in record["message"]


def test_shell_completion_offers_profile_names(home, tmp_path):
    _profile(home, "zebra-local", 'provider = "ollama"\nmodel = "qwen3:8b"\n')
    env = {**os.environ, "_AGENT_COMPLETE": "complete_bash", "COMP_WORDS": "agent run --profile zeb",
           "COMP_CWORD": "3"}
    done = subprocess.run([sys.executable, "-c", "import sys; sys.argv[0] = 'agent'; "
                           "from agentcli.cli.main import main; main()"],
                          env=env, capture_output=True, text=True, timeout=BOUND_S, check=False)
    assert "zebra-local" in done.stdout.split(), (done.stdout, done.stderr)


def test_eval_without_arguments_is_the_quick_run(home):
    result = run_agent("eval", "--scenarios", "happy_path", "--json")
    out = json.loads(result.stdout)
    assert {r["layers"] for r in out["results"]} == {"on", "off"}
    assert all(r["trials"] == 1 for r in out["results"])
    result = run_agent("eval", "--scenarios", "happy_path")
    assert "agent eval --layers all --trials 3" in result.stderr


def test_scripted_runs_leave_learned_json_alone(home, tmp_path):
    # A native-tools model that writes its calls as Hermes text twice: a real endpoint would learn
    # that dialect. A script is no real endpoint: nothing may reach the user's learned.json.
    script = tmp_path / "turns.json"
    call = '<tool_call>{"name": "list_files", "arguments": {"path": "."}}</tool_call>'
    script.write_text(json.dumps({"api": "openai", "turns": [{"text": call}, {"text": call.replace('"."', '"./"')},
                                                             {"text": "done"}]}))
    _profile(home, "s", f'provider = "scripted"\nmodel = "m"\nscript = "{script}"\n'
                        "[profiles.s.capabilities]\nnative_tools = true\n")
    done = agent("run", "look around", "-p", "s", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert b"parsing that first from now on" in done.stderr  # it did learn, for this run
    assert not (home / "cache" / "agentcli" / "learned.json").exists()


def test_tool_lines_show_more_than_the_first_line(home, tmp_path):
    (tmp_path / "notes.py").write_text("alpha = 1\nbeta = 2\ngamma = 3\n" + "".join(f"x{i} = {i}\n" for i in range(20)))
    done = agent("run", "what is in notes.py", "-p", "offline", cwd=tmp_path)
    err = done.stderr.decode()
    assert "alpha = 1" in err and "beta = 2" in err and "gamma = 3" in err
    assert "more lines" in err and "x19 = 19" not in err  # bounded


def test_missing_ollama_model_names_the_nearest_one(home, tmp_path):
    with OllamaServer(models=("llama3.1:8b", "qwen3:8b", "nomic-embed-text")) as srv:
        srv.queue_error(404, {"error": 'model "qwen3-next-80b-tools" not found, try pulling it first'})
        _profile(home, "box", f'provider = "ollama"\nmodel = "qwen3-next-80b-tools"\nurl = "{srv.url}"\n'
                              "stream = false\n")
        done = agent("run", "hi", "-p", "box", cwd=tmp_path)
        err = done.stderr.decode()
        assert done.returncode == 1, err
        assert "nearest model" in err and "'qwen3:8b'" in err and "agent run -m qwen3:8b" in err
        assert "ollama create qwen3-next-80b-tools -f Modelfile" in err


# -- #26.5: SIGTERM and SIGHUP end a run like Ctrl-C --------------------------------------------------

def _processes_with(marker: str) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmd = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmd:
                out.append(int(entry))
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_signal_ends_the_run_closes_mcp_servers_and_says_how_to_resume(home, tmp_path, sig):
    marker = str(tmp_path / "starts.txt")
    with OpenAIServer() as srv:
        srv.queue_slow(openai_body("too late"), delay=30)
        _profile(home, "m", f'provider = "openai"\nmodel = "gpt-4o"\nurl = "{srv.url}"\napi_key_env = "E2E_KEY"\n'
                            "stream = false\n"
                            f"[profiles.m.mcp_servers.fx]\ncommand = {json.dumps([sys.executable, str(FIXTURE_SERVER), '--starts', marker])}\n"
                            "startup_timeout = 120\n")
        env = {**os.environ, "E2E_KEY": "sk-test-0123456789abcdef"}
        proc = subprocess.Popen([sys.executable, "-m", "agentcli", "run", "slow question", "-p", "m"], cwd=tmp_path,
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + BOUND_S
        while not srv.requests:  # the MCP server is up (it starts before the first request)
            assert time.monotonic() < deadline and proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            time.sleep(0.05)
        assert _processes_with(marker)
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=BOUND_S)
        assert proc.returncode == 128 + sig, err
        text = err.decode()
        assert f"ended by {signal.Signals(sig).name}" in text and "Continue with: agent run --resume" in text
        deadline = time.monotonic() + BOUND_S
        while _processes_with(marker):  # no MCP server left behind (bounded wait for it to exit)
            assert time.monotonic() < deadline, "the MCP server outlived the run"
            time.sleep(0.05)
