"""A start that names a command builds that command alone; whatever it is given, it answers as the
whole app does (help, usage errors, unknown options), and anything else runs the whole app."""

from __future__ import annotations

import os
import sys

import pytest
import typer
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.core import TyperGroup
from typer.testing import CliRunner

from agentcli.cli import main as main_module
from agentcli.cli.app import app, app_for, listing

runner = CliRunner()
NAMES = sorted({typer.main.get_command_name(c.name or c.callback.__name__) for c in app.registered_commands}
               | {g.name for g in app.registered_groups if g.name})
GROUPS = {g.name for g in app.registered_groups}
# Never a command body: help (eager), a missing value, an unknown option; a group's sub-commands'
# help, and an unknown sub-command.
TAILS = [["--help"], ["--bogus"], ["-p"], ["--tier"], ["--version"], ["--json", "--help"], ["list", "--help"],
         ["-m"], ["--install-completion"], ["--show-completion", "bash"]]
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
    for argv in (["agent", "-h", "-V"], ["agent", "--help", "run"], ["agent", "nosuch"], ["agent", "sesions"]):
        assert app_for(argv, environ={}) is app  # "did you mean" and anything that may run a command see every command
    assert app_for(["agent", "run"], environ={"_AGENT_COMPLETE": "bash_complete"}) is app
    # the root's completion options come before a command's name: a named command's app builds none
    assert [p.name for p in typer.main.get_command(app_for(["agent", "sessions"], environ={})).params] == ["version"]
    assert "install_completion" in [p.name for p in typer.main.get_command(app_for(["agent", "-V"], environ={})).params]
    assert {*NAMES} >= {"run", "chat", "sessions", "tools", "profiles", "mcp", "eval"}


@given(tail=st.lists(st.sampled_from(["run", "--help", "--bogus", "-V", "--version", "sessions", "x",
                                      "--install-completion", "--show-completion"]), max_size=3),
       flag=st.sampled_from(["--version", "-V"]))
@settings(max_examples=60, deadline=None)
def test_version_first_answers_as_the_whole_app(flag, tail):
    slim = app_for(["agent", flag, *tail], environ={})
    assert not slim.registered_commands and not slim.registered_groups
    assert _out(slim, [flag, *tail]) == _out(app, [flag, *tail])


@pytest.mark.parametrize("args", [["--help"], ["-h"], []])
def test_the_help_page_is_built_from_summaries_and_reads_as_the_whole_app(args):
    """`agent --help` (and bare `agent`, which in a pipe prints the page) lists every command by name
    and help: the app it runs builds no parameter of any command, and prints the very page the
    whole app prints."""
    slim = app_for(["agent", *args], environ={})
    assert slim is not app and _out(slim, args) == _out(app, args)
    group = typer.main.get_command(slim)
    assert isinstance(group, TyperGroup)
    built = [*group.commands.values(),
             *(c for g in group.commands.values() if isinstance(g, TyperGroup) for c in g.commands.values())]
    assert len(built) > len(NAMES) and not [c.name for c in built if c.params]
    assert [p.name for p in group.params] == [p.name for p in typer.main.get_command(app).params]


@settings(max_examples=40, deadline=None)
@given(columns=st.integers(min_value=20, max_value=240))
def test_the_help_page_wraps_as_the_whole_app_at_any_width(columns):
    slim = listing(app)
    env = {"COLUMNS": str(columns)}
    assert runner.invoke(slim, ["--help"], prog_name="agent", env=env).output == \
        runner.invoke(app, ["--help"], prog_name="agent", env=env).output


@pytest.mark.parametrize("flag", ["--version", "-V"])
def test_the_version_answered_before_typer_is_the_apps(flag, capsys, monkeypatch):
    """`agent --version` alone is answered by the entry, without typer: the same line and exit code."""
    monkeypatch.setattr(sys, "argv", ["agent", flag])
    for name in [k for k in os.environ if k.endswith("_COMPLETE")]:
        monkeypatch.delenv(name)
    monkeypatch.setattr("agentcli.cli.app.app_for", None)  # the entry must not reach the app
    with pytest.raises(SystemExit) as exit_:
        main_module.main()
    assert (exit_.value.code, capsys.readouterr().out) == _out(app, [flag])


@given(argv=st.lists(st.sampled_from(["--version", "-V", "--help", "run", "x", "--"]), max_size=3),
       completing=st.booleans())
def test_only_the_version_flag_alone_is_answered_before_typer(argv, completing):
    environ = {"_AGENT_COMPLETE": "bash_complete"} if completing else {}
    answered = main_module.answers_version(["agent", *argv], environ)
    assert answered == (len(argv) == 1 and argv[0] in ("--version", "-V") and not completing)
