"""A server that fails `tool_choice: "required"` (bytes from llama-cpp-python's chatml-function-calling):
not retried; the session learns it and asks again with "auto"."""

from __future__ import annotations

import json
from pathlib import Path

from e2e_helpers import run_agent, write_profile

from agentcli.testing.servers import OpenAIServer, Reply
from agentcli.testing.streams import openai_body

REAL = Path(__file__).parents[1] / "fixtures" / "real" / "llama_required_rejected.json"


def test_required_rejected_is_learned_not_retried(tmp_path, workspace):
    captured = json.loads(REAL.read_text())
    assert captured["request"]["body"]["tool_choice"] == "required"
    resp = captured["response"]
    with OpenAIServer() as srv:
        srv.queue_reply(Reply(body=resp["body"].encode(), status=resp["status"], content_type=resp["content_type"]))
        srv.queue(openai_body("Nothing to do.")).queue(openai_body("Hi."))
        profile = write_profile(tmp_path, "openai", srv.url, "tiny", stream=False, tools={"tool_choice": "required"},
                                capabilities={"native_tools": True})
        result = run_agent("run", "say hi", "-p", str(profile), "-w", str(workspace), "--json")
        assert result.exit_code == 0, result.output
        assert [r.body.get("tool_choice") for r in srv.chat_requests()] == ["required", "auto"]
        assert "fails forced tool calls" in result.output
        again = run_agent("run", "say hi", "-p", str(profile), "-w", str(workspace), "--json")  # remembered
        assert again.exit_code == 0 and srv.chat_requests()[-1].body.get("tool_choice") == "auto"
