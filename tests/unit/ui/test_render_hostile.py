"""Every renderer shows untrusted text as written: never markup, never a hidden character, never a crash.

Each test renders generated strings full of `[`, `]`, `\\`, `/`, controls, bidi, tag and
zero-width characters, lone surrogates and emoji through one renderer (run, chat, approval,
doctor, parse, eval, sessions, tools) into a captured console, and checks that the output holds
the input's visible escape and that no character in the output is one `visible` would hide.
"""

from __future__ import annotations

import asyncio
import io
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console

from agentcli.core.escape import visible
from agentcli.core.events import (
    Checkpoint,
    CheckpointKind,
    Done,
    Notice,
    RetryScheduled,
    StreamEvent,
    StreamKind,
    ToolFinished,
    ToolStarted,
)
from agentcli.core.types import Message, ParsedResponse, Repair, Role, ToolCall, ToolResult

HOSTILE = (
    "[]/\\=#:()'\" ab[/x][link=https://evil.example]click[/link][bold red]:smile:"
    "\x00\x07\x08\x1b\x7f\x85\x9b\u061c\u115f\u200b\u200e\u202e\u2066\u2069\u2028\u3164\ufeff\uffa0"
    "\U000e0041\U000e007f\ud800\udcff\U0001f600é"
)
hostile = st.text(alphabet=st.sampled_from(HOSTILE), min_size=1, max_size=60)
one_line = hostile.map(lambda s: s.replace("\u2028", "").replace("\x85", ""))
FAST = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture
def screen(monkeypatch):
    """Every console the UI makes writes into one buffer, wide enough that nothing wraps."""
    import agentcli.ui.approve as approve
    import agentcli.ui.console as console
    import agentcli.ui.render as render

    buf = io.StringIO()

    def make_console(stderr: bool = False) -> Console:  # the real console class, writing into `buf`
        return render._safe_console_class()(file=buf, width=10_000, highlight=False, soft_wrap=True, markup=False,
                                            emoji=False, color_system=None, force_terminal=False)

    monkeypatch.setattr(render, "make_console", make_console)
    monkeypatch.setattr(console, "make_console", make_console)
    monkeypatch.setattr(approve, "make_console", make_console)
    # Listings that skip rich on a plain stdout (sessions) render through the console here; their
    # plain lines are compared with the console's in test_sessions_plain.
    monkeypatch.setattr(console, "plain_width", lambda: None)

    def take() -> str:
        out = buf.getvalue()
        buf.seek(0)
        buf.truncate()
        return out

    return take


def _clean(out: str) -> None:
    """Nothing the terminal would hide or reinterpret reached it."""
    assert visible(out) == out, [c for c in out if visible(c) != c][:5]


def _has(out: str, s: str) -> None:
    assert visible(s) in out, (visible(s), out[:500])


@FAST
@given(s=one_line)
def test_run_renderer(screen, s):
    from agentcli.ui.render import JsonRenderer, TerminalRenderer

    call = ToolCall(name="read_file", arguments={"path": s}, id="c1")
    events = [
        StreamEvent(StreamKind.TEXT, text=s), StreamEvent(StreamKind.DONE),
        StreamEvent(StreamKind.THINKING, text=s), StreamEvent(StreamKind.DONE),
        ToolStarted(call), ToolFinished(call, ToolResult("c1", "read_file", True, s)),
        ToolFinished(call, ToolResult("c1", "read_file", False, s, error=None)),
        Notice("warning", s, "x"), RetryScheduled(reason=s, delay_s=1.0, attempt=1),
        Done("error", answer="answer " + s, error=s, files_changed=[s]),
    ]
    render = TerminalRenderer()
    for ev in events:
        render(ev)
    out = screen()
    _clean(out)
    _has(out, s)
    _has(out, "answer " + s)
    stream = io.StringIO()
    as_json = JsonRenderer(stream)
    for ev in events:
        as_json(ev)
    for line in stream.getvalue().splitlines():
        json.loads(line)  # every line is JSON, whatever the strings held
    stream.getvalue().encode("utf-8")


@FAST
@given(s=one_line)
def test_chat_slash_commands(screen, s):
    from agentcli.ui.slash import Repl, dispatch

    class _Session:
        history = [
            Message(Role.USER, text=s),
            Message(Role.ASSISTANT, text=s, tool_calls=[ToolCall(name="read_file", arguments={"p": s})]),
            Message(Role.TOOL, tool_results=[ToolResult("c", "read_file", True, s)]),
        ]

    repl = Repl(_Session(), __import__("agentcli.ui.render", fromlist=["make_console"]).make_console())
    dispatch(repl, "/history")
    from agentcli.ui.slash import COMMANDS

    if s.replace(" ", "").strip().lower() not in COMMANDS:  # a real command name would run it on a fake session
        dispatch(repl, "/" + s.replace(" ", ""))
    out = screen()
    _clean(out)
    _has(out, s.strip()[:80] if s.strip() else "")


def _decide(cp: Checkpoint, keys: list[str]) -> str:
    from agentcli.ui.approve import TerminalApprover

    answers = iter(keys)
    approver = TerminalApprover(input_fn=lambda _p: next(answers))
    return asyncio.run(approver.decide(cp)).action


@FAST
@given(s=hostile)
def test_approval_view(screen, s):
    cp = Checkpoint(CheckpointKind.APPROVE_TOOL, s, ToolCall(name="bash", arguments={"command": s, "x": s}),
                    preview=s, options=("yes", "no"))
    assert _decide(cp, ["n"]) == "no"
    out = screen()
    _clean(out)
    lines = s.replace("\r\n", "\n").split("\n")
    for line in lines:
        if line.strip():
            assert visible(line, strict=True) in out
    assert f"{len(lines)} line" in out


@FAST
@given(s=one_line)
def test_doctor_panel(screen, s):
    from agentcli.ui.doctor import render

    report = {
        "profile": s, "source": s, "provider": "openai", "url": s,
        "model": {"id": s, "family": s, "version": [1], "size": None, "size_label": None, "variant": s, "custom": True},
        "capabilities": {"native_tools": True, s: s}, "capability_sources": {s: s},
        "formats": {"tools": s, "definition": s, "call_parser": [s], "result": s, "notes": [s]},
        "checks": [{"name": s, "ok": False, "warning": False, "detail": s, "hint": s}],
        "learned": {}, "warnings": [s],
    }
    render(report)
    out = screen()
    _clean(out)
    _has(out, s)


@FAST
@given(s=one_line)
def test_parse_view(screen, s):
    from agentcli.cli.commands.parse import _show

    resp = ParsedResponse(text=s, thinking=s, tool_calls=[ToolCall(name=s, arguments={"a": s}, dialect=s)],
                          repairs=[Repair("json_repair", s)])
    _show(resp)
    out = screen()
    _clean(out)
    _has(out, s)


@FAST
@given(s=one_line)
def test_eval_tables(screen, s):
    from agentcli.evals import report
    from agentcli.evals.runner import Trial
    from agentcli.ui.render import make_console

    trials = [Trial(subject=s, scenario=s, layers="on", index=0, passed=False, reason=s, stop="error")]
    console = make_console()
    for table in report.tables(trials):
        console.print(table)
    out = screen()
    _clean(out)


@FAST
@given(s=one_line)
def test_sessions_list(screen, s, tmp_path_factory, monkeypatch):
    from agentcli.agent.store import Transcript, sessions_dir
    from agentcli.cli.commands.sessions import execute

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))
    t = Transcript(sessions_dir() / "20260101-000000-abcdef.jsonl")
    t.write("session", goal=s, model=s, profile=s)
    t.close()
    assert execute(all_=True) == 0  # a session of no workspace: listed with --all
    out = screen()
    _clean(out)
    # What the transcript gives back: JSON joins a lone high and low surrogate written apart into one character.
    from agentcli.core import jsonsafe

    _has(out, json.loads(jsonsafe.dumps(s[:50])))


@FAST
@given(s=one_line)
def test_tools_table(screen, s, monkeypatch):
    from agentcli.cli.commands import tools

    real_rows = tools.rows

    def rows(*a, **k):
        return [*real_rows(*a, **k), {"name": s, "tier": "crawl", "read_only": True, "visible": True, "description": s}]

    monkeypatch.setattr(tools, "rows", rows)
    assert tools.execute() == 0
    out = screen()
    _clean(out)
