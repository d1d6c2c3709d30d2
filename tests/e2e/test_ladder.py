"""The emulation ladder end to end: a model that cannot write the prompted style gets the next one.

The loopback Ollama model reads the system prompt it is sent, as a real model would: in the hermes
style it writes a <tool_call> it gets wrong (an unquoted name, as small models do), in the JSON style
it writes a correct call, and once it sees the tool result it answers.
"""

from __future__ import annotations

import json
import re

from e2e_helpers import run_agent, write_profile

from agentcli.testing import OllamaServer, ollama_body

BAD_HERMES = '<tool_call>\n{"name": read_file, "arguments": {"path": "calc.py"}}\n</tool_call>'
GOOD_JSON = '{"name": "read_file", "arguments": {"path": "calc.py"}}'
JSON_STYLE = re.compile(r'^\{"name": "\w+", "arguments": \{', re.M)  # the JSON style's example call line
EMULATED_HERMES = {"native_tools": False, "emulation_style": "hermes"}


def _model(req):
    """One assistant turn chosen from the request the model was sent."""
    messages = req.body["messages"]
    system = messages[0]["content"]
    if any("return a - b" in m["content"] for m in messages[1:] if m["role"] == "user"):
        return ollama_body("calc.py subtracts where it should add.")
    if "<tool_call>" in system:
        return ollama_body(BAD_HERMES)
    if JSON_STYLE.search(system):
        return ollama_body(GOOD_JSON)
    return ollama_body("I do not know how to call tools here.")


def _system(req) -> str:
    return req.body["messages"][0]["content"]


def test_failing_hermes_switches_to_json_and_the_run_succeeds(tmp_path, workspace):
    with OllamaServer() as srv:
        for _ in range(6):
            srv.queue(_model)
        profile = write_profile(tmp_path, "ollama", srv.url, "llama3:8b", capabilities=EMULATED_HERMES)
        res = run_agent("run", "what does calc.py do?", "--profile", str(profile), "--workspace", str(workspace))
        assert res.exit_code == 0, res.output
        reqs = srv.chat_requests()
        assert len(reqs) == 4  # bad hermes, bad hermes, JSON call, answer
        assert all("tools" not in r.body for r in reqs)
        assert _system(reqs[0]) == _system(reqs[1]) and "<tool_call>" in _system(reqs[0])
        assert _system(reqs[2]) != _system(reqs[1])
        assert "<tool_call>" not in _system(reqs[2]) and JSON_STYLE.search(_system(reqs[2]))
        # after the first unreadable call the model was told so, and asked again
        assert "could not be read" in reqs[1].body["messages"][-1]["content"]
        assert "subtracts where it should add" in res.output
        assert "failed twice" in res.output and "json_block" in res.output
        # remembered for this model and endpoint: the next run starts in the JSON style
        doctor = json.loads(run_agent("doctor", "--profile", str(profile), "--json", "--offline").output)
        assert doctor["learned"]["emulation_style"]["value"] == "json_block"
        res2 = run_agent("run", "and again?", "--profile", str(profile), "--workspace", str(workspace))
        assert res2.exit_code == 0, res2.output
        assert JSON_STYLE.search(_system(srv.chat_requests()[4])) and "<tool_call>" not in _system(srv.chat_requests()[4])


def test_a_pinned_tool_format_is_never_switched(tmp_path, workspace):
    with OllamaServer() as srv:
        for _ in range(6):
            srv.queue(_model)
        profile = write_profile(tmp_path, "ollama", srv.url, "llama3:8b", capabilities=EMULATED_HERMES,
                                tools={"tool_format": "hermes"}, limits={"validation_retries": 2})
        res = run_agent("run", "what does calc.py do?", "--profile", str(profile), "--workspace", str(workspace))
        reqs = srv.chat_requests()
        assert len(reqs) == 3  # the first try and two retries, all in the pinned style
        assert all("<tool_call>" in _system(r) for r in reqs)
        assert "failed twice" not in res.output
