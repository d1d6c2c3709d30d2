"""agentcli against llama-cpp-python's real OpenAI-compatible server (a generated tiny model).

Each run does the same two-tool task: list the files, read notes.txt, answer. The scripted proxy
makes the random model write each step through the server's own constrained decoding, so what
agentcli reads is the server's real wire format, streamed and not, native and emulated.
"""

from __future__ import annotations

import json

import pytest
from proxy import Answer, Call, Noise
from realkit import write_profile

ANSWER = "The notes say hello."
GOAL = "List the files, then read notes.txt and tell me what it says."
TAG_PIECES = ("<tool_call", "tool_call>", "</tool")


def two_tool_script(style: str) -> list:
    return [Call("list_files", {"path": "."}, style), Call("read_file", {"path": "notes.txt"}, style), Answer(ANSWER)]


def tools_run(result) -> list[tuple[str, dict, bool]]:
    return [(e["call"]["name"], e["call"]["arguments"], e["result"]["ok"]) for e in result.of("tool_result")]


def done(result) -> dict:
    return result.of("done")[-1] if result.of("done") else {}


@pytest.mark.parametrize(("stream", "native", "style"), [
    (True, True, "native"),
    (False, True, "native"),
    (True, False, "hermes"),
    (False, False, "json"),
], ids=["native-streamed", "native-whole", "hermes-streamed", "json-whole"])
def test_two_tool_task(scripted_proxy, agent, workspace, tmp_path, stream, native, style):
    scripted_proxy.script = two_tool_script(style)
    fmt = None if native else {"hermes": "hermes", "json": "json"}[style]
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1", stream=stream, native=native, tool_format=fmt)
    result = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    assert result.code == 0, result.stderr + result.stdout[-2000:]
    ran = tools_run(result)
    assert [(n, a) for n, a, _ in ran] == [("list_files", {"path": "."}), ("read_file", {"path": "notes.txt"})]
    assert all(ok for _, _, ok in ran), ran
    assert "hello from the notes file" in json.dumps([e["result"]["content"] for e in result.of("tool_result")])
    assert done(result)["stop"] == "answered" and done(result)["answer"] == ANSWER
    sent = scripted_proxy.chat_requests(original=True)
    assert len(sent) == 3 and all(r.get("stream", False) == stream for r in sent)
    for later in sent[1:]:  # the assistant turn that only called tools goes back with string content
        assistant = [m for m in later["messages"] if m["role"] == "assistant"]
        assert all(isinstance(m["content"], str) for m in assistant)
    if native:  # sent even when "auto": chatml-function-calling renders no tools without it
        assert all(r["tool_choice"] == "auto" for r in sent)


def test_hermes_streamed_shows_no_tag(scripted_proxy, agent, workspace, tmp_path):
    """The real tokenizer splits <tool_call> into pieces; the terminal shows none of them."""
    scripted_proxy.script = two_tool_script("hermes")
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1", stream=True, native=False, tool_format="hermes")
    result = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes")
    assert result.code == 0, result.stderr
    shown = result.stdout + result.stderr
    assert ANSWER in shown
    assert not any(piece in shown for piece in TAG_PIECES), shown
    # the server really did send the tag in small pieces
    pieces = [json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
              for line in scripted_proxy.exchanges[0].body.decode().splitlines()
              if line.startswith("data: {")]
    assert "<tool_call>" in "".join(pieces) and not any("<tool_call>" in p for p in pieces)


def test_doctor_probe_says_native_tools_work(scripted_proxy, agent, tmp_path):
    scripted_proxy.script = [Call("echo", {"text": "ping"})]  # the probe's own test tool
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1")
    result = agent("doctor", "--probe", "-p", f"{profile}#real")
    shown = result.stdout + result.stderr
    assert result.code == 0, shown
    assert "native" in shown.lower() and "works" in shown.lower(), shown


def test_context_overflow_is_said_on_the_first_try(scripted_proxy, agent, workspace, tmp_path):
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1", stream=True)
    result = agent("run", "word " * 6000, "-p", f"{profile}#real", "-w", str(workspace), "--yes")
    assert result.code == 1
    assert "context" in result.stderr.lower(), result.stderr
    assert "retry" not in result.stderr.lower() and "stream broke" not in result.stderr.lower(), result.stderr
    assert len(scripted_proxy.chat_requests()) == 2  # the empty stream, then one request without streaming


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_random_model_noise_goes_through_the_loop(scripted_proxy, agent, workspace, tmp_path, stream):
    """Unconstrained, the model writes noise (control characters, brackets, CJK): never a traceback."""
    scripted_proxy.script = [Noise()]
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1", stream=stream, max_turns=3)
    result = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.code in (0, 1, 3, 4), result.stderr


def test_eval_live_runs_against_the_server(scripted_proxy, agent, tmp_path):
    """`agent eval --live` drives the real server; a random model fails the checks, but the run completes."""
    scripted_proxy.script = [Noise(16)]
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1", max_turns=2)
    result = agent("eval", "--live", "-p", f"{profile}#real", "--trials", "1", "--scenarios", "happy_path",
                   "--json")
    assert "Traceback" not in result.stderr, result.stderr
    assert result.code in (0, 1), result.stderr + result.stdout[-2000:]
    assert scripted_proxy.chat_requests(), "no request reached the server"


def test_fix_the_typo_after_one_tier_request_with_no_tier_flag(scripted_proxy, agent, workspace, tmp_path):
    """The issue's goal against the real server: the run starts read-only, the model asks for walk with
    request_tier (pre-approved by --approve edits, no --tier), then edits the file."""
    (workspace / "greeting.py").write_text('print("Helo, world")\n')
    scripted_proxy.script = [
        Call("read_file", {"path": "greeting.py"}),
        Call("request_tier", {"tier": "walk", "reason": "fix the typo in greeting.py"}),
        Call("edit_file", {"path": "greeting.py", "old_content": "Helo", "new_content": "Hello"}),
        Answer("Fixed the typo."),
    ]
    profile = write_profile(tmp_path, scripted_proxy.url + "/v1")
    # The server's real window: the walk tier's tools are then fitted into it (short forms, fewer tools).
    profile.write_text(profile.read_text().replace("[profiles.real.capabilities]\n",
                                                   "[profiles.real.capabilities]\ncontext_window = 4096\n"))
    result = agent("run", "fix the typo in greeting.py", "-p", f"{profile}#real", "-w", str(workspace),
                   "--approve", "edits", "--json")
    assert result.code == 0, result.stderr + result.stdout[-2000:]
    assert [n for n, _, ok in tools_run(result) if ok] == ["read_file", "request_tier", "edit_file"]
    assert (workspace / "greeting.py").read_text() == 'print("Hello, world")\n'
    first, _, third = scripted_proxy.chat_requests(original=True)[:3]
    names = [{t["function"]["name"] for t in r["tools"]} for r in (first, third)]
    assert "request_tier" in names[0] and "edit_file" not in names[0] and "edit_file" in names[1]
