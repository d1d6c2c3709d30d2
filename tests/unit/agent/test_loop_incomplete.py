"""A reply that is empty or cut at the length limit is not an answer (real bytes from llama-cpp-python)."""

from __future__ import annotations

import json
from pathlib import Path

from loop_helpers import scripted_session

from agentcli.agent.approval import Decision
from agentcli.agent.loop import INCOMPLETE_PROMPTS, Agent
from agentcli.cli.errors import EXIT_CODES
from agentcli.core.events import Checkpoint, Done
from agentcli.core.types import Role

REAL = Path(__file__).parents[2] / "fixtures" / "real"


def real_body(name: str) -> dict:
    return json.loads(json.loads((REAL / f"{name}.json").read_text())["response"]["body"])


class Yes:
    async def decide(self, cp: Checkpoint) -> Decision:
        return Decision("yes")


def _session(tmp_path, turns):
    s = scripted_session(tmp_path, turns, interactive=False)
    s.tier = s.max_tier
    return s


async def _done(s, goal="say something") -> Done:
    events = [ev async for ev in Agent(s, Yes()).run(goal)]
    assert isinstance(events[-1], Done)
    return events[-1]


def _cut_call(name: str, arguments: str) -> dict:
    call = {"id": "c1", "type": "function", "function": {"name": name, "arguments": arguments}}
    return {"choices": [{"index": 0, "finish_reason": "length",
                         "message": {"role": "assistant", "content": "", "tool_calls": [call]}}]}


def test_the_captured_reply_really_was_cut():
    assert real_body("llama_length_whole")["choices"][0]["finish_reason"] == "length"


async def test_cut_twice_stops_incomplete_with_its_own_exit_code(tmp_path):
    cut = real_body("llama_length_whole")
    s = _session(tmp_path, [{"openai": cut}, {"openai": cut}])
    done = await _done(s)
    assert done.stop == "incomplete" and done.answer == "" and "length limit" in (done.error or "")
    assert EXIT_CODES["incomplete"] not in (0, 1, 2, 3)
    nudges = [m for m in s.history if m.role is Role.USER and m.text == INCOMPLETE_PROMPTS["length"]]
    assert len(nudges) == 1


async def test_cut_then_a_real_answer_is_answered(tmp_path):
    s = _session(tmp_path, [{"openai": real_body("llama_length_whole")}, {"text": "All done."}])
    done = await _done(s)
    assert (done.stop, done.answer) == ("answered", "All done.")


async def test_empty_twice_is_not_an_answer(tmp_path):
    s = _session(tmp_path, [{"text": ""}, {"text": "  "}])
    done = await _done(s)
    assert done.stop == "incomplete" and EXIT_CODES[done.stop] == 4


async def test_a_call_cut_at_the_length_limit_is_never_run(tmp_path):
    complete_looking = '{"path": "out.txt", "content": "partial"}'  # may look whole; the reply was still cut
    s = _session(tmp_path, [{"openai": _cut_call("write_file", complete_looking)}, {"text": "Stopped."}])
    done = await _done(s, "write out.txt")
    assert not (s.workspace / "out.txt").exists()
    assert done.tools_run == 0 and done.stop == "answered"
    results = [r for m in s.history if m.role is Role.TOOL for r in m.tool_results]
    assert len(results) == 1 and not results[0].ok and "length limit" in results[0].content
