"""A start that names a command builds that command alone; whatever it is given, it answers as the
whole app does (help, usage errors, unknown options), and anything else runs the whole app."""

from __future__ import annotations

import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from agentcli.cli.main import app, app_for

runner = CliRunner()
NAMES = sorted({typer.main.get_command_name(c.name or c.callback.__name__) for c in app.registered_commands}
               | {g.name for g in app.registered_groups if g.name})
GROUPS = {g.name for g in app.registered_groups}
# Never a command body: help (eager), a missing value, an unknown option; a group's sub-commands'
# help, and an unknown sub-command.
TAILS = [["--help"], ["--bogus"], ["-p"], ["--tier"], ["--version"], ["--json", "--help"], ["list", "--help"],
         ["-m"]]
GROUP_TAILS = [["nope"], ["add", "--help"], ["remove", "--help"], ["new", "--help"], ["show", "--help"], []]


def _out(target, args):
    res = runner.invoke(target, args, prog_name="agent")
    return res.exit_code, res.output


@settings(max_examples=120, deadline=None)
@given(name=st.sampled_from(NAMES), data=st.data())
def test_the_one_command_app_answers_as_the_whole_app(name, data):
    tail = data.draw(st.sampled_from(TAILS + (GROUP_TAILS if name in GROUPS else [])))
    slim = app_for(["agent", name, *tail], environ={})
    assert slim is not app and len(slim.registered_commands) + len(slim.registered_groups) == 1
    assert _out(slim, [name, *tail]) == _out(app, [name, *tail])


def test_builds_fewer_commands_only_where_a_command_is_named():
    assert len(app_for(["agent", "sessions"], environ={}).registered_commands) == 1
    assert app_for(["agent", "profiles", "list"], environ={}).registered_groups[0].name == "profiles"
    for argv in (["agent"], ["agent", "--help"], ["agent", "-h", "-V"], ["agent", "nosuch"], ["agent", "sesions"]):
        assert app_for(argv, environ={}) is app  # listings and "did you mean" see every command
    assert app_for(["agent", "run"], environ={"_AGENT_COMPLETE": "bash_complete"}) is app
    assert {*NAMES} >= {"run", "chat", "sessions", "tools", "profiles", "mcp", "eval"}


@given(tail=st.lists(st.sampled_from(["run", "--help", "--bogus", "-V", "--version", "sessions", "x"]), max_size=3),
       flag=st.sampled_from(["--version", "-V"]))
@settings(max_examples=60, deadline=None)
def test_version_first_answers_as_the_whole_app(flag, tail):
    slim = app_for(["agent", flag, *tail], environ={})
    assert not slim.registered_commands and not slim.registered_groups
    assert _out(slim, [flag, *tail]) == _out(app, [flag, *tail])
