"""The interactive session driven through a real pseudo-terminal (pexpect)."""

from __future__ import annotations

import os
import sys

import pexpect

from agentcli.testing import AnthropicServer, OllamaServer, anthropic_body, ollama_body

KEY = "sk-ant-test-0123456789abcdef"


def _env(tmp_path):
    env = dict(os.environ)
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env[var] = str(tmp_path / var.lower())
    env.update(PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm", NO_COLOR="1", COLUMNS="120", E2E_ANTHROPIC_KEY=KEY)
    return env


def _profiles(tmp_path, ollama_url, anthropic_url):
    d = tmp_path / "xdg_config_home" / "agentcli" / "profiles"
    d.mkdir(parents=True)
    (d / "local.toml").write_text(
        f'[profiles.local]\nprovider = "ollama"\nmodel = "qwen2.5:7b"\nurl = "{ollama_url}"\nstream = false\n'
    )
    (d / "cloud.toml").write_text(
        f'[profiles.cloud]\nprovider = "anthropic"\nmodel = "claude-sonnet-4-20250514"\nurl = "{anthropic_url}"\n'
        'api_key_env = "E2E_ANTHROPIC_KEY"\nstream = false\n'
    )


def test_model_switch_mid_session_carries_tool_history(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    with OllamaServer() as ol, AnthropicServer() as an:
        ol.queue(ollama_body("", tool_calls=[{"function": {"name": "read_file", "arguments": {"path": "calc.py"}}}]))
        ol.queue(ollama_body("calc.py subtracts in add()."))
        an.queue(anthropic_body("Claude here: the bug is the minus sign."))
        _profiles(tmp_path, ol.url, an.url)
        child = pexpect.spawn(
            sys.executable, ["-m", "agentcli", "chat", "--profile", "local", "--workspace", str(ws)],
            env=_env(tmp_path), encoding="utf-8", timeout=20, dimensions=(40, 120),
        )
        child.delaybeforesend = 0.5  # a person's pause: keys sent while the prompt redraws can be dropped
        try:
            child.expect("qwen2.5:7b>")
            child.sendline("what does calc.py do?")
            child.expect("subtracts in add")
            child.expect("qwen2.5:7b>")
            child.sendline("/model cloud")
            child.expect(r"switched to \S*claude-sonnet-4-20250514")
            child.expect(r"family \S*claude")
            child.expect("claude-sonnet-4-20250514>")
            child.sendline("so what is the bug?")
            child.expect("the bug is the minus sign")
            child.expect("claude-sonnet-4-20250514>")
            child.sendline("/tier")
            child.expect(r"tier \S*crawl")
            child.expect("claude-sonnet-4-20250514>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        body = an.chat_requests()[0].body
        assistant = next(m for m in body["messages"] if m["role"] == "assistant" and isinstance(m["content"], list)
                         and any(b.get("type") == "tool_use" for b in m["content"]))
        use = next(b for b in assistant["content"] if b["type"] == "tool_use")
        assert use["name"] == "read_file" and use["input"] == {"path": "calc.py"}
        result_msg = body["messages"][body["messages"].index(assistant) + 1]
        block = result_msg["content"][0]
        assert result_msg["role"] == "user" and block["type"] == "tool_result" and block["tool_use_id"] == use["id"]
        assert "return a - b" in str(block["content"])
        assert body["messages"][-1]["content"] in ("so what is the bug?", [{"type": "text", "text": "so what is the bug?"}])
        assert an.chat_requests()[0].headers["x-api-key"] == KEY
        history = tmp_path / "xdg_data_home" / "agentcli" / "history"
        assert "so what is the bug?" in history.read_text()
        assert oct(history.stat().st_mode & 0o777) == "0o600"  # what you typed is private


def test_checkpoint_answered_in_a_terminal(tmp_path):
    """`agent run` without --yes on a TTY shows the diff and asks; 'y' approves exactly that edit."""
    from agentcli.testing import OpenAIServer, openai_body

    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    call = {"id": "e1", "type": "function", "function": {"name": "edit_file", "arguments":
            '{"path": "calc.py", "old_content": "a - b", "new_content": "a + b"}'}}
    with OpenAIServer() as srv:
        srv.queue(openai_body("", tool_calls=[call]))
        srv.queue(openai_body("Fixed."))
        prof = tmp_path / "p.toml"
        prof.write_text(f'[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "{srv.url}"\n'
                        'api_key_env = "E2E_ANTHROPIC_KEY"\n')
        child = pexpect.spawn(sys.executable, ["-m", "agentcli", "run", "fix the bug in calc.py", "--profile",
                                               str(prof), "--workspace", str(ws)],
                              env=_env(tmp_path), encoding="utf-8", timeout=20, dimensions=(40, 120))
        try:
            child.expect("checkpoint")
            child.expect(r"\+    return a \+ b")
            child.expect("> ")
            child.sendline("y")
            child.expect("Fixed.")
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        assert child.exitstatus == 0
        assert "return a + b" in (ws / "calc.py").read_text()


def _wait_for_request(server, polls: int = 6000) -> None:
    import time

    for _ in range(polls):
        if server.requests:
            return
        time.sleep(0.01)
    raise AssertionError("the model request never reached the server")


def test_ctrl_c_cancels_the_turn_not_the_session(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with OllamaServer() as ol, AnthropicServer() as an:
        ol.queue_slow(ollama_body("too late"), delay=8)
        ol.queue(ollama_body("second answer"))
        _profiles(tmp_path, ol.url, an.url)
        child = pexpect.spawn(
            sys.executable, ["-m", "agentcli", "chat", "--profile", "local", "--workspace", str(ws)],
            env=_env(tmp_path), encoding="utf-8", timeout=20, dimensions=(40, 120),
        )
        child.delaybeforesend = 0.5
        try:
            child.expect("qwen2.5:7b>")
            child.sendline("a slow question")
            _wait_for_request(ol)  # Ctrl-C while the turn waits for the model, however busy the machine
            child.sendintr()
            child.expect("turn cancelled")
            child.expect("qwen2.5:7b>")
            child.sendline("again")
            child.expect("second answer")
            child.expect("qwen2.5:7b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)


def test_run_interactive_continues_in_chat_with_the_same_conversation(tmp_path):
    ws = tmp_path / "ws"
    ws.mkdir()
    with OllamaServer() as ol, AnthropicServer() as an:
        ol.queue(ollama_body("first answer"))
        ol.queue(ollama_body("follow-up answer"))
        _profiles(tmp_path, ol.url, an.url)
        child = pexpect.spawn(
            sys.executable, ["-m", "agentcli", "run", "first question", "-i", "--profile", "local",
                             "--workspace", str(ws)],
            env=_env(tmp_path), encoding="utf-8", timeout=20, dimensions=(40, 120),
        )
        child.delaybeforesend = 0.5
        try:
            child.expect("first answer")
            child.expect("qwen2.5:7b>")
            child.sendline("second question")
            child.expect("follow-up answer")
            child.expect("qwen2.5:7b>")
            child.sendeof()
            child.expect(pexpect.EOF)
        finally:
            child.close(force=True)
        second = ol.chat_requests()[1].body["messages"]
        assert [m["content"] for m in second if m["role"] in ("user", "assistant")] == [
            "first question", "first answer", "second question"]
