"""str_replace_based_edit_tool (Claude's text editor), the per-model edit tool choice, and trained
names the model was not given."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from agentcli.config.schema import BashConfig
from agentcli.core.errors import ToolFailure
from agentcli.models import resolve_capability
from agentcli.tools import edit_choice
from agentcli.tools.base import ToolContext
from agentcli.tools.builtin.str_replace_editor import TOOL
from agentcli.tools.sandbox import Workspace


def _ctx(root: Path) -> ToolContext:
    return ToolContext(Workspace(root), BashConfig(), 20_000)


def _run(root: Path, **args: object) -> str:
    return asyncio.run(TOOL.run(dict(args), _ctx(root)))


def _fails(root: Path, **args: object) -> str:
    with pytest.raises(ToolFailure) as exc:
        _run(root, **args)
    return exc.value.error.render()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src/a.py").write_text("one\ntwo\nthree\nfour\n")
    (tmp_path / "src/deep").mkdir()
    (tmp_path / "src/deep/deeper").mkdir()
    (tmp_path / "src/deep/deeper/x.txt").write_text("x\n")
    (tmp_path / ".hidden").write_text("h\n")
    return tmp_path


def test_view_numbers_lines_and_honours_view_range(root: Path):
    whole = _run(root, command="view", path="src/a.py")
    assert whole.splitlines()[1:] == ["     1\tone", "     2\ttwo", "     3\tthree", "     4\tfour"]
    part = _run(root, command="view", path="src/a.py", view_range=[2, 3])
    assert part.splitlines()[1:] == ["     2\ttwo", "     3\tthree"]
    tail = _run(root, command="view", path="src/a.py", view_range=[3, -1])
    assert tail.splitlines()[1:] == ["     3\tthree", "     4\tfour"]


@pytest.mark.parametrize("rng", [[0, 2], [5, 6], [3, 2], [1, 9], ["1", 2], [1], [True, 2]])
def test_bad_view_ranges_are_clear_errors(root: Path, rng: list[object]):
    assert "view_range" in _fails(root, command="view", path="src/a.py", view_range=rng)


def test_view_lists_a_directory_two_levels_deep_without_hidden(root: Path):
    out = _run(root, command="view", path=".")
    assert "src/" in out and "src/a.py" in out and "src/deep/" in out
    assert "src/deep/deeper/x.txt" not in out and ".hidden" not in out


def test_create_str_replace_insert(root: Path):
    assert "created" in _run(root, command="create", path="new/b.txt", file_text="alpha\nbeta\n")
    assert (root / "new/b.txt").read_text() == "alpha\nbeta\n"
    assert "already exists" in _fails(root, command="create", path="new/b.txt", file_text="x")
    _run(root, command="str_replace", path="new/b.txt", old_str="beta", new_str="gamma")
    assert (root / "new/b.txt").read_text() == "alpha\ngamma\n"
    _run(root, command="insert", path="new/b.txt", insert_line=0, insert_text="top")
    _run(root, command="insert", path="new/b.txt", insert_line=3, insert_text="end\n")
    _run(root, command="insert", path="new/b.txt", insert_line=1, new_str="second")  # the older argument name
    assert (root / "new/b.txt").read_text() == "top\nsecond\nalpha\ngamma\nend\n"



def test_nulls_from_strict_schemas_count_as_absent(root: Path):
    nulls = {"file_text": None, "old_str": None, "new_str": None, "insert_line": None, "insert_text": None,
             "view_range": None}
    _run(root, **{**nulls, "command": "insert", "path": "src/a.py", "insert_line": 4, "new_str": "five"})
    _run(root, **{**nulls, "command": "str_replace", "path": "src/a.py", "old_str": "five\n"})
    assert (root / "src/a.py").read_text() == "one\ntwo\nthree\nfour\n"
    assert "     1\tone" in _run(root, **{**nulls, "command": "view", "path": "src/a.py"})


def test_str_replace_must_be_unique_and_present(root: Path):
    (root / "d.txt").write_text("x\nx\n")
    assert "appears 2 times" in _fails(root, command="str_replace", path="d.txt", old_str="x", new_str="y")
    assert "not found" in _fails(root, command="str_replace", path="d.txt", old_str="zz", new_str="y")
    assert (root / "d.txt").read_text() == "x\nx\n"


@pytest.mark.parametrize("args", [
    {"command": "undo_edit", "path": "src/a.py"},
    {"command": "delete", "path": "src/a.py"},
    {"command": "insert", "path": "src/a.py", "insert_line": 99, "insert_text": "x"},
    {"command": "insert", "path": "src/a.py", "insert_text": "x"},
    {"command": "view", "path": "../outside"},
    {"command": "create", "path": ".git/hooks/x", "file_text": "x"},
    {"command": "str_replace", "path": "missing.py", "old_str": "a", "new_str": "b"},
])
def test_bad_calls_are_structured_errors(root: Path, args: dict[str, object]):
    assert _fails(root, **args).startswith("Error [")
    assert (root / "src/a.py").read_text() == "one\ntwo\nthree\nfour\n"


def test_view_changes_nothing_and_is_not_recorded(root: Path):
    assert TOOL.changed_paths({"command": "view", "path": "src/a.py"}) == []
    assert TOOL.changed_paths({"command": "str_replace", "path": "src/a.py"}) == ["src/a.py"]
    assert "-two\n+2\n" in TOOL.preview({"command": "str_replace", "path": "src/a.py", "old_str": "two",
                                         "new_str": "2"}, _ctx(root))


# ----- the choice per model ------------------------------------------------------------------

@pytest.mark.parametrize(("model", "form"), [
    ("gpt-4.1", "apply_patch"), ("gpt-4.1-mini", "apply_patch"), ("gpt-5", "apply_patch"),
    ("gpt-5-codex", "apply_patch"), ("codex-mini-latest", "apply_patch"), ("gpt-4o", "edit_file"),
    ("claude-sonnet-4-5", "str_replace"), ("claude-opus-4-1", "str_replace"), ("claude-3-5-haiku", "edit_file"),
    ("qwen2.5-coder:7b", "edit_file"), ("llama3.1:8b", "edit_file"),
])
def test_family_rules_pick_the_trained_tool(model: str, form: str):
    assert resolve_capability(model).capability.edit_tool == form


def test_the_profile_overrides_and_only_the_chosen_tool_is_offered():
    assert edit_choice.choose("auto", "apply_patch") == ("apply_patch", "model family")
    assert edit_choice.choose("str_replace", "apply_patch") == ("str_replace", "profile [tools] edit_tool")
    with pytest.raises(ValueError):
        edit_choice.choose("ed", "apply_patch")
    for form, (name, _) in edit_choice.EDIT_FORMS.items():
        reg = edit_choice.session_registry(form, None)
        visible = {t.name for t in reg.visible("run", None, [])}
        assert name in visible
        assert not (visible & ({n for n, _ in edit_choice.EDIT_FORMS.values()} - {name}))
        assert set(reg.names()) >= {n for n, _ in edit_choice.EDIT_FORMS.values()}  # the rest hidden, not gone


def test_a_bad_capability_override_is_refused():
    with pytest.raises(ValueError, match="edit_tool"):
        resolve_capability("gpt-5", overrides={"edit_tool": "ed"})


def test_a_trained_name_not_given_runs_through_the_core_and_says_so(root: Path):
    reg = edit_choice.session_registry("edit_file", None)
    alias = reg.get("str_replace_based_edit_tool")
    assert alias is not None and not alias.spec.model_visible and alias.spec.native_form is None
    out = asyncio.run(alias.run({"command": "str_replace", "path": "src/a.py", "old_str": "two", "new_str": "2"},
                                _ctx(root)))
    assert (root / "src/a.py").read_text() == "one\n2\nthree\nfour\n"
    assert "repair" in out and "edit_file" in out
    patch = reg.get("apply_patch")
    assert patch is not None
    with pytest.raises(ToolFailure) as exc:
        asyncio.run(patch.run({"input": "not a patch"}, _ctx(root)))
    err = exc.value.error
    assert "your edit tool is edit_file" in err.message and "edit_file" in (err.suggested_fix or "")
    assert err.details.get("tool") == "edit_file"


def test_denying_the_chosen_tool_leaves_no_alias():
    reg = edit_choice.session_registry("apply_patch", None, ["apply_patch"])
    assert reg.get("edit_file") is None and reg.get("str_replace_based_edit_tool") is None


def test_a_model_switch_offers_the_new_models_edit_tool(tmp_path: Path):
    """`/model` from a GPT-5 profile to a Claude 4.5 one: the text editor is offered, apply_patch hidden."""
    from agentcli.agent.build import open_session
    from agentcli.agent.switch import apply_profile
    from agentcli.config.schema import Profile

    gpt = Profile(name="g", provider="openai", model="gpt-5", url="http://127.0.0.1:9", api_key_env="")
    session = open_session(gpt, tmp_path, tier="walk", record=False)
    assert "apply_patch" in {t.name for t in session.visible_tools()}
    claude = Profile(name="c", provider="anthropic", model="claude-sonnet-4-5", url="http://127.0.0.1:9",
                     api_key_env="")
    report = apply_profile(session, claude)
    names = {t.name for t in session.visible_tools()}
    assert "str_replace_based_edit_tool" in names and not {"apply_patch", "edit_file"} & names
    assert report.changed["edit_tool"] == ("apply_patch", "str_replace")
    alias = session.registry.get("apply_patch")
    assert alias is not None and not alias.spec.model_visible and "str_replace_based_edit_tool" in alias._note()
