"""What a person sees, in a real terminal (tmux) at 60 and 120 columns: the run header, a
spinner counting seconds while a slow model thinks, `agent undo` restoring a file byte for
byte, `--continue` picking this folder's session, `--json` with no terminal writing only JSON
lines and exiting 3, `-q` printing only the answer, `--version` and shell completion.

tmux is required (`apt-get install tmux`): without it this test fails, it does not skip.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from agentcli.testing import OpenAIServer, openai_body

TIMEOUT_S = 40  # a bound on waiting for the screen, never an assertion about speed


class Tmux:
    """One private tmux server with one window of the given width."""

    def __init__(self, width: int, env: dict[str, str], cwd: Path) -> None:
        assert shutil.which("tmux"), "tmux is required for this test: apt-get install tmux"
        self.sock = f"agentcli-test-{uuid.uuid4().hex[:8]}"
        self.env = env
        args = ["new-session", "-d", "-x", str(width), "-y", "50", "-c", str(cwd)]
        for k, v in env.items():
            args += ["-e", f"{k}={v}"]
        # tmux keeps its own PATH for new panes: set it on the shell itself.
        self.tmux(*args, f"env PATH={shlex.quote(env['PATH'])} bash --norc --noprofile")
        self.tmux("set-option", "-g", "history-limit", "5000")
        self.n = 0

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True, text=True, timeout=20, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-S", "-5000")

    def wait_for(self, pattern: str) -> re.Match[str]:
        deadline = time.monotonic() + TIMEOUT_S
        while True:
            m = re.search(pattern, self.screen())
            if m:
                return m
            assert time.monotonic() < deadline, f"never saw {pattern!r} on the screen:\n{self.screen()}"
            time.sleep(0.1)

    def run(self, command: str) -> tuple[str, int]:
        """Type a command, wait for it to finish; returns (what it printed, exit code)."""
        self.n += 1
        n = self.n
        self.tmux("send-keys", f"echo __BEGIN{n}__; {command}; echo \"__END{n}__ rc=$?\"", "Enter")
        m = self.wait_for(rf"(?ms)^__BEGIN{n}__$\n(.*?)^__END{n}__ rc=(\d+)")
        return m.group(1), int(m.group(2))

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.sock, "kill-server"], capture_output=True, timeout=20, check=False)


@pytest.fixture(params=[60, 120], ids=["60cols", "120cols"])
def term(request, tmp_path):
    bindir = Path(sys.executable).parent
    home = tmp_path / "home"
    env = {
        "PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}", "HOME": str(home), "TERM": "xterm-256color",
        "XDG_CONFIG_HOME": str(home / "config"), "XDG_DATA_HOME": str(home / "data"),
        "XDG_CACHE_HOME": str(home / "cache"), "PS1": "$ ", "AGENT_TEST_KEY": "sk-test-0123456789",
    }
    t = Tmux(request.param, env, tmp_path)
    t.width = request.param  # type: ignore[attr-defined]
    yield t
    t.close()


def _folder(base: Path, name: str) -> Path:
    ws = base / name
    ws.mkdir()
    (ws / "greeting.py").write_bytes(b"def greet():\r\n    print(\"helo\")  # caf\xc3\xa9\r\n\tend")
    return ws


def _flat(text: str) -> str:
    return "".join(text.split())


def test_header_undo_continue_json_quiet_version(term, tmp_path):
    a, b = _folder(tmp_path, "a"), _folder(tmp_path, "b")
    original = (a / "greeting.py").read_bytes()

    out, rc = term.run(f"cd {shlex.quote(str(a))} && agent run 'Fix the typo in greeting.py' --profile offline --yes")
    assert rc == 0, out
    assert "profile offline" in out and "offline-demo" in out and "tier crawl" in out
    assert _flat(str(a)) in _flat(out)  # the workspace, however the line wrapped
    assert max(len(line) for line in out.splitlines()) <= term.width
    assert (a / "greeting.py").read_bytes() != original

    out, rc = term.run("agent diff")
    assert rc == 0 and "+" in out and "hello" in out
    out, rc = term.run("agent undo")
    assert rc == 0 and "restored greeting.py" in out
    assert (a / "greeting.py").read_bytes() == original  # byte for byte

    # --continue picks this folder's latest session, not the newest anywhere.
    out, rc = term.run(f"cd {shlex.quote(str(b))} && agent run 'what is here' --profile offline -q >/dev/null")
    sessions_b, _ = term.run("agent sessions --json")
    id_b = json.loads(_flat(sessions_b))[0]["id"]
    out, rc = term.run(f"cd {shlex.quote(str(a))} && agent sessions --json")
    ids_a = [s["id"] for s in json.loads(_flat(out))]
    assert id_b not in ids_a and len(ids_a) == 1
    out, rc = term.run("agent run -c 'and now?' --json </dev/null | head -1")
    assert json.loads(_flat(out))["session_id"] == ids_a[0]
    out, rc = term.run("agent sessions")
    assert all(i in _flat(out) for i in ids_a)  # full ids, whatever the width

    # No terminal, no --yes, an edit needed: only JSON lines on stdout, exit 3 with the reason.
    (a / "greeting.py").write_bytes(original)
    out, rc = term.run("agent run 'Fix the typo in greeting.py' --profile offline --json </dev/null >out.jsonl 2>err.txt")
    assert rc == 3
    events = [json.loads(line) for line in (a / "out.jsonl").read_text().splitlines()]
    assert events[0]["event"] == "session_start" and events[-1]["event"] == "done"
    assert events[-1]["stop"] == "refused" and "--yes" in events[-1]["error"]
    assert (a / "greeting.py").read_bytes() == original

    out, rc = term.run("echo 'what does greeting.py do' | agent run -q --profile offline")
    assert rc == 0
    assert _squash(out).startswith("I am the offline demo model")  # the answer, and nothing before it
    assert "profile" not in out and "■" not in out and "tier" not in out

    out, rc = term.run("agent --version")
    assert rc == 0 and re.search(r"agent \d+\.\d+", out)
    out, rc = term.run("COMP_WORDS='agent ses' COMP_CWORD=1 _AGENT_COMPLETE=complete_bash agent; "
                       "agent --show-completion bash | grep -c _agent_completion")
    assert "sessions" in out and re.search(r"(?m)^[1-9]\d*$", out)


def _squash(text: str) -> str:
    return " ".join(text.split())


def test_a_slow_model_shows_a_spinner_counting_seconds(term, tmp_path):
    ws = _folder(tmp_path, "ws")
    with OpenAIServer() as srv:
        srv.queue_slow(openai_body("Done thinking."), delay=3.0)
        prof = tmp_path / "slow.toml"
        prof.write_text(f'[profiles.slow]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "{srv.url}"\n'
                        'api_key_env = "AGENT_TEST_KEY"\n')
        term.tmux("send-keys", f"cd {shlex.quote(str(ws))} && agent run 'think' --profile {prof}; echo __SLOW__", "Enter")
        m = term.wait_for(r"waiting for gpt-4o · ([1-9]\d*) s")
        assert int(m.group(1)) >= 1
        term.wait_for(r"(?m)^__SLOW__")
        screen = term.screen()
        assert "Done thinking." in screen
        assert "waiting for" not in screen  # the spinner is gone once the answer shows
