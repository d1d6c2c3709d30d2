"""Everyday use, round two, in a real pseudo-terminal (pexpect): the spinner gives way to every
prompt and cancel, Ctrl-C at an approval is exit 130, a menu answers to one key, `run -i` shows its
header once, bare `agent` and `agent chat -m/-c/MESSAGE` open a chat, `run -c` with nothing new
opens the chat without a model call, the repeat guard judges one request, `/model` re-resolves
capabilities, and SIGHUP ends a chat like Ctrl-C.

Waiting for something NOT to appear uses a short bounded window (`_absent`), an observation,
never an assertion about speed.
"""

from __future__ import annotations

import os
import re
import signal
import sys

import pexpect

from agentcli.testing import OllamaServer, OpenAIServer, ollama_body, openai_body

KEY = "sk-test-0123456789abcdef"
QUIET_WINDOW_S = 1.0  # how long a stopped spinner (8 frames a second when running) is watched


def _env(tmp_path):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    env.update(PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1", COLUMNS="120", E2E_KEY=KEY,
               HOME=str(tmp_path / "home"))
    return env


def _profiles(tmp_path, ollama_url=None, openai_url=None):
    d = tmp_path / "xdg_config_home" / "agentcli" / "profiles"
    d.mkdir(parents=True, exist_ok=True)
    if ollama_url:
        (d / "local.toml").write_text(
            f'[profiles.local]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\nurl = "{ollama_url}"\nstream = false\n')
    if openai_url:
        (d / "p.toml").write_text(f'[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "{openai_url}"\n'
                                  'api_key_env = "E2E_KEY"\nstream = false\n')


def _spawn(tmp_path, *args, ws=None):
    ws = ws or tmp_path / "ws"
    ws.mkdir(exist_ok=True)
    child = pexpect.spawn(sys.executable, ["-m", "agentcli", *args], env=_env(tmp_path), cwd=str(ws),
                          encoding="utf-8", timeout=30, dimensions=(40, 120))
    child.delaybeforesend = 0.5  # a person's pause: keys sent while the prompt redraws can be dropped
    return child


def _plain(text: str) -> str:
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)


def _absent(child, pattern: str) -> None:
    """Nothing matching `pattern` shows within the quiet window."""
    index = child.expect([pattern, pexpect.TIMEOUT], timeout=QUIET_WINDOW_S)
    assert index == 1, f"{pattern!r} appeared: {child.before!r}{child.after!r}"


def _wait_for_request(server, n: int = 1) -> None:
    import time

    deadline = time.monotonic() + 60
    while len(server.requests) < n:
        assert time.monotonic() < deadline, "the model request never reached the server"
        time.sleep(0.01)


def test_cancelled_chat_turn_leaves_no_spinner(tmp_path):
    with OllamaServer() as ol:
        ol.queue_slow(ollama_body("too late"), delay=20)
        ol.queue(ollama_body("second answer"))
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "chat", "--profile", "local")
        try:
            child.expect("qwen2.5:7b>")
            child.sendline("a slow question")
            child.expect("waiting for")  # the spinner is up
            _wait_for_request(ol)
            child.sendintr()
            child.expect("turn cancelled")
            child.expect("qwen2.5:7b>")
            _absent(child, "waiting for")  # the cancelled turn's spinner no longer draws over the prompt
            child.sendline("again")
            child.expect("second answer")
            child.expect("qwen2.5:7b>")
            _absent(child, "waiting for")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)


def _edit_call_server(srv):
    call = {"id": "e1", "type": "function", "function": {
        "name": "edit_file", "arguments": '{"path": "calc.py", "old_content": "a - b", "new_content": "a + b"}'}}
    srv.queue(openai_body("", tool_calls=[call]))
    srv.queue(openai_body("Fixed."))


def test_approval_takes_one_key_and_ctrl_c_there_is_exit_130(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with OpenAIServer() as srv:
        _edit_call_server(srv)
        _profiles(tmp_path, openai_url=srv.url)
        child = _spawn(tmp_path, "run", "fix calc.py", "--profile", "p", "--tier", "walk")
        try:
            child.expect("checkpoint")
            child.expect("> ")
            _absent(child, "waiting for|running edit_file")  # no spinner over the question
            child.send("y")  # one key, no Enter
            child.expect("Fixed.")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        assert "a + b" in (ws / "calc.py").read_text()

        (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
        _edit_call_server(srv)
        child = _spawn(tmp_path, "run", "fix calc.py", "--profile", "p", "--tier", "walk")
        try:
            child.expect("checkpoint")
            child.expect("> ")
            child.sendintr()
            child.expect("Continue with: agent run --resume")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 130
        assert "a - b" in (ws / "calc.py").read_text()


def test_run_interactive_prints_the_header_once(tmp_path):
    with OllamaServer() as ol:
        ol.queue(ollama_body("first answer"))
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "run", "first question", "-i", "--profile", "local")
        try:
            child.expect("qwen2.5:7b>")
            seen = _plain(child.before)
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert "first answer" in seen
        assert seen.count("profile local") == 1, seen


def test_bare_agent_and_chat_options_open_a_chat(tmp_path):
    with OllamaServer() as ol:
        ol.queue(ollama_body("hello from the first message"))
        ol.queue(ollama_body("the follow-up"))
        _profiles(tmp_path, ollama_url=ol.url)
        cfg = tmp_path / "xdg_config_home" / "agentcli" / "config.toml"
        cfg.write_text('default_profile = "local"\n')

        child = _spawn(tmp_path)  # bare `agent`
        try:
            child.expect("qwen2.5:7b>")  # the default profile's model: a chat, not the help text
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert not ol.requests  # opening a chat asks the model nothing

        child = _spawn(tmp_path, "chat", "-m", "llama3.1:8b", "say hello")
        try:
            child.expect("hello from the first message")
            child.expect("llama3.1:8b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert ol.chat_requests()[0].body["model"] == "llama3.1:8b"

        child = _spawn(tmp_path, "chat", "-c")
        try:
            child.expect("llama3.1:8b>")  # the session's model comes back with it
            child.sendline("and then?")
            child.expect("the follow-up")
            child.expect("llama3.1:8b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        second = ol.chat_requests()[1].body["messages"]
        assert [m["content"] for m in second if m["role"] in ("user", "assistant")] == [
            "say hello", "hello from the first message", "and then?"]


def test_run_continue_without_a_goal_opens_the_chat_without_a_model_call(tmp_path):
    with OllamaServer() as ol:
        ol.queue(ollama_body("the answer"))
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "run", "a question", "--profile", "local")
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 0
        child = _spawn(tmp_path, "run", "-c")
        try:
            child.expect("qwen2.5:7b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert len(ol.chat_requests()) == 1


def test_same_short_reply_to_separate_requests_is_not_stuck(tmp_path):
    with OllamaServer() as ol:
        for _ in range(4):
            ol.queue(ollama_body("Done."))
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "chat", "--profile", "local")
        try:
            for question in ("first thing", "second thing", "third thing", "fourth thing"):
                child.expect("qwen2.5:7b>")
                child.sendline(question)
                index = child.expect([r"■ answered", "stuck"])
                assert index == 0, child.before
            child.expect("qwen2.5:7b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)


def test_model_switch_resolves_capabilities_afresh(tmp_path):
    _profiles(tmp_path)
    child = _spawn(tmp_path, "chat", "--profile", "offline")
    try:
        child.expect("offline-demo>")
        # The offline profile says native_tools = true for ITS model; an unknown model gets its own.
        child.sendline("/model ollama/some-unknown-model")
        child.expect(r"switched to \S*some-unknown-model")
        child.expect(r"native_tools: True → \S*False")
        child.expect(r"wire: emulated tools")
        child.expect("some-unknown-model>")
        child.sendline("/model offline")
        child.expect(r"switched to \S*offline-demo")
        child.expect(r"wire: native tools")
        seen_wire = child.before
        child.expect("offline-demo>")
        assert "emulation" not in child.before + seen_wire  # no "will be emulated" warning under a native plan
        child.sendeof()
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)


def test_sighup_ends_a_chat_like_ctrl_c(tmp_path):
    with OllamaServer() as ol:
        ol.queue_slow(ollama_body("too late"), delay=20)
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "chat", "--profile", "local")
        try:
            child.expect("qwen2.5:7b>")
            child.sendline("a slow question")
            _wait_for_request(ol)
            child.kill(signal.SIGHUP)
            child.expect("Continue with: agent chat --resume")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 129


def test_ctrl_c_in_run_leaves_no_spinner_frame(tmp_path):
    with OllamaServer() as ol:
        ol.queue_slow(ollama_body("too late"), delay=20)
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "run", "a slow question", "--profile", "local")
        try:
            child.expect("waiting for")
            _wait_for_request(ol)
            child.sendintr()
            child.expect("interrupted; the transcript is saved")
            child.expect(pexpect.EOF)
            after = child.before
        finally:
            child.close(force=True)
        assert child.exitstatus == 130
        assert "waiting for" not in after  # no frame drawn after the message


def test_no_spinner_over_the_stuck_checkpoint(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with OllamaServer() as ol:
        for _ in range(8):  # the same call, over and over: the repeat guard ends at a "stuck" checkpoint
            ol.queue(ollama_body("", tool_calls=[{"function": {"name": "read_file", "arguments": {"path": "calc.py"}}}]))
        _profiles(tmp_path, ollama_url=ol.url)
        child = _spawn(tmp_path, "run", "read calc.py", "--profile", "local")
        try:
            child.expect("checkpoint: stuck")
            child.expect("> ")
            _absent(child, "waiting for|running read_file")
            child.send("q")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 3
