"""AGENTS.md: the workspace's file, nested ones on the way to the files worked on (nearest
last, and said to win), capped in size, and never read from outside the workspace."""

from __future__ import annotations

from agentcli.agent.instructions import (
    FILENAME,
    MAX_FILE_BYTES,
    Instructions,
    starter_text,
)


def test_root_then_nested_files_on_the_way_to_a_file(tmp_path):
    (tmp_path / FILENAME).write_text("root rules")
    (tmp_path / "pkg" / "sub").mkdir(parents=True)
    (tmp_path / "pkg" / FILENAME).write_text("pkg rules")
    (tmp_path / "pkg" / "sub" / FILENAME).write_text("sub rules")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / FILENAME).write_text("other rules")
    inst = Instructions.load(tmp_path)
    assert list(inst.files) == ["AGENTS.md"]
    assert inst.note("pkg/sub/mod.py") == ["pkg/AGENTS.md", "pkg/sub/AGENTS.md"]
    assert inst.note("pkg/sub/other.py") == []  # loaded once
    prompt = inst.prompt()
    assert prompt.index("root rules") < prompt.index("pkg rules") < prompt.index("sub rules")
    assert "nearer" in prompt and "other rules" not in prompt


def test_size_cap_and_paths_outside(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / FILENAME).write_text("x" * (MAX_FILE_BYTES * 2))
    (tmp_path / FILENAME).write_text("outside the workspace")
    inst = Instructions.load(tmp_path / "ws")
    text = inst.files["AGENTS.md"]
    assert len(text.encode()) < MAX_FILE_BYTES + 100 and "cut at" in text
    assert inst.note("../AGENTS.md") == [] and inst.note("/etc/passwd") == [] and inst.note(None) == []
    assert "outside the workspace" not in inst.prompt()


def test_a_linked_agents_md_pointing_out_is_not_read(tmp_path):
    (tmp_path / "secret").write_text("TOP SECRET")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / FILENAME).symlink_to(tmp_path / "secret")
    assert Instructions.load(ws).files == {}


def test_starter_names_the_build_commands_it_finds(tmp_path):
    assert "How to build" in starter_text(tmp_path)
    (tmp_path / "pyproject.toml").write_text("")
    assert "python -m pytest" in starter_text(tmp_path)


def test_session_prompt_carries_the_instructions(tmp_path, monkeypatch):
    from agentcli.agent.build import open_session
    from agentcli.config import load_profile
    from agentcli.providers.scripted import ScriptedProvider

    (tmp_path / FILENAME).write_text("Use tabs.")
    profile = load_profile("offline").profile
    s = open_session(profile, tmp_path, provider=ScriptedProvider.from_turns([], profile=profile), record=False)
    assert "Use tabs." in s.request_messages()[0].text
