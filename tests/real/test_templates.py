"""agentcli against the chat templates local users run: Llama 3.1, Mistral v0.3, Qwen 2.5 and
llama-cpp-python's chatml-function-calling, each rendering every request on the real server.

The published templates are strict where agentcli went wrong: Mistral's raises on a call id that is
not 9 characters, Llama 3.1's on an assistant message with two calls. So the server is the oracle:
a history agentcli renders wrongly is an HTTP 500 with the template's words. Each run is the
two-tool task with a parallel turn (two calls at once), a second tool turn, an answer, and then a
follow-up run (`-c`) that sends the whole history again: streamed and not, native and emulated.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from conftest import ServerProcess, llama_argv, start_server
from proxy import Answer, Call, Parallel, ScriptedProxy
from realkit import write_profile

ANSWER = "The notes say hello."
FOLLOW_UP_ANSWER = "main.py prints hi."
GOAL = "List the files, then read notes.txt and tell me what it says."
FOLLOW_UP = "And what does main.py do?"
N_CTX = 16384  # the tiny tokenizer spends many tokens on Llama 3.1's indented tool list


@dataclass(frozen=True)
class Template:
    """One served configuration: the template file (None: a --chat_format), the model id agentcli
    resolves its capabilities from, and the server's own chat format when it has one."""

    file: str | None
    model: str
    chat_format: str | None = None


TEMPLATES = {
    "llama3.1": Template("llama3.1_json", "Meta-Llama-3.1-8B-Instruct"),
    "mistral-v0.3": Template("mistral_v3", "Mistral-7B-Instruct-v0.3"),
    "qwen2.5": Template("qwen2.5", "Qwen2.5-7B-Instruct"),
    "chatml-function-calling": Template(None, "tiny", "chatml-function-calling"),
}


@pytest.fixture(scope="module", params=list(TEMPLATES))
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServerProcess]]:
    """One llama-cpp-python server per template, shared by the module's tests and stopped after them."""
    import tinymodel

    name = request.param
    t = TEMPLATES[name]
    cache = Path(os.environ.get("AGENTCLI_REAL_CACHE") or Path(sys.prefix) / "real-cache")
    model = tinymodel.cached(cache, t.file)
    extra = ("--chat_format", t.chat_format) if t.chat_format else ()
    log = tmp_path_factory.mktemp("template-logs") / f"{name}.log"
    server = start_server(lambda port: llama_argv(model, t.model, port, *extra, n_ctx=N_CTX), "/v1/models", log)
    yield name, server
    server.stop()


@pytest.fixture
def proxy(served: tuple[str, ServerProcess]) -> Iterator[ScriptedProxy]:
    p = ScriptedProxy(served[1].url, advance="replies").start()
    yield p
    p.stop()


def script(style: str) -> list:
    return [Parallel([Call("list_files", {"path": "."}, style), Call("read_file", {"path": "notes.txt"}, style)]),
            Call("read_file", {"path": "main.py"}, style), Answer(ANSWER),
            Call("read_file", {"path": "main.py"}, style), Answer(FOLLOW_UP_ANSWER)]


def ran(result) -> list[tuple[str, dict, bool]]:
    return [(e["call"]["name"], e["call"]["arguments"], e["result"]["ok"]) for e in result.of("tool_result")]


@pytest.mark.parametrize("native", [True, False], ids=["native", "emulated"])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_two_tool_task_and_a_follow_up(served, proxy, agent, workspace, tmp_path, stream, native):
    name, _ = served
    t = TEMPLATES[name]
    proxy.script = script("native" if native else "hermes")
    profile = write_profile(tmp_path, proxy.url + "/v1", model=t.model, stream=stream, native=native,
                            tool_format=None if native else "hermes")
    first = agent("run", GOAL, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    refused = [e.body.decode(errors="replace")[:300] for e in proxy.exchanges if e.status != 200]
    assert first.code == 0, (refused, first.stderr[-2000:], first.stdout[-2000:])
    assert [(n, a) for n, a, _ in ran(first)] == [
        ("list_files", {"path": "."}), ("read_file", {"path": "notes.txt"}), ("read_file", {"path": "main.py"})]
    assert all(ok for *_, ok in ran(first)), ran(first)
    assert first.of("done")[-1]["answer"] == ANSWER

    second = agent("run", "-c", FOLLOW_UP, "-p", f"{profile}#real", "-w", str(workspace), "--yes", "--json")
    refused = [e.body.decode(errors="replace")[:300] for e in proxy.exchanges if e.status != 200]
    assert second.code == 0, (refused, second.stderr[-2000:], second.stdout[-2000:])
    assert second.of("done")[-1]["answer"] == FOLLOW_UP_ANSWER
    assert not refused, refused  # the template took every history, the whole run long

    last = proxy.chat_requests(original=True)[-1]
    assert GOAL in json.dumps(last) and FOLLOW_UP in json.dumps(last)  # the follow-up sent the whole history
    if native:
        check_native_history(t, last["messages"])


def check_native_history(t: Template, messages: list[dict]) -> None:
    """What made the template accept it: ids in its form, paired; one call per message where needed."""
    from agentcli.models import get_capability

    cap = get_capability(t.model)
    calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    results = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    ids = [c["id"] for c in calls]
    assert len(calls) == 4 and len(set(ids)) == 4 and sorted(ids) == sorted(results), (ids, results)
    if cap.call_id_format == "alnum9":
        assert all(re.fullmatch(r"[A-Za-z0-9]{9}", i) for i in ids), ids
    per_message = [len(m.get("tool_calls") or []) for m in messages if m["role"] == "assistant"]
    assert max(per_message) == (2 if cap.parallel_tools else 1), per_message


# -- the oracle bites: what agentcli used to send is refused by the same server ----------------------

BAD = {
    "mistral-v0.3": ("Tool call IDs should be alphanumeric strings with length 9!",
                     [("call_0123456789abcdef", "list_files")]),
    "llama3.1": ("This model only supports single tool-calls at once!",
                 [("call_1", "list_files"), ("call_2", "read_file")]),
}


def test_the_template_refuses_the_history_agentcli_used_to_send(served):
    name, server = served
    if name not in BAD:
        pytest.skip(f"the {name} template accepts any id and several calls per message")
    words, calls = BAD[name]
    messages = [{"role": "system", "content": "Be brief."}, {"role": "user", "content": GOAL},
                {"role": "assistant", "content": "", "tool_calls": [
                    {"id": cid, "type": "function", "function": {"name": n, "arguments": '{"path": "."}'}}
                    for cid, n in calls]}]
    messages += [{"role": "tool", "tool_call_id": cid, "content": "notes.txt"} for cid, _ in calls]
    resp = httpx.post(server.url + "/v1/chat/completions", timeout=120,
                      json={"model": TEMPLATES[name].model, "messages": messages, "max_tokens": 4})
    assert resp.status_code == 500 and words in resp.text, resp.text[:500]
