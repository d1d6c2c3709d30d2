"""The no-follow walk sees exactly what a careful listing sees (every non-directory entry, links
as links, never what they point at), on random trees; opens refuse a link in any component."""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path

import pytest

from agentcli.agent import nofollow


def _random_tree(root: Path, outside: Path, rng: random.Random) -> None:
    dirs = [root]
    for i in range(rng.randint(5, 60)):
        parent = rng.choice(dirs)
        kind = rng.random()
        name = rng.choice(["a", "b", "node_modules", ".git", "é", "x" * rng.randint(1, 200)]) + str(i)
        if kind < 0.3:
            (parent / name).mkdir()
            dirs.append(parent / name)
        elif kind < 0.7:
            (parent / name).write_bytes(os.urandom(rng.randint(0, 64)))
        elif kind < 0.8:
            os.symlink(outside, parent / name)  # a link to a folder outside
        elif kind < 0.9:
            os.symlink(rng.choice(dirs), parent / name)  # a link back up: a cycle for a follower
        else:
            os.mkfifo(parent / name)


def _reference(root: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(root):  # os.walk lists links to folders as dirnames
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            out.add(os.path.relpath(os.path.join(dirpath, name), root))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_the_walk_matches_a_careful_listing_on_random_trees(tmp_path, seed):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    root.mkdir()
    outside.mkdir()
    (outside / "secret").write_text("s")
    _random_tree(root, outside, random.Random(seed))
    seen: dict[str, int] = {}

    def visit(dfd: int, name: str, rel: str, st: os.stat_result) -> None:
        assert os.stat(name, dir_fd=dfd, follow_symlinks=False).st_ino == st.st_ino
        assert not stat.S_ISDIR(st.st_mode)
        seen[rel] = seen.get(rel, 0) + 1

    assert nofollow.walk(root, visit, 10_000) == ""
    assert set(seen) == _reference(root) and set(seen.values()) <= {1}
    assert not any(rel.endswith("secret") for rel in seen)
    limit = max(len(seen) - 1, 0)
    if seen:
        assert "more than" in nofollow.walk(root, lambda *a: None, limit)


def test_opens_refuse_a_link_in_any_component(tmp_path):
    root, outside = tmp_path / "ws", tmp_path / "outside"
    (root / "a" / "b").mkdir(parents=True)
    (outside / "b").mkdir(parents=True)
    (outside / "b" / "f").write_text("outside")
    os.rename(root / "a", tmp_path / "a.bak")
    os.symlink(outside, root / "a")
    with pytest.raises(OSError):
        nofollow.open_dir(root, ["a", "b"])
    with pytest.raises(OSError):
        nofollow.write_atomic(root, ["a", "b", "f"], b"new")
    with pytest.raises(OSError):
        nofollow.unlink(root, ["a", "b", "f"])
    assert (outside / "b" / "f").read_text() == "outside"
    assert nofollow.clean_parts("a/../b") is None and nofollow.clean_parts("/etc") is None
    assert nofollow.clean_parts("a//b") is None and nofollow.clean_parts("a/b") == ["a", "b"]


def test_a_workspace_reached_through_a_link_is_walked_and_undone(tmp_path):
    from agentcli.agent.checkpoints import BlobStore, Ledger, Recorder, undo

    real = tmp_path / "real"
    real.mkdir()
    os.symlink(real, tmp_path / "ws")
    rec = Recorder(tmp_path / "ws", BlobStore(tmp_path / "blobs"))
    before = rec.snapshot(None)
    (real / "made.txt").write_text("x")
    changes = rec.changes(before, rec.snapshot(None), 0, "bash")
    assert [(c.path, c.skipped) for c in changes] == [("made.txt", "")]
    undo(tmp_path / "ws", rec.blobs, Ledger([0], changes))  # type: ignore[arg-type]
    assert not (real / "made.txt").exists()
