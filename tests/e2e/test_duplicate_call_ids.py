"""A model that repeats call ids (c1, c2, c1 in one reply; the same id every turn): each call keeps its
own id, result and label, and history goes back with ids the API accepts, unique and paired."""

from __future__ import annotations

import json

import pytest
from e2e_helpers import openai_call, run_agent, write_profile

from agentcli.testing import AnthropicServer, OpenAIServer, anthropic_body, openai_body

CALLS = [("c1", "list_files", {"path": "."}), ("c2", "read_file", {"path": "calc.py"}),
         ("c1", "read_file", {"path": "check.py"})]


def _openai_pairs(body: dict) -> list[tuple[str, str, str]]:
    calls = {c["id"]: c["function"]["name"] for m in body["messages"] if m["role"] == "assistant"
             for c in m.get("tool_calls") or []}
    return [(m["tool_call_id"], calls.get(m["tool_call_id"], "?"), m["content"]) for m in body["messages"]
            if m["role"] == "tool"]


def _anthropic_pairs(body: dict) -> list[tuple[str, str, str]]:
    blocks = [b for m in body["messages"] for b in m["content"]]
    calls = {b["id"]: b["name"] for b in blocks if b["type"] == "tool_use"}
    return [(b["tool_use_id"], calls.get(b["tool_use_id"], "?"), json.dumps(b.get("content")))
            for b in blocks if b["type"] == "tool_result"]


@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_repeated_ids_are_made_unique_and_stay_paired(tmp_path, workspace, api, stream):
    if api == "openai":
        srv_cls, model, pairs = OpenAIServer, "gpt-4o", _openai_pairs
        first = openai_body("", tool_calls=[openai_call(n, a, i) for i, n, a in CALLS])
        again = openai_body("", tool_calls=[openai_call("list_files", {"path": "."}, "c1")])
        done = openai_body("Three files.")
    else:
        srv_cls, model, pairs = AnthropicServer, "claude-sonnet-4-5", _anthropic_pairs
        first = anthropic_body("", tool_uses=[{"type": "tool_use", "id": i, "name": n, "input": a} for i, n, a in CALLS])
        again = anthropic_body("", tool_uses=[{"type": "tool_use", "id": "c1", "name": "list_files",
                                               "input": {"path": "."}}])
        done = anthropic_body("Three files.")
    with srv_cls() as srv:
        srv.queue(first).queue(again).queue(done)
        profile = write_profile(tmp_path, api, srv.url, model, stream=stream)
        res = run_agent("run", "look around", "--profile", str(profile), "--workspace", str(workspace), "--yes",
                        "--json")
        last = srv.chat_requests()[-1].body
    assert res.exit_code == 0, res.output
    events = [json.loads(line) for line in res.output.splitlines() if line.startswith("{")]
    finished = [e for e in events if e.get("event") == "tool_result"]
    ids = [e["call"]["id"] for e in finished]
    assert len(ids) == 4 and len(set(ids[:3])) == 3, ids  # one reply's calls are told apart
    assert [e["call"]["name"] for e in finished][:3] == ["list_files", "read_file", "read_file"]
    sent = pairs(last)
    assert len(sent) == 4 and len({i for i, _, _ in sent}) == 4, sent  # unique in the conversation
    for _, name, content in sent:  # each result under the id of the call that produced it
        assert name != "?", sent
        if name == "read_file":
            assert "calc" in content or "add" in content, sent
        else:
            assert "calc.py" in content and "check.py" in content, sent
