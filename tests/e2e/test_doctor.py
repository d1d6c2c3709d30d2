"""`agent doctor`: model spec, capabilities with sources, wire plan, endpoint checks."""

from __future__ import annotations

import json

import pytest
from e2e_helpers import run_agent, write_profile

from agentcli.testing import OllamaServer, OpenAIServer

CASES = [
    ("gpt-4o-2024-08-06", "gpt", True, "native"),
    ("claude-3-5-sonnet-20241022", "claude", True, "native"),
    ("llama3.2:3b-instruct-q4_K_M", "llama", True, None),
    ("llama3:8b", "llama", False, None),
    ("mycompany/llama3.3-code-ft", "llama", True, None),
    ("totally-unknown-model-9000", None, False, None),
    ("Qwen/Qwen2.5-7B-Instruct", "qwen", True, None),
    ("mixtral-8x7b", "mixtral", None, None),
]


@pytest.mark.parametrize("model,family,native,_", CASES)
def test_doctor_model_json_offline(model, family, native, _):
    res = run_agent("doctor", "--model", model, "--json", "--offline")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    spec, caps = report["model"], report["capabilities"]
    for key in ("family", "version", "variant", "size", "provider", "org", "custom"):
        assert key in spec
    assert isinstance(spec["version"], list)
    for key in ("native_tools", "parallel_tools", "max_output_tokens", "context_window",
                "supports_tool_choice_required", "emulation_style"):
        assert key in caps
    assert not {"tool_streaming", "json_mode", "reasoning"} & set(caps), "doctor shows a field nothing reads"
    if family:
        assert spec["family"] == family
    if native is not None:
        assert caps["native_tools"] is native
        assert report["formats"]["native_tools"] is native
    assert {"formats", "checks"} <= set(report)


def test_custom_model_inherits_and_unknown_warns():
    custom = json.loads(run_agent("doctor", "--model", "mycompany/llama3.3-code-ft", "--json", "--offline").output)
    assert custom["model"]["custom"] is True and custom["model"]["version"] == [3, 3]
    assert any("inherited" in src for src in custom["capability_sources"].values())
    unknown = json.loads(run_agent("doctor", "--model", "totally-unknown-model-9000", "--json", "--offline").output)
    assert unknown["warnings"] and unknown["formats"]["native_tools"] is False
    human = run_agent("doctor", "--model", "totally-unknown-model-9000", "--offline")
    assert "agent doctor" in human.output and "emulat" in human.output.lower()


def test_profile_override_wins_and_is_attributed(tmp_path):
    prof = write_profile(tmp_path, "ollama", "http://127.0.0.1:9", "qwen2.5:7b", capabilities={"native_tools": False})
    report = json.loads(run_agent("doctor", "--profile", str(prof), "--json", "--offline").output)
    assert report["capabilities"]["native_tools"] is False
    assert report["capability_sources"]["native_tools"] == "profile override"
    assert report["formats"]["native_tools"] is False


def test_online_checks_pass_and_fail_with_hints(tmp_path):
    with OllamaServer(models=("qwen2.5:7b",)) as srv:
        ok = write_profile(tmp_path, "ollama", srv.url, "qwen2.5:7b")
        report = json.loads(run_agent("doctor", "--profile", str(ok), "--json").output)
        names = {c["name"]: c for c in report["checks"]}
        assert names["endpoint"]["ok"] and names["model"]["ok"]
        missing = write_profile(tmp_path, "ollama", srv.url, "llama9:999b")
        res = run_agent("doctor", "--profile", str(missing), "--json")
        assert res.exit_code == 1
        model_check = next(c for c in json.loads(res.output)["checks"] if c["name"] == "model")
        assert not model_check["ok"] and "qwen2.5:7b" in model_check["hint"]
    down = write_profile(tmp_path, "ollama", "http://127.0.0.1:9", "qwen2.5:7b")
    res = run_agent("doctor", "--profile", str(down), "--json")
    assert res.exit_code == 1
    endpoint = next(c for c in json.loads(res.output)["checks"] if c["name"] == "endpoint")
    assert "127.0.0.1:9" in endpoint["detail"] + (endpoint["hint"] or "")


def test_missing_key_is_a_failed_check_without_the_value(tmp_path, monkeypatch):
    with OpenAIServer() as srv:
        prof = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        monkeypatch.delenv("AGENTCLI_TEST_KEY")
        res = run_agent("doctor", "--profile", str(prof), "--json", "--offline")
        assert res.exit_code == 1
        key = next(c for c in json.loads(res.output)["checks"] if c["name"] == "api key")
        assert not key["ok"] and "AGENTCLI_TEST_KEY" in key["hint"]


def test_probe_learns_what_the_endpoint_does(tmp_path):
    from e2e_helpers import openai_call

    from agentcli.testing import ollama_body, openai_body

    with OpenAIServer(models=("gpt-4o",)) as srv:
        srv.queue(openai_body("", tool_calls=[openai_call("echo", {"text": "ping"}, "p1")]))
        prof = write_profile(tmp_path, "openai", srv.url, "gpt-4o")
        report = json.loads(run_agent("doctor", "--profile", str(prof), "--json", "--probe").output)
        assert next(c for c in report["checks"] if c["name"] == "probe")["ok"]
        assert report["learned"]["native_tools"]["value"] is True
        probe_req = srv.chat_requests()[0].body
        assert probe_req["tools"][0]["function"]["name"] == "echo"
    with OllamaServer(models=("qwen3:8b",)) as srv:
        srv.queue_error(400, {"error": "registry.ollama.ai/library/qwen3:8b does not support tools"})
        prof = write_profile(tmp_path, "ollama", srv.url, "qwen3:8b")
        report = json.loads(run_agent("doctor", "--profile", str(prof), "--json", "--probe").output)
        assert report["learned"]["native_tools"]["value"] is False
        forgot = json.loads(run_agent("doctor", "--profile", str(prof), "--json", "--offline", "--forget").output)
        assert forgot["learned"] == {}
    with OllamaServer(models=("mistral:7b",)) as srv:
        srv.queue(ollama_body('[TOOL_CALLS][{"name": "echo", "arguments": {"text": "ping"}}]'))
        prof = write_profile(tmp_path, "ollama", srv.url, "mistral:7b")
        report = json.loads(run_agent("doctor", "--profile", str(prof), "--json", "--probe").output)
        assert report["learned"]["text_dialect"]["value"] == "mistral"
