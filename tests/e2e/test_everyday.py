"""Everyday use through the real `agent` command: scriptable output, sessions per folder,
resuming with overrides, project instructions, the header's facts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentcli.cli.main import app


def agent(*args: str, input: str | None = None):
    return CliRunner().invoke(app, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    ws = tmp_path / "proj"
    ws.mkdir()
    (ws / "greeting.py").write_text('def greet():\n    print("helo")\n')
    return ws


def _events(res) -> list[dict]:
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_a_needed_approval_with_no_terminal_ends_with_exit_3_and_only_json_on_stdout(folder):
    res = agent("run", "Fix the typo in greeting.py", "--profile", "offline", "-w", str(folder), "--json")
    assert res.exit_code == 3
    events = _events(res)  # every stdout line is JSON (this raises otherwise)
    assert events[0]["event"] == "session_start" and events[0]["session_id"]
    assert events[0]["tier"] == "crawl" and events[0]["max_tier"] == "walk"  # never guessed from "Fix"
    done = events[-1]
    assert done["event"] == "done" and done["stop"] == "refused" and "no terminal" in done["error"]
    assert 'print("helo")' in (folder / "greeting.py").read_text()


def test_quiet_prints_only_the_answer_and_the_goal_can_come_from_stdin(folder):
    for args in (["run", "-q"], ["run", "-", "-q"]):
        res = agent(*args, "--profile", "offline", "-w", str(folder), input="what does greeting.py do\n")
        assert res.exit_code == 0, res.output
        assert res.stdout.startswith("I am the offline demo model") and res.stdout.count("\n") == 1
    res = agent("run", "-", "--profile", "offline", "-w", str(folder), input="   \n")
    assert res.exit_code == 2 and "stdin was empty" in res.output


def test_continue_and_resume_stay_in_their_folder_and_keep_the_model(tmp_path, folder):
    other = tmp_path / "other"
    other.mkdir()
    first = _events(agent("run", "hello", "--profile", "offline", "-w", str(folder), "--json", "-m", "my-local-model"))
    newer = _events(agent("run", "hello there", "--profile", "offline", "-w", str(other), "--json"))  # elsewhere
    sid = first[0]["session_id"]
    # The shortest prefix (17 characters or more) the other session does not share: two runs in the same
    # second share the time part, so a fixed length would be ambiguous now and then.
    prefix = next(sid[:n] for n in range(17, len(sid) + 1) if not newer[0]["session_id"].startswith(sid[:n]))

    res = agent("run", "-c", "again", "-w", str(folder), "--json")
    start = _events(res)[0]
    assert start["session_id"] == sid and start["resumed"] is True
    assert start["model"] == "my-local-model"  # the session's model, not the profile's
    res = agent("run", "--resume", prefix, "again", "--json", "-m", "another-model")
    start = _events(res)[0]
    assert start["session_id"] == sid and start["model"] == "another-model"  # a new -m wins
    assert start["workspace"] == str(folder.resolve())

    listed = json.loads(agent("sessions", "--json", "-w", str(folder)).stdout)
    assert [s["id"] for s in listed] == [sid]
    every = json.loads(agent("sessions", "--json", "--all").stdout)
    assert len(every) == 2 and every[0]["updated"] >= every[1]["updated"]
    res = agent("sessions", "-w", str(folder))
    assert sid in res.stdout and "my-local-model" in res.stdout


def test_run_uses_agents_md_and_shows_it(folder):
    (folder / "AGENTS.md").write_text("Always answer in French.\n")
    res = agent("run", "what does greeting.py do", "--profile", "offline", "-w", str(folder), "--json")
    start = _events(res)[0]
    assert start["instructions"] == ["AGENTS.md"]


def test_undo_and_diff_commands_name_their_session(folder):
    res = agent("run", "Fix the typo in greeting.py", "--profile", "offline", "-w", str(folder), "--yes", "--json")
    sid = _events(res)[0]["session_id"]
    res = agent("diff", sid[:16])
    assert res.exit_code == 0 and '+    print("hello")' in res.stdout
    res = agent("undo", "-w", str(folder))
    assert res.exit_code == 0 and "restored greeting.py" in res.output
    assert (folder / "greeting.py").read_text() == 'def greet():\n    print("helo")\n'
    res = agent("undo", sid)  # the request is gone: nothing left to undo
    assert res.exit_code == 2 and "nothing to undo" in res.output


@pytest.mark.parametrize("turns, says", [("0", "greater than or equal to 1"), ("-5", "greater than or equal to 1"),
                                         ("5000", "less than or equal to 1000")])
def test_max_turns_out_of_bounds_is_a_usage_error_not_a_crash(folder, turns, says):
    res = agent("run", "hi", "--profile", "offline", "-w", str(folder), "--max-turns", turns)
    assert res.exit_code == 2, res.output
    assert f"--max-turns {turns}: input should be {says}" in res.output
    assert "internal error" not in res.output and "Traceback" not in res.output


def test_undo_reaches_the_latest_change_in_this_folder_across_sessions_and_lists_points(tmp_path, folder):
    """An edit, then an unrelated question in a new session: `agent undo` still undoes the edit;
    `--list` shows the points, `--to N` goes back past several at once."""
    empty = tmp_path / "empty"
    empty.mkdir()
    for cmd in (("undo",), ("diff",)):
        res = agent(*cmd, "-w", str(empty))
        assert res.exit_code == 1 and "nothing to" in res.output and "continu" not in res.output
    res = agent("undo", "--list", "-w", str(empty))
    assert res.exit_code == 0 and "no points" in res.output

    fix = agent("run", "Fix the typo in greeting.py", "--profile", "offline", "-w", str(folder), "--yes", "--json")
    assert fix.exit_code == 0, fix.output
    asked = agent("run", "what does greeting.py do", "--profile", "offline", "-w", str(folder), "--json")
    assert asked.exit_code == 0 and _events(asked)[0]["session_id"] != _events(fix)[0]["session_id"]
    res = agent("diff", "-w", str(folder))
    assert res.exit_code == 0 and '+    print("hello")' in res.stdout
    listed = agent("undo", "--list", "-w", str(folder))
    assert listed.exit_code == 0 and listed.stdout.splitlines()[0].split()[0] == "1"
    assert "greeting.py" in listed.stdout and _events(fix)[0]["session_id"] in listed.stdout
    res = agent("undo", "--to", "2", "-w", str(folder))
    assert res.exit_code == 2 and "1 point" in res.output
    res = agent("undo", "-w", str(folder))
    assert res.exit_code == 0 and "restored greeting.py" in res.output, res.output
    assert (folder / "greeting.py").read_text() == 'def greet():\n    print("helo")\n'
    res = agent("undo", "-w", str(folder))
    assert res.exit_code == 1 and "nothing to undo" in res.output


def test_run_from_a_subfolder_follows_agents_md_from_the_repository_root_down(tmp_path):
    import subprocess

    repo = tmp_path / "repo"
    (repo / "pkg" / "vendor" / "lib").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "AGENTS.md").write_text("Root rules.\n")
    (repo / "pkg" / "AGENTS.md").write_text("Package rules.\n")
    (repo / "pkg" / "vendor" / "lib" / "AGENTS.md").write_text("Vendored rules.\n")
    res = agent("run", "what is here", "--profile", "offline", "-w", str(repo / "pkg"), "--json")
    assert res.exit_code == 0, res.output
    assert _events(res)[0]["instructions"] == ["../AGENTS.md", "AGENTS.md"]


def test_the_demo_model_reports_what_the_listing_holds_and_never_a_note_as_a_file(tmp_path):
    """An empty folder's listing is a sentence, and a long one ends in a bracketed note: neither is a file."""
    empty = tmp_path / "empty"
    empty.mkdir()
    res = agent("run", "list the files", "--profile", "offline", "-w", str(empty), "-q")
    assert res.exit_code == 0, res.output
    assert "holds no files" in res.stdout and "No entries" not in res.stdout
    full = tmp_path / "full"
    full.mkdir()
    (full / "sub").mkdir()
    for n in range(3):
        (full / f"f{n}.txt").write_text("x\n")
    res = agent("run", "list the files", "--profile", "offline", "-w", str(full), "-q")
    assert res.exit_code == 0, res.output
    assert "holds 3 file(s): f0.txt, f1.txt, f2.txt." in res.stdout and "sub" not in res.stdout
