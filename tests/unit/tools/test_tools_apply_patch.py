"""apply_patch: the V4A format, applied strictly and atomically through the shared edit core.

Cases marked "codex fixture NNN" take their input, patch and expected bytes from the scenario
fixtures of openai/codex (codex-rs/apply-patch/tests/fixtures/scenarios/NNN_*), as data."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

import pytest

from agentcli.config.schema import BashConfig
from agentcli.core.errors import ToolFailure
from agentcli.tools import patch_v4a as v4a
from agentcli.tools.base import ToolContext
from agentcli.tools.builtin.apply_patch import TOOL
from agentcli.tools.sandbox import Workspace


def _ctx(root: Path) -> ToolContext:
    return ToolContext(Workspace(root), BashConfig(), 20_000)


def _run(root: Path, patch: str) -> str:
    return asyncio.run(TOOL.run({"input": patch}, _ctx(root)))


def _fails(root: Path, patch: str) -> str:
    with pytest.raises(ToolFailure) as exc:
        _run(root, patch)
    return exc.value.error.render()


def _tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _patch(*body: str) -> str:
    return "\n".join(("*** Begin Patch", *body, "*** End Patch")) + "\n"


def test_spec_matches_the_trained_definition():
    # codex-rs tools: a function tool named apply_patch with one required string `input`.
    spec = TOOL.spec
    assert spec.name == "apply_patch"
    assert spec.parameters["required"] == ["input"]
    assert list(spec.parameters["properties"]) == ["input"]
    assert spec.parameters["properties"]["input"]["type"] == "string"
    assert spec.parameters["additionalProperties"] is False
    assert not spec.read_only and spec.needs_approval


# ----- codex fixtures (data) ---------------------------------------------------------------

CODEX_FIXTURES = [
    # 003_multiple_chunks
    ({"multi.txt": "line1\nline2\nline3\nline4\n"},
     _patch("*** Update File: multi.txt", "@@", "-line2", "+changed2", "@@", "-line4", "+changed4"),
     {"multi.txt": "line1\nchanged2\nline3\nchanged4\n"}),
    # 014_update_file_appends_trailing_newline
    ({"no_newline.txt": "no newline at end"},
     _patch("*** Update File: no_newline.txt", "@@", "-no newline at end", "+first line", "+second line"),
     {"no_newline.txt": "first line\nsecond line\n"}),
    # 016_pure_addition_update_chunk
    ({"input.txt": "line1\nline2\n"},
     _patch("*** Update File: input.txt", "@@", "+added line 1", "+added line 2"),
     {"input.txt": "line1\nline2\nadded line 1\nadded line 2\n"}),
    # 022_update_file_end_of_file_marker
    ({"tail.txt": "first\nsecond\n"},
     _patch("*** Update File: tail.txt", "@@", " first", "-second", "+second updated", "*** End of File"),
     {"tail.txt": "first\nsecond updated\n"}),
    # 001_add_file
    ({}, _patch("*** Add File: bar.md", "+This is a new file"), {"bar.md": "This is a new file\n"}),
    # 004_move_to_new_directory
    ({"old/name.txt": "old content\n", "old/other.txt": "unrelated file\n"},
     _patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-old content", "+new content"),
     {"old/other.txt": "unrelated file\n", "renamed/dir/name.txt": "new content\n"}),
    # 010_move_overwrites_existing_destination
    ({"old/name.txt": "from\n", "old/other.txt": "unrelated file\n", "renamed/dir/name.txt": "existing\n"},
     _patch("*** Update File: old/name.txt", "*** Move to: renamed/dir/name.txt", "@@", "-from", "+new"),
     {"old/other.txt": "unrelated file\n", "renamed/dir/name.txt": "new\n"}),
    # 011_add_overwrites_existing_file
    ({"duplicate.txt": "old content\n"}, _patch("*** Add File: duplicate.txt", "+new content"),
     {"duplicate.txt": "new content\n"}),
    # 019_unicode_simple (its End Patch marker carries a trailing space)
    ({"foo.txt": "line1\nnaïve café\nline3\n"},
     "*** Begin Patch\n*** Update File: foo.txt\n@@\n line1\n-naïve café\n+naïve café ✅\n*** End Patch \n",
     {"foo.txt": "line1\nnaïve café ✅\nline3\n"}),
    # 021_update_file_deletion_only
    ({"lines.txt": "line1\nline2\nline3\n"}, _patch("*** Update File: lines.txt", "@@", " line1", "-line2", " line3"),
     {"lines.txt": "line1\nline3\n"}),
    # 020_delete_file_success
    ({"keep.txt": "keep\n", "obsolete.txt": "obsolete\n"}, _patch("*** Delete File: obsolete.txt"),
     {"keep.txt": "keep\n"}),
]


@pytest.mark.parametrize(("files", "patch", "expected"), CODEX_FIXTURES)
def test_codex_fixture(tmp_path: Path, files: dict[str, str], patch: str, expected: dict[str, str]):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    out = _run(tmp_path, patch)
    assert out.startswith("Success. Updated the following files:")
    assert _tree(tmp_path) == {k: v.encode() for k, v in expected.items()}


@pytest.mark.parametrize(("files", "patch"), [
    ({"foo.txt": "x\n"}, "*** Begin Patch\n*** End Patch"),  # 005_rejects_empty_patch
    ({"modify.txt": "line1\nline2\n"}, _patch("*** Update File: modify.txt", "@@", "-missing", "+changed")),  # 006
    ({"foo.txt": "x\n"}, _patch("*** Delete File: missing.txt")),  # 007_rejects_missing_file_delete
    ({"foo.txt": "x\n"}, _patch("*** Update File: foo.txt")),  # 008_rejects_empty_update_hunk
    ({"foo.txt": "x\n"}, _patch("*** Update File: missing.txt", "@@", "-x", "+y")),  # 009
    ({"dir/foo.txt": "x\n"}, _patch("*** Delete File: dir")),  # 012_delete_directory_fails
    ({"foo.txt": "x\n"}, _patch("*** Frobnicate File: foo.txt")),  # 013_rejects_invalid_hunk_header
])
def test_codex_rejections_change_nothing(tmp_path: Path, files: dict[str, str], patch: str):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    before = _tree(tmp_path)
    msg = _fails(tmp_path, patch)
    assert "Traceback" not in msg and msg.strip()
    assert _tree(tmp_path) == before


# ----- every operation, and atomicity -----------------------------------------------------------

def test_all_operations_in_one_patch(tmp_path: Path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src/app.py").write_text('def greet():\n    print("Hi")\n\n\ndef other():\n    pass\n')
    (tmp_path / "obsolete.txt").write_text("old\n")
    out = _run(tmp_path, _patch(
        "*** Add File: hello.txt", "+Hello world",
        "*** Update File: src/app.py", "*** Move to: src/main.py", "@@ def greet():", '-    print("Hi")',
        '+    print("Hello, world!")',
        "*** Delete File: obsolete.txt",
    ))
    assert out.splitlines()[1:] == ["A hello.txt", "M src/main.py", "D obsolete.txt"]
    assert _tree(tmp_path) == {
        "hello.txt": b"Hello world\n",
        "src/main.py": b'def greet():\n    print("Hello, world!")\n\n\ndef other():\n    pass\n',
    }


def test_a_failing_file_leaves_every_file_untouched(tmp_path: Path):
    (tmp_path / "a.txt").write_text("one\ntwo\n")
    (tmp_path / "b.txt").write_text("three\n")
    before = _tree(tmp_path)
    msg = _fails(tmp_path, _patch(
        "*** Update File: a.txt", "@@", "-one", "+ONE",
        "*** Add File: c.txt", "+new",
        "*** Update File: b.txt", "@@", "-not there", "+x",
    ))
    assert "Failed to find expected lines in b.txt" in msg
    assert "-not there" in msg  # the hunk that did not match is quoted
    assert _tree(tmp_path) == before


def test_a_write_failure_midway_rolls_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    (tmp_path / "a.txt").write_text("one\n")
    (tmp_path / "b.txt").write_text("two\n")
    before = _tree(tmp_path)
    real = Workspace.write_atomic
    calls = {"n": 0}

    def flaky(self: Workspace, path: str, data: bytes, *, create_dirs: bool = False) -> bool:
        calls["n"] += 1
        if calls["n"] == 2:
            raise OSError("disk full")
        return real(self, path, data, create_dirs=create_dirs)

    monkeypatch.setattr(Workspace, "write_atomic", flaky)
    with pytest.raises(OSError):
        _run(tmp_path, _patch("*** Update File: a.txt", "@@", "-one", "+ONE", "*** Update File: b.txt", "@@",
                              "-two", "+TWO"))
    monkeypatch.setattr(Workspace, "write_atomic", real)
    assert _tree(tmp_path) == before


def test_nested_anchors_pick_the_method_in_the_right_class(tmp_path: Path):
    body = "class A:\n    def run(self):\n        return 1\n\nclass B:\n    def run(self):\n        return 1\n"
    (tmp_path / "m.py").write_text(body)
    _run(tmp_path, _patch("*** Update File: m.py", "@@ class B:", "@@     def run(self):", "-        return 1",
                          "+        return 2"))
    assert (tmp_path / "m.py").read_text() == body.replace("return 1\n", "return 2\n").replace(
        "return 2\n\nclass B", "return 1\n\nclass B", 1)


def test_ambiguous_context_is_an_error_not_a_guess(tmp_path: Path):
    (tmp_path / "d.txt").write_text("x = 1\ny = 2\nx = 1\n")
    msg = _fails(tmp_path, _patch("*** Update File: d.txt", "@@", "-x = 1", "+x = 3"))
    assert "matches 2 places" in msg and "lines 1, 3" in msg
    assert (tmp_path / "d.txt").read_text() == "x = 1\ny = 2\nx = 1\n"


def test_whitespace_tolerant_match_is_reported(tmp_path: Path):
    (tmp_path / "w.py").write_text("def f():\n    return 1   \n")
    out = _run(tmp_path, _patch("*** Update File: w.py", "@@", " def f():", "-    return 1", "+    return 2"))
    assert (tmp_path / "w.py").read_text() == "def f():\n    return 2\n"
    assert "trailing whitespace ignored" in out


def test_crlf_files_keep_their_line_endings(tmp_path: Path):
    (tmp_path / "c.txt").write_bytes(b"a\r\nb\r\nc\r\n")
    _run(tmp_path, _patch("*** Update File: c.txt", "@@", " a", "-b", "+B"))
    assert (tmp_path / "c.txt").read_bytes() == b"a\r\nB\r\nc\r\n"


def test_heredoc_wrapper_and_padded_markers_are_accepted(tmp_path: Path):
    (tmp_path / "f.txt").write_text("old\n")
    _run(tmp_path, "<<'EOF'\n  *** Begin Patch  \n*** Update File: f.txt\n@@\n-old\n+new\n *** End Patch\nEOF\n")
    assert (tmp_path / "f.txt").read_text() == "new\n"
    _run(tmp_path, "apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f.txt\n@@\n-new\n+newer\n*** End Patch\nEOF")
    assert (tmp_path / "f.txt").read_text() == "newer\n"


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.txt", ".git/config"])
def test_paths_outside_or_protected_are_refused(tmp_path: Path, path: str):
    ws = tmp_path / "ws"
    (ws / ".git").mkdir(parents=True)
    (ws / ".git/config").write_text("[core]\n")
    msg = _fails(ws, _patch(f"*** Add File: {path}", "+x"))
    assert msg
    assert not (tmp_path / "outside.txt").exists()
    assert (ws / ".git/config").read_text() == "[core]\n"


def test_changed_paths_name_sources_and_move_targets():
    patch = _patch("*** Update File: a.py", "*** Move to: b.py", "@@", "-x", "+y", "*** Delete File: c.py")
    assert TOOL.changed_paths({"input": patch}) == ["a.py", "b.py", "c.py"]
    assert TOOL.changed_paths({"input": 3}) == []


def test_preview_is_the_diff_and_writes_nothing(tmp_path: Path):
    (tmp_path / "p.txt").write_text("a\nb\n")
    view = TOOL.preview({"input": _patch("*** Update File: p.txt", "@@", " a", "-b", "+c")}, _ctx(tmp_path))
    assert "-b\n+c\n" in view and "a/p.txt" in view
    assert (tmp_path / "p.txt").read_text() == "a\nb\n"


# ----- the class: random files, random hunks ----------------------------------------------------

def _random_case(rng: random.Random) -> tuple[list[str], str, list[str]]:
    """A file of unique lines, a patch of several hunks with 0-3 lines of context, and the expected lines."""
    n = rng.randint(8, 60)
    lines = [f"line {i} {rng.randrange(10**6)}" for i in range(n)]
    starts = sorted(rng.sample(range(n), rng.randint(1, min(5, n // 4))))
    expected: list[str] = []
    body: list[str] = []
    pos = 0
    for s in starts:
        if s < pos:
            continue
        ctx = rng.randint(0, 3)
        lo = max(pos, s - ctx)
        removed = lines[s:s + rng.randint(0, 3)]
        end = s + len(removed)
        after = lines[end:end + ctx]
        added = [f"new {rng.randrange(10**6)}" for _ in range(rng.randint(0 if removed else 1, 3))]
        if not removed and not (lines[lo:s] or after):
            continue  # a context-free pure addition goes to the end of the file: not this shape
        expected += lines[pos:lo]
        body += ["@@", *(" " + x for x in lines[lo:s]), *("-" + x for x in removed), *("+" + x for x in added),
                 *(" " + x for x in after)]
        expected += lines[lo:s] + added + after
        pos = end + len(after)
    expected += lines[pos:]
    if not body:
        body = ["@@", "+tail"]
        expected.append("tail")
    return lines, _patch("*** Update File: r.txt", *body), expected


@pytest.mark.parametrize("seed", range(40))
def test_random_multi_hunk_patches_apply_exactly(tmp_path: Path, seed: int):
    rng = random.Random(seed)
    lines, patch, expected = _random_case(rng)
    (tmp_path / "r.txt").write_text("\n".join(lines) + "\n")
    _run(tmp_path, patch)
    assert (tmp_path / "r.txt").read_text() == "\n".join(expected) + "\n"


MUTATIONS = [
    lambda p: p.replace("*** Begin Patch\n", "", 1),
    lambda p: p.replace("*** End Patch", "*** Stop Patch"),
    lambda p: p.replace("*** Update File: r.txt", "*** Update File: "),
    lambda p: p.replace("*** Update File: r.txt", "*** Change File: r.txt"),
    lambda p: p.replace("\n-", "\n?", 1) if "\n-" in p else p.replace("\n+", "\n?", 1),
    lambda p: p.replace("@@", "@@ no such anchor line anywhere", 1),
    lambda p: p[: len(p) // 2],
    lambda p: p.replace(" line", " LINE"),
    lambda p: "",
    lambda p: "\x00" * 10,
]


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("mutate", range(len(MUTATIONS)))
def test_mutated_patches_fail_clearly_and_change_nothing(tmp_path: Path, seed: int, mutate: int):
    rng = random.Random(seed)
    lines, patch, _ = _random_case(rng)
    original = "\n".join(lines) + "\n"
    (tmp_path / "r.txt").write_text(original)
    bad = MUTATIONS[mutate](patch)
    try:
        _run(tmp_path, bad)
    except ToolFailure as exc:
        text = exc.error.render()
        assert text and "Traceback" not in text
        assert (tmp_path / "r.txt").read_text() == original
        return
    # A mutation that leaves a valid patch (e.g. a context-free hunk) must still apply cleanly.
    assert (tmp_path / "r.txt").exists()


def test_parse_reports_the_offending_line():
    with pytest.raises(v4a.PatchError) as exc:
        v4a.parse(_patch("*** Update File: a", "@@", " ok", "bad line"))
    # "bad line" ends the hunk and cannot start another: named with its line number
    assert "'bad line'" in exc.value.message and "line 5" in exc.value.message
