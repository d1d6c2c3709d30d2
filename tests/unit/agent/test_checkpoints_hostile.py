"""Checkpoints against a workspace the model shaped: links swapped into any component, paths in a
transcript that point elsewhere, trees deeper than Python's recursion limit, more files than a
snapshot takes, long names, hard links, and ignored folders. Undo never acts outside the
workspace and never changes anything when it refuses; diff never hides a change."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agentcli.agent import checkpoints
from agentcli.agent.checkpoints import WHOLE_WORKSPACE, BlobStore, FileChange, Ledger, Recorder, undo, unified
from agentcli.core.errors import UsageError


def _ws(tmp_path: Path) -> tuple[Path, Recorder, Path]:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "home"
    outside.mkdir()
    return root, Recorder(root, BlobStore(tmp_path / "blobs")), outside


def _shell(rec: Recorder, ledger: Ledger, act, exchange: int = 0) -> list[FileChange]:
    """Record `act` the way a shell call is: a whole-workspace snapshot before and after."""
    if exchange not in ledger.exchanges:
        ledger.exchanges.append(exchange)
    before = rec.snapshot(None)
    act()
    changes = rec.changes(before, rec.snapshot(None), exchange, "bash")
    ledger.changes.extend(changes)
    return changes


@pytest.mark.parametrize("depth", [1, 2, 3, 4])
def test_a_link_swapped_into_any_component_never_leads_undo_outside(tmp_path, depth):
    root, rec, outside = _ws(tmp_path)
    dirs = [f"d{i}" for i in range(depth - 1)]
    rel = "/".join([*dirs, "made.txt"])
    ledger = Ledger()
    _shell(rec, ledger, lambda: ((root / rel).parent.mkdir(parents=True, exist_ok=True), (root / rel).write_text("x")))
    # The same shape outside, holding a file with the same content: a naive undo would delete it.
    for cut in range(depth):
        victim_root = outside / f"cut{cut}"
        (victim_root / "/".join(rel.split("/")[cut:])).parent.mkdir(parents=True, exist_ok=True)
        (victim_root / "/".join(rel.split("/")[cut:])).write_text("x")
    for cut in range(depth):
        parts = rel.split("/")
        swapped = root.joinpath(*parts[:cut]) if cut else None
        if cut == 0:
            target = root / parts[0]
        else:
            target = swapped / parts[cut]  # type: ignore[operator]
        aside = tmp_path / f"aside{cut}"
        os.rename(target, aside)
        os.symlink(outside / f"cut{cut}" / parts[cut], target)
        with pytest.raises(UsageError, match="cannot undo"):
            undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
        os.unlink(target)
        os.rename(aside, target)
    for cut in range(depth):
        assert (outside / f"cut{cut}" / "/".join(rel.split("/")[cut:])).read_text() == "x"
    undo(root, rec.blobs, ledger)  # type: ignore[arg-type]  # back in place: the undo goes through
    assert not (root / rel).exists()


@pytest.mark.parametrize("path", ["../outside.txt", "/etc/hostname", "a/../../outside.txt", "a//b", "./x",
                                  ".git/config", ".git/hooks/pre-commit", ".agent/p.toml", "a\x00b"])
def test_paths_from_a_transcript_are_checked_again_and_a_bad_one_changes_nothing(tmp_path, path):
    root, rec, outside = _ws(tmp_path)
    (tmp_path / "outside.txt").write_text("keep me")
    (root / "fine.txt").write_text("agent wrote")
    blob = rec.blobs.put(b"old")  # type: ignore[union-attr]
    ledger = Ledger([0], [FileChange("fine.txt", blob, checkpoints.current_hash(root, "fine.txt"), 0),
                          FileChange(path, None, None, 0)])
    with pytest.raises(UsageError, match="cannot undo"):
        undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert (tmp_path / "outside.txt").read_text() == "keep me"
    assert (root / "fine.txt").read_text() == "agent wrote"


def _remove_deep(root: Path) -> None:
    """Take a chain of 'd' folders down one level at a time (rmtree, and pytest's cleanup, recurse)."""
    while (root / "d").exists():
        for leftover in (root / "d").iterdir():
            if leftover.name != "d":
                leftover.unlink()
        if (root / "d" / "d").exists():
            os.rename(root / "d" / "d", root / "e")
        os.rmdir(root / "d")
        if (root / "e").exists():
            os.rename(root / "e", root / "d")


def test_a_1200_level_tree_is_walked_without_recursion_and_its_changes_undone(tmp_path):
    root, rec, _ = _ws(tmp_path)
    try:
        fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for _ in range(1200):  # deeper than PATH_MAX as a path string: built one name at a time
                os.mkdir("d", dir_fd=fd)
                nxt = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = nxt
            before = rec.snapshot(None)
            with open(os.open("deep.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
                f.write("bottom")
        finally:
            os.close(fd)
        changes = rec.changes(before, rec.snapshot(None), 0, "bash")
        assert [c.path.count("/") for c in changes] == [1200] and not changes[0].skipped
        ledger = Ledger([0], changes)
        assert "+bottom" in unified(root, rec.blobs, changes)  # type: ignore[arg-type]
        undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
        assert rec.snapshot(None).files == {}
    finally:
        _remove_deep(root)


def test_past_the_snapshot_bound_undo_refuses_and_says_why(tmp_path, monkeypatch):
    root, rec, _ = _ws(tmp_path)
    monkeypatch.setattr(checkpoints, "SNAPSHOT_MAX_FILES", 20)
    for i in range(25):
        (root / f"f{i:02}.txt").write_text(str(i))
    ledger = Ledger()
    changes = _shell(rec, ledger, lambda: (root / "f00.txt").write_text("changed"))
    assert any(c.path == WHOLE_WORKSPACE and "more than 20 files" in c.skipped for c in changes)
    with pytest.raises(UsageError, match="not every change was recorded: the workspace holds more than 20 files"):
        undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert (root / "f00.txt").read_text() == "changed"
    assert "not every change was recorded" in unified(root, rec.blobs, changes)  # type: ignore[arg-type]


@pytest.mark.parametrize("folder", sorted(checkpoints.SNAPSHOT_HEAVY))
def test_changes_in_ignored_folders_are_summarised_by_diff_and_named_by_undo(tmp_path, folder):
    root, rec, _ = _ws(tmp_path)
    (root / folder / "pkg").mkdir(parents=True)
    (root / folder / "pkg" / "old.js").write_text("old")
    ledger = Ledger()

    def act() -> None:
        for i in range(3):
            (root / folder / "pkg" / f"new{i}.js").write_text("new")
        (root / folder / "pkg" / "old.js").write_text("changed")
        (root / "app.js").write_text("app")

    changes = _shell(rec, ledger, act)
    diff = unified(root, rec.blobs, changes)  # type: ignore[arg-type]
    assert f"{folder}/: 4 files changed" in diff and "+app" in diff
    report = undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert report.removed == ["app.js"] and not (root / "app.js").exists()
    assert sorted(report.left) == [f"{folder}/pkg/{n}" for n in ("new0.js", "new1.js", "new2.js", "old.js")]
    assert (root / folder / "pkg" / "old.js").read_text() == "changed"  # never touched: named, not hidden


@pytest.mark.parametrize("name", ["a" * 255, "é" * 127, "日" * 85, "x" * 100 + "é" * 77])
def test_long_names_are_recorded_and_undone(tmp_path, name):
    root, rec, _ = _ws(tmp_path)
    (root / "sub").mkdir()
    (root / "sub" / name).write_text("before")
    ledger = Ledger()
    _shell(rec, ledger, lambda: (root / "sub" / name).write_text("after"))
    report = undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert report.restored == [f"sub/{name}"] and (root / "sub" / name).read_text() == "before"


def test_a_hard_linked_file_is_never_read_and_its_change_cannot_be_undone(tmp_path):
    root, rec, outside = _ws(tmp_path)
    secret = outside / "private.txt"
    secret.write_text("private words")
    ledger = Ledger()
    _shell(rec, ledger, lambda: os.link(secret, root / "linked.txt"))
    stored = [p.read_bytes() for p in rec.blobs.root.glob("*")] if rec.blobs.root.exists() else []  # type: ignore[union-attr]
    assert not any(b"private words" in b for b in stored)
    assert [(c.path, "hard links" in c.skipped) for c in ledger.changes] == [("linked.txt", True)]
    with pytest.raises(UsageError, match="hard links"):
        undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert secret.read_text() == "private words"


@pytest.mark.parametrize("name", ["a" * 300, "é" * 200, "d/" + "日" * 100, "a" * 255])
async def test_a_long_name_from_the_model_is_a_tool_error_or_works_never_an_internal_error(tmp_path, monkeypatch, name):
    import json

    from agentcli.core.events import Done
    from agentcli.testing import openai_body
    from tests.unit.agent.test_checkpoints import _run, _session

    monkeypatch.setenv("K_FOR_TEST", "sk-test-0000000000000000")

    def call(tool, args, cid):
        return {"id": cid, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}

    s = _session(tmp_path, [
        openai_body("", tool_calls=[call("write_file", {"path": name, "content": "x"}, "1"),
                                    call("edit_file", {"path": name, "old_content": "x", "new_content": "y"}, "2"),
                                    call("read_file", {"path": name}, "3"),
                                    call("bash", {"command": f"mkdir -p d && printf z > '{name}'"}, "4")]),
        openai_body("done"),
    ])
    events = await _run(s, "make a long name")
    done = events[-1]
    assert isinstance(done, Done) and done.stop == "answered", done
    fits = all(len(p.encode()) <= 255 for p in name.split("/"))
    if fits:
        undo(s.workspace, s.recorder.blobs, s.ledger)
        assert not (s.workspace / name).exists()


def test_a_request_that_ran_git_status_can_still_be_undone_and_says_what_it_left(tmp_path):
    import subprocess

    root, rec, _ = _ws(tmp_path)
    (root / "app.py").write_text("v1\n")
    (root / "same.py").write_text("unchanged\n")
    git = ["git", "-C", str(root), "-c", "user.email=a@b", "-c", "user.name=n"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "add", "app.py", "same.py"], check=True)
    subprocess.run([*git, "commit", "-qm", "one"], check=True)
    ledger = Ledger()

    def act() -> None:
        (root / "app.py").write_text("v2\n")
        st = os.stat(root / "same.py")  # new times, same content: `git status` refreshes the index entry
        os.utime(root / "same.py", ns=(st.st_atime_ns + 7_000_000_000, st.st_mtime_ns + 7_000_000_000))
        subprocess.run([*git, "status", "--short"], check=True, capture_output=True)  # rewrites .git/index

    changes = _shell(rec, ledger, act)
    assert {c.path for c in changes} == {"app.py", ".git/index"}
    assert ".git/: 1 file changed" in unified(root, rec.blobs, changes)  # type: ignore[arg-type]
    report = undo(root, rec.blobs, ledger)  # type: ignore[arg-type]
    assert report.restored == ["app.py"] and report.left == [".git/index"]
    assert (root / "app.py").read_text() == "v1\n"
