"""`agent run` against a model that never stops: the run ends at request_timeout with a clear message
and exit 1, streamed or trickled, never a hang (asserted on the outcome, not the clock)."""

from __future__ import annotations

import pytest
from e2e_helpers import run_agent, write_profile

from agentcli.testing import openai_body
from agentcli.testing.servers import OpenAIServer


@pytest.mark.parametrize("kind", ["endless stream", "trickle"])
def test_a_reply_that_never_ends_ends_the_run(tmp_path, workspace, kind):
    with OpenAIServer() as srv:
        if kind == "endless stream":
            srv.queue_endless()
        else:
            srv.queue_trickle(openai_body("a long answer " * 50), byte_delay=0.02)
        profile = write_profile(tmp_path, "openai", srv.url, "gpt-4o", limits={"request_timeout": 0.5})
        res = run_agent("run", "say something", "--profile", str(profile), "--workspace", str(workspace))
        assert len(srv.chat_requests()) == 1  # not asked again: it would run just as long
    assert res.exit_code == 1, res.output
    assert "still arriving after limits.request_timeout (0.5 s)" in res.output
    assert "max_output_tokens" in res.output
