"""git and git_write against real repositories, including one whose config names programs that
git would run on ordinary commands: none of them may run."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path

import pytest

from agentcli.config.schema import BashConfig
from agentcli.core.types import ToolCall
from agentcli.tools.base import ToolContext
from agentcli.tools.executor import execute
from agentcli.tools.registry import default_registry
from agentcli.tools.sandbox import Workspace

pytestmark = pytest.mark.skipif(not any(os.access(os.path.join(d, "git"), os.X_OK)
                                        for d in os.environ.get("PATH", "").split(os.pathsep)), reason="no git")

ENV = {**os.environ, "GIT_AUTHOR_NAME": "T", "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "T",
       "GIT_COMMITTER_EMAIL": "t@example.com", "GIT_CONFIG_NOSYSTEM": "1"}


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, env=ENV, check=True, capture_output=True, text=True).stdout


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "user.email", "t@example.com")
    _git(root, "config", "user.name", "T")
    (root / "greeting.py").write_text("print('Helo')\n")
    _git(root, "add", ".")
    _git(root, "commit", "-qm", "first")
    return root


def _call(root: Path, tool: str, **args) -> tuple[bool, str]:
    ctx = ToolContext(Workspace(root), BashConfig(), 20_000)
    result = asyncio.run(execute(ToolCall(tool, args), default_registry(), ctx))
    return result.ok, result.content


def _hostile(root: Path, tmp_path: Path) -> Path:
    """A repository config that names a program for every hook point git offers on reads and writes."""
    mark = tmp_path / "ran"
    prog = tmp_path / "evil.sh"
    prog.write_text(f"#!/bin/sh\necho ran >> {mark}\ncat\n")
    prog.chmod(0o755)
    for key in ("core.fsmonitor", "core.pager", "diff.external", "filter.evil.clean", "filter.evil.smudge",
                "diff.evil.textconv", "diff.evil.command", "pager.log", "pager.diff", "gpg.program"):
        _git(root, "config", key, str(prog))
    _git(root, "config", "commit.gpgSign", "true")
    (root / ".gitattributes").write_text("* filter=evil diff=evil\n")
    hooks = root / ".git" / "hooks"
    for hook in ("pre-commit", "commit-msg", "post-commit", "post-checkout", "prepare-commit-msg"):
        (hooks / hook).write_text(f"#!/bin/sh\necho {hook} >> {mark}\n")
        (hooks / hook).chmod(0o755)
    return mark


def test_reads_status_diff_log_show_and_blame(tmp_path):
    root = _repo(tmp_path)
    (root / "greeting.py").write_text("print('Hello')\n")
    ok, out = _call(root, "git", action="status")
    assert ok and "M greeting.py" in out and "main" in out
    ok, out = _call(root, "git", action="diff", paths=["greeting.py"])
    assert ok and "-print('Helo')" in out and "+print('Hello')" in out
    ok, out = _call(root, "git", action="log", max_count=5)
    assert ok and "first" in out
    ok, out = _call(root, "git", action="show", rev="HEAD")
    assert ok and "greeting.py" in out
    ok, out = _call(root, "git", action="blame", paths=["greeting.py"])
    assert ok and "Hello" in out  # the working copy's line, not yet committed


def test_bad_revisions_paths_and_folders_are_refused(tmp_path):
    root = _repo(tmp_path)
    ok, out = _call(root, "git", action="log", rev="--output=/tmp/x")
    assert not ok and "not a revision" in out
    ok, out = _call(root, "git", action="diff", paths=["../outside"])
    assert not ok and "outside the workspace" in out
    plain = tmp_path / "plain"
    plain.mkdir()
    ok, out = _call(plain, "git", action="status")
    assert not ok and "not a git repository" in out
    sub = root / "sub"
    sub.mkdir()
    ok, out = _call(sub, "git", action="status")  # a folder inside a repository is not one
    assert not ok and "not a git repository" in out


def test_a_hostile_repository_runs_none_of_its_programs(tmp_path):
    root = _repo(tmp_path)
    mark = _hostile(root, tmp_path)
    (root / "greeting.py").write_text("print('Hello')\n")
    for action in ("status", "diff", "log", "show"):
        ok, out = _call(root, "git", action=action)
        assert ok, out
    ok, out = _call(root, "git", action="blame", paths=["greeting.py"])
    assert ok, out
    ok, out = _call(root, "git_write", action="add", paths=["."])
    assert ok, out
    ok, out = _call(root, "git_write", action="commit", message="Fix the greeting")
    assert ok and "Committed" in out, out
    ok, out = _call(root, "git_write", action="switch", name="feature", create=True)
    assert ok, out
    assert not mark.exists(), mark.read_text()
    assert "Fix the greeting" in _git(root, "log", "--format=%s")


def test_write_actions_stage_commit_branch_switch_and_stash(tmp_path):
    root = _repo(tmp_path)
    (root / "greeting.py").write_text("print('Hello')\n")
    assert _call(root, "git_write", action="add", paths=["greeting.py"])[0]
    ok, out = _call(root, "git_write", action="commit", message="Fix typo")
    assert ok and "Fix typo" in out
    assert _call(root, "git_write", action="branch", name="topic")[0]
    assert _call(root, "git_write", action="switch", name="topic")[0]
    assert _git(root, "branch", "--show-current").strip() == "topic"
    (root / "greeting.py").write_text("print('Hi')\n")
    assert _call(root, "git_write", action="stash", stash="push", message="wip")[0]
    assert (root / "greeting.py").read_text() == "print('Hello')\n"
    ok, out = _call(root, "git_write", action="stash", stash="list")
    assert ok and "wip" in out
    assert _call(root, "git_write", action="stash", stash="pop")[0]
    assert (root / "greeting.py").read_text() == "print('Hi')\n"
    ok, out = _call(root, "git_write", action="switch", name="-")
    assert not ok and "not a revision" in out


def test_the_commit_is_shown_for_approval_with_message_branch_and_staged_files(tmp_path):
    root = _repo(tmp_path)
    (root / "greeting.py").write_text("print('Hello')\n")
    _git(root, "add", ".")
    tool = default_registry().get("git_write")
    ctx = ToolContext(Workspace(root), BashConfig(), 20_000)
    j = tool.judge({"action": "commit", "message": "Fix typo"}, ctx)
    assert j.decision == "ask"
    assert "Fix typo" in j.preview and "branch: main" in j.preview and "greeting.py" in j.preview
    assert "T <t@example.com>" in j.preview


def test_a_work_tree_elsewhere_is_refused(tmp_path):
    root = _repo(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    _git(root, "config", "core.worktree", str(elsewhere))
    ok, out = _call(root, "git", action="status")
    assert not ok and "work tree is not the workspace" in out
    ok, out = _call(root, "git_write", action="add", paths=["greeting.py"])
    assert not ok
