"""The loop reads tool behaviour from the spec, never from tool names: a tool from outside
that declares `ends_run`, `interactive` or `needs_approval` gets the same treatment as a built-in."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest
from loop_helpers import Recorder, scripted_session

import agentcli.agent.decide as decide_module
import agentcli.agent.loop as loop_module
from agentcli.agent.approval import Decision
from agentcli.agent.loop import Agent
from agentcli.agent.session import Session
from agentcli.core.events import CheckpointKind, Done
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext
from agentcli.tools.registry import BUILTINS


class Outside(BuiltinTool):
    """A tool as a plugin or an MCP server would bring it: only its spec says what it does."""

    def __init__(self, spec: Tool) -> None:
        self.spec = spec
        self.runs: list[dict[str, Any]] = []

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        self.runs.append(args)
        return f"result:{args.get('x', '')}"

    def preview(self, args: dict[str, Any], ctx: ToolContext) -> str:
        return f"question about {args.get('x', '')}"


def _spec(name: str, **behaviour: Any) -> Tool:
    params = {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}
    return Tool(name=name, description="outside tool", parameters=params, **behaviour)


def _call(name: str, x: str) -> dict[str, Any]:
    fn = {"name": name, "arguments": json.dumps({"x": x})}
    msg = {"role": "assistant", "content": None, "tool_calls": [{"id": f"c-{name}", "type": "function", "function": fn}]}
    return {"openai": {"choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}}


def _session(tmp_path: Path, turns: list[dict[str, Any]], tool: Outside) -> Session:
    session = scripted_session(tmp_path, turns)
    session.registry.register(tool)
    return session


async def _run(session, approver, goal: str) -> list[Any]:
    return [ev async for ev in Agent(session, approver).run(goal)]


async def test_a_tool_that_ends_the_run_ends_it_with_its_result(tmp_path: Path) -> None:
    tool = Outside(_spec("finish_up", ends_run=True))
    s = _session(tmp_path, [_call("finish_up", "all done"), {"text": "never asked"}], tool)
    events = await _run(s, Recorder(), "go")
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "submitted" and done.answer == "result:all done"


async def test_an_interactive_tool_asks_the_user_with_its_preview(tmp_path: Path) -> None:
    tool = Outside(_spec("consult", interactive=True))
    s = _session(tmp_path, [_call("consult", "colour"), {"text": "ok"}], tool)
    approver = Recorder(Decision("answer", text="blue"))
    events = await _run(s, approver, "go")
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.ASK_USER]
    assert approver.seen[0].message == "question about colour"
    assert tool.runs == []  # the loop answers it; the tool itself never runs
    assert events[-1].stop == "answered"


async def test_a_tool_that_needs_approval_asks_and_a_refusal_does_not_run_it(tmp_path: Path) -> None:
    tool = Outside(_spec("deploy", read_only=False, needs_approval=True, tier=Tier.CRAWL))
    s = _session(tmp_path, [_call("deploy", "prod"), {"text": "ok"}], tool)
    approver = Recorder(Decision("no"))
    await _run(s, approver, "go")
    assert [cp.kind for cp in approver.seen] == [CheckpointKind.APPROVE_TOOL]
    assert tool.runs == []


async def test_a_writing_tool_that_needs_no_approval_runs_unasked(tmp_path: Path) -> None:
    tool = Outside(_spec("note", read_only=False, needs_approval=False, tier=Tier.CRAWL))
    s = _session(tmp_path, [_call("note", "n1"), {"text": "ok"}], tool)
    approver = Recorder()
    await _run(s, approver, "go")
    assert approver.seen == [] and tool.runs == [{"x": "n1"}]


@pytest.mark.parametrize("module", [loop_module, decide_module], ids=lambda m: m.__name__)
def test_the_loop_never_names_a_tool(module: object) -> None:
    """Behaviour hangs on the spec: no built-in tool name appears as a string in the loop or its decisions."""
    tree = ast.parse(Path(module.__file__).read_text())  # type: ignore[attr-defined]
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    named = sorted(strings & set(BUILTINS))
    assert named == [], f"{module.__name__} branches on tool names: {named}"  # type: ignore[attr-defined]


def test_every_stop_reason_has_an_exit_code() -> None:
    from agentcli.cli.errors import EXIT_CODES
    from agentcli.core.events import StopReason

    assert set(EXIT_CODES) == set(StopReason)
