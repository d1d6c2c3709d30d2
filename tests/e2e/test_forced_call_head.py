"""llama-cpp-python's chatml-function-calling can put a call's head (`functions.NAME:`) in the
message content, with no arguments. That is never the final answer: the model hears that the call
was malformed and is asked again, for every chunking of the stream and without streaming."""

from __future__ import annotations

import pytest
from e2e_helpers import openai_call, run_agent, tool_messages, write_profile

from agentcli.testing import OpenAIServer, openai_body


@pytest.mark.parametrize("stream", [True, False], ids=["streamed", "whole"])
def test_a_call_head_in_content_is_a_malformed_call_not_the_answer(tmp_path, workspace, stream):
    with OpenAIServer() as srv:
        srv.queue(openai_body("functions.list_files:"))
        srv.queue(openai_body("", tool_calls=[openai_call("list_files", {"path": "."}, "c1")]))
        srv.queue(openai_body("Two files."))
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o", stream=stream)
        res = run_agent("run", "what files are there?", "--profile", str(profile), "--workspace", str(workspace),
                        "--yes", "--json")
        reqs = srv.chat_requests()
    assert res.exit_code == 0, res.output
    assert len(reqs) == 3, [r.body["messages"][-1] for r in reqs]
    said = " ".join(str(m.get("content")) for m in reqs[1].body["messages"][2:])
    assert "without its arguments" in said, said
    assert '"answer": "Two files."' in res.output and '"answer": "functions.list_files:"' not in res.output
    assert tool_messages(reqs[2].body)[-1]["tool_call_id"] == "c1"  # the call written again ran
