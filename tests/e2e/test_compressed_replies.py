"""The two-tool task (list the files, read notes.txt, answer) through a server that compresses every
reply, for every provider, streamed and not: `agent run` end to end.

Gateways, nginx and hosted vendors compress JSON when the client accepts it; a body decoded twice
failed every non-streamed request.
"""

from __future__ import annotations

import json

import pytest
from e2e_helpers import run_agent, write_profile

from agentcli.testing import anthropic_body, gemini_body, ollama_body, openai_body
from agentcli.testing.servers import compressing_server

# provider -> (API shape, model)
PROVIDERS = {
    "openai": ("openai", "gpt-4o"),
    "openrouter": ("openai", "openai/gpt-4o"),
    "anthropic": ("anthropic", "claude-sonnet-4-20250514"),
    "gemini": ("gemini", "gemini-2.5-flash"),
    "ollama": ("ollama", "qwen3:8b"),
}
ANSWER = "notes.txt says: ship on Friday."


def turn(api: str, call: tuple[str, dict] | None, n: int) -> dict:
    """One assistant turn in `api`'s whole-reply shape: a single tool call, or the final answer."""
    if call is None:
        return {"openai": openai_body, "anthropic": anthropic_body, "ollama": ollama_body, "gemini": gemini_body}[api](ANSWER)
    name, args = call
    if api == "openai":
        return openai_body("", tool_calls=[{"id": f"c{n}", "type": "function",
                                            "function": {"name": name, "arguments": json.dumps(args)}}])
    if api == "anthropic":
        return anthropic_body("", tool_uses=[{"type": "tool_use", "id": f"toolu_{n}", "name": name, "input": args}])
    if api == "ollama":
        return ollama_body("", tool_calls=[{"function": {"name": name, "arguments": args}}])
    return gemini_body("", calls=[{"name": name, "args": args}])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("coding", ["gzip", "deflate"])
@pytest.mark.parametrize("provider", list(PROVIDERS))
def test_two_tool_task_through_a_compressing_server(tmp_path, workspace, provider, coding, stream):
    api, model = PROVIDERS[provider]
    (workspace / "notes.txt").write_text("ship on Friday\n")
    with compressing_server(api, coding, models=(model,)) as srv:
        srv.queue(turn(api, ("list_files", {"path": "."}), 1))
        srv.queue(turn(api, ("read_file", {"path": "notes.txt"}), 2))
        srv.queue(turn(api, None, 3))
        profile = write_profile(tmp_path, provider, srv.url, model, stream=stream)
        res = run_agent("run", "list the files, then read notes.txt and tell me what it says", "--profile",
                        str(profile), "--workspace", str(workspace), "--yes")
        assert res.exit_code == 0, res.output
        reqs = srv.chat_requests()
        assert len(reqs) == 3 and srv.compressed == 3  # each reply compressed, each read on the first try
        assert all(srv.wants_stream(r) is stream for r in reqs)
        assert "notes.txt" in json.dumps(reqs[1].body)  # the listing went back to the model
        assert "ship on Friday" in json.dumps(reqs[2].body)  # and so did the file
    assert ANSWER in res.output
