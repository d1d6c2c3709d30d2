"""move, copy, delete and make_dir: workspace checks like the file tools, and every change
undone by `agent undo` (the session's real checkpoints)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _toolbox import CANARY, Box

from agentcli.agent.build import open_session
from agentcli.agent.checkpoints import undo
from agentcli.config import load_profile
from agentcli.core.types import ToolCall
from agentcli.providers.scripted import ScriptedProvider


def _session(tmp_path: Path):
    prof = tmp_path / "p.toml"
    prof.write_text('[profiles.p]\nprovider = "openai"\nmodel = "gpt-4o"\nurl = "http://127.0.0.1:9/v1"\n'
                    'api_key_env = ""\n')
    profile = load_profile(str(prof)).profile
    ws = tmp_path / "ws"
    (ws / "pkg" / "sub").mkdir(parents=True)
    (ws / "pkg" / "a.py").write_text("A\n")
    (ws / "pkg" / "sub" / "b.py").write_text("B\n")
    (ws / "notes.txt").write_text("notes\n")
    provider = ScriptedProvider.from_turns([], api="openai", profile=profile)
    s = open_session(profile, ws, provider=provider, record=True)
    s.begin_exchange("reorganise")
    return s, ws


async def _do(s, name: str, **args):
    result = await s.execute(ToolCall(name, args))
    assert result.ok, result.content
    return result.content


def _undo(s, ws: Path) -> None:
    undo(ws, s.recorder.blobs, s.ledger)


async def test_a_folder_move_is_undone(tmp_path):
    s, ws = _session(tmp_path)
    await _do(s, "move", source="pkg", destination="lib/pkg2")
    assert (ws / "lib/pkg2/sub/b.py").read_text() == "B\n" and not (ws / "pkg").exists()
    _undo(s, ws)
    assert (ws / "pkg/sub/b.py").read_text() == "B\n" and not (ws / "lib/pkg2/sub/b.py").exists()


async def test_move_into_an_existing_folder_and_refuse_to_clobber(tmp_path):
    s, ws = _session(tmp_path)
    await _do(s, "move", source="notes.txt", destination="pkg")
    assert (ws / "pkg/notes.txt").read_text() == "notes\n"
    (ws / "x.txt").write_text("x")
    result = await s.execute(ToolCall("move", {"source": "x.txt", "destination": "pkg/a.py"}))
    assert not result.ok and "overwrite" in result.content
    await _do(s, "move", source="x.txt", destination="pkg/a.py", overwrite=True)
    assert (ws / "pkg/a.py").read_text() == "x"


async def test_copy_and_delete_are_undone(tmp_path):
    s, ws = _session(tmp_path)
    await _do(s, "copy", source="pkg", destination="pkg_copy")
    assert (ws / "pkg_copy/sub/b.py").read_text() == "B\n"
    await _do(s, "delete", path="pkg", recursive=True)
    assert not (ws / "pkg").exists()
    _undo(s, ws)
    assert (ws / "pkg/sub/b.py").read_text() == "B\n" and not (ws / "pkg_copy/sub/b.py").exists()


async def test_delete_needs_recursive_for_a_folder_with_content(tmp_path):
    s, ws = _session(tmp_path)
    result = await s.execute(ToolCall("delete", {"path": "pkg"}))
    assert not result.ok and "recursive" in result.content and (ws / "pkg/a.py").exists()
    await _do(s, "make_dir", path="empty/inner")
    assert (ws / "empty/inner").is_dir()
    await _do(s, "delete", path="empty/inner")
    assert not (ws / "empty/inner").exists()


@pytest.mark.parametrize(("name", "args"), [
    ("move", {"source": "../outside/secret.txt", "destination": "stolen.txt"}),
    ("move", {"source": "README.md", "destination": "../outside/r.md"}),
    ("move", {"source": "link_file", "destination": "x"}),
    ("move", {"source": "src", "destination": "src/pkg/inner"}),
    ("copy", {"source": "link_dir/secret.txt", "destination": "stolen.txt"}),
    ("copy", {"source": "README.md", "destination": ".git/hooks/pre-commit"}),
    ("delete", {"path": "../outside/secret.txt"}),
    ("delete", {"path": ".git/config"}),
    ("delete", {"path": "."}),
    ("delete", {"path": "link_dir", "recursive": True}),
    ("make_dir", {"path": "../outside/new"}),
    ("make_dir", {"path": ".git/x"}),
])
def test_paths_outside_protected_or_through_links_are_refused(tmp_path, name, args):
    box = Box(tmp_path)
    result = box.run(name, **args)
    assert not result.ok, (name, args, result.content)
    assert CANARY not in result.content
    assert box.outside_unchanged()
    assert (box.root / ".git" / "config").exists() and (box.root / "README.md").exists()


def test_the_judge_refuses_before_asking_and_previews_what_changes(tmp_path):
    box = Box(tmp_path)
    move = box.registry.get("move")
    j = move.judge({"source": "src", "destination": "lib"}, box.ctx)
    assert j.decision == "ask" and "move src -> lib" in j.preview and "2 files" in j.preview
    from agentcli.core.errors import ToolFailure

    with pytest.raises(ToolFailure):
        move.judge({"source": "../outside", "destination": "x"}, box.ctx)
    delete = box.registry.get("delete")
    assert "src/main.py" in delete.judge({"path": "src", "recursive": True}, box.ctx).preview


def test_a_hard_linked_file_is_not_copied(tmp_path):
    import os

    box = Box(tmp_path)
    os.link(box.outside / "secret.txt", box.root / "linked.txt")
    (box.root / "d").mkdir()
    os.link(box.outside / "secret.txt", box.root / "d" / "inner.txt")
    for source in ("linked.txt", "d"):
        result = box.run("copy", source=source, destination="stolen")
        assert not result.ok and "hard link" in result.content, source
    assert not (box.root / "stolen").exists()
