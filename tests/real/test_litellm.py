"""agentcli through the LiteLLM proxy, at the pinned version and the newest that installs: its OpenAI
chat route, its Anthropic /v1/messages route and its Gemini generateContent route (all relaying to
the llama.cpp server), its mock models for rate limits and server errors, and its master key."""

from __future__ import annotations

import json

import pytest
from conftest import LONG_ANSWER
from proxy import Answer, Call
from realkit import write_profile

ANSWER = "The notes say hello."
GOAL = "List the files, then read notes.txt and tell me what it says."


def script() -> list:
    return [Call("list_files", {"path": "."}), Call("read_file", {"path": "notes.txt"}), Answer(ANSWER)]


def run(agent, profile, workspace, *extra):
    return agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", *extra)


ROUTE_URL = {"openai": "/v1", "anthropic": "", "gemini": ""}
GEMINI_PINNED_REASON = ("LiteLLM 1.80's Gemini route drops every functionDeclaration's parameters, and "
                        "llama-cpp-python refuses the tools (HTTP 500); fixed in the newer proxy")


@pytest.mark.parametrize("provider", list(ROUTE_URL))
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_two_tool_task_through_litellm(litellm_server, litellm_route, agent, workspace, tmp_path, provider, stream,
                                      request):
    if provider == "gemini" and litellm_server.which == "pinned":
        request.applymarker(pytest.mark.xfail(strict=True, reason=GEMINI_PINNED_REASON))
    litellm_route.script = script()
    url = litellm_server.url + ROUTE_URL[provider]
    profile = write_profile(tmp_path, url, provider=provider, stream=stream)
    result = run(agent, profile, workspace, "--json")
    assert result.code == 0, result.stderr + result.stdout[-3000:]
    ran = [(e["call"]["name"], e["call"]["arguments"], e["result"]["ok"]) for e in result.of("tool_result")]
    assert ran == [("list_files", {"path": "."}, True), ("read_file", {"path": "notes.txt"}, True)], ran
    assert "hello from the notes file" in json.dumps([e["result"]["content"] for e in result.of("tool_result")])
    assert result.of("done")[-1]["answer"] == ANSWER
    assert len(litellm_route.chat_requests()) == 3


@pytest.mark.parametrize("provider", list(ROUTE_URL))
def test_a_missing_key_is_a_real_401_said_once(litellm_server, agent, workspace, tmp_path, provider):
    """The proxy has a master key; a profile that sends none is refused (401), and agentcli says so, once."""
    profile = write_profile(tmp_path, litellm_server.url + ROUTE_URL[provider], provider=provider, key_env="")
    result = run(agent, profile, workspace, "--json")
    assert result.code != 0 and "Traceback" not in result.stderr, result.stderr
    said = (result.of("done")[-1]["error"] if result.of("done") else result.stderr).lower()
    assert "401" in said or "key" in said or "auth" in said, said
    assert not result.of("retry"), result.stdout[-2000:]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_unknown_model_is_said_on_the_first_try(litellm_server, agent, workspace, tmp_path, provider):
    url = litellm_server.url + ("/v1" if provider == "openai" else "")
    profile = write_profile(tmp_path, url, provider=provider, model="no-such-model")
    result = run(agent, profile, workspace)
    assert result.code == 1
    assert "does not serve model 'no-such-model'" in result.stderr, result.stderr
    assert "attempts" not in result.stderr and "retry" not in result.stderr.lower(), result.stderr


@pytest.mark.parametrize(("model", "words"), [("mock-429", "rate limit"), ("mock-500", "failing or overloaded")])
def test_mock_errors_are_retried_then_explained(litellm_server, agent, workspace, tmp_path, model, words):
    profile = write_profile(tmp_path, litellm_server.url + "/v1", model=model, max_retries=1)
    result = run(agent, profile, workspace, "--json")
    assert result.code == 1, result.stderr
    retries = result.of("retry")
    assert len(retries) == 1, result.stdout[-2000:]
    done = result.of("done")[-1]
    assert words in done["error"] and "after 2 attempts" in done["error"], done["error"]


@pytest.mark.parametrize(("model", "answer"), [("mock-answer", ANSWER), ("mock-long", LONG_ANSWER)],
                         ids=["short", "long"])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_mock_answer(litellm_server, agent, workspace, tmp_path, stream, model, answer):
    """A long whole reply: LiteLLM 1.106 gzipped it (issue 30); 1.108 gzips only GET dashboard routes."""
    profile = write_profile(tmp_path, litellm_server.url + "/v1", model=model, stream=stream)
    result = run(agent, profile, workspace, "--json")
    assert result.code == 0, result.stderr + result.stdout[-2000:]
    assert result.of("done")[-1]["answer"] == answer
