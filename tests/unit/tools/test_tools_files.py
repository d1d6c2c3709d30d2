"""File tools: happy paths, bounded output with a way to continue, edit rules, atomic writes, previews."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from _toolbox import Box

from agentcli.core.errors import ErrorCode
from agentcli.tools.base import ToolContext

# ----- read_file ------------------------------------------------------------------------------

async def test_read_file_numbers_lines(box: Box):
    r = await box.call("read_file", path="src/main.py")
    assert r.ok and r.content == "1\tdef main():\n2\t    return 1\n"


async def test_read_file_range_and_continue_hint(box: Box):
    (box.root / "big.txt").write_text("".join(f"row {i}\n" for i in range(1, 101)))
    r = await box.call("read_file", path="big.txt", start_line=10, end_line=12)
    assert r.ok
    assert r.content.startswith("10\trow 10\n11\trow 11\n12\trow 12\n")
    assert "lines 10-12 of 100" in r.content and "start_line=13" in r.content


async def test_read_file_paginates_before_the_cap(box: Box):
    (box.root / "huge.txt").write_text("".join(f"{i:06d} " + "x" * 90 + "\n" for i in range(50_000)))
    r = await box.call("read_file", path="huge.txt")
    assert r.ok, r.content  # never TOOL_OUTPUT_TOO_LARGE in normal use
    assert len(r.content.encode()) <= box.ctx.max_output_bytes
    assert "Call read_file with start_line=" in r.content and "of 50000" in r.content
    nxt = int(r.content.split("start_line=")[1].split(" ")[0])
    r2 = await box.call("read_file", path="huge.txt", start_line=nxt)
    assert r2.ok and r2.content.startswith(f"{nxt}\t{nxt - 1:06d} ")
    shown = r.content.splitlines()[-2].split("\t")[0]
    assert int(shown) == nxt - 1  # the page ends right before the line the hint points to


async def test_read_file_long_line_is_clipped(box: Box):
    (box.root / "wide.txt").write_text("y" * 100_000 + "\nshort\n")
    r = await box.call("read_file", path="wide.txt")
    assert r.ok and "more characters on this line" in r.content and "2\tshort" in r.content


async def test_read_file_errors_are_structured(box: Box):
    (box.root / "bin.dat").write_bytes(b"\x00\x01\x02binary")
    (box.root / "empty.txt").write_text("")
    cases = {
        ("missing.txt", None): ErrorCode.NOT_FOUND,
        ("bin.dat", None): ErrorCode.VALIDATION,
        ("src", None): ErrorCode.VALIDATION,
        ("src/main.py", 99): ErrorCode.VALIDATION,
    }
    for (path, start), code in cases.items():
        args = {"path": path} if start is None else {"path": path, "start_line": start}
        r = await box.call("read_file", **args)
        assert not r.ok and r.error.code is code, (path, r.content)
        assert r.content.startswith(f"Error [{code.value}]")
    r = await box.call("read_file", path="empty.txt")
    assert r.ok and "empty" in r.content
    r = await box.call("read_file", path=42)
    assert not r.ok and r.error.code is ErrorCode.VALIDATION


async def test_read_file_detailed_mode_adds_header(box: Box):
    box.ctx.result_mode = "detailed"
    r = await box.call("read_file", path="src/main.py")
    assert r.ok and r.content.startswith("src/main.py (2 lines,")


# ----- list_files -----------------------------------------------------------------------------

async def test_list_files_flat_and_recursive(box: Box):
    r = await box.call("list_files")
    assert r.ok
    rows = r.content.splitlines()
    assert "README.md" in rows and "src/" in rows and "link_dir@" in rows
    assert not any(x.startswith(".git") for x in rows)  # hidden by default
    r = await box.call("list_files", path="src", recursive=True)
    assert r.content.splitlines() == ["main.py", "pkg/", "pkg/up@", "pkg/util.py"]
    r = await box.call("list_files", recursive=True, pattern="*.py")
    assert sorted(r.content.splitlines()) == ["src/main.py", "src/pkg/util.py"]
    r = await box.call("list_files", include_hidden=True)
    assert ".git/" in r.content.splitlines()


async def test_list_files_never_follows_links_out(box: Box):
    r = await box.call("list_files", recursive=True, include_hidden=True)
    assert r.ok and "secret.txt" not in r.content


async def test_list_files_is_capped_with_a_count(box: Box):
    d = box.root / "many"
    d.mkdir()
    for i in range(1500):
        (d / f"f{i:04d}.txt").write_text("")
    r = await box.call("list_files", path="many")
    assert r.ok and len(r.content.encode()) <= box.ctx.max_output_bytes
    assert "1000 entries shown, 500 more not shown" in r.content


async def test_list_files_on_a_file_or_missing(box: Box):
    r = await box.call("list_files", path="README.md")
    assert not r.ok and r.error.code is ErrorCode.VALIDATION
    r = await box.call("list_files", path="nope")
    assert not r.ok and r.error.code is ErrorCode.NOT_FOUND


# ----- search ---------------------------------------------------------------------------------

async def test_search_literal_regex_and_case(box: Box):
    r = await box.call("search", pattern="return a + b", context_lines=0)
    assert r.ok and r.content == "src/pkg/util.py\n  2:     return a + b\n"
    r = await box.call("search", pattern=r"def \w+\(", type="regex", context_lines=0)
    assert "src/main.py\n  1: def main():" in r.content and "src/pkg/util.py\n  1: def add(a, b):" in r.content
    r = await box.call("search", pattern="DEF MAIN", case_sensitive=False, context_lines=0)
    assert "src/main.py" in r.content
    r = await box.call("search", pattern="nothing-like-this")
    assert r.ok and r.content.startswith("No matches")


async def test_search_context_and_globs(box: Box):
    (box.root / "notes.txt").write_text("a\nb\nneedle\nc\nd\n")
    r = await box.call("search", pattern="needle", context_lines=1)
    assert "notes.txt\n  2- b\n  3: needle\n  4- c\n" in r.content
    r = await box.call("search", pattern="def", include_pattern="*.py", exclude_pattern="src/pkg/**", context_lines=0)
    assert "src/main.py" in r.content and "util.py" not in r.content


async def test_search_is_capped_with_a_count(box: Box):
    (box.root / "hits.txt").write_text("match\n" * 300)
    r = await box.call("search", pattern="match", max_results=20, context_lines=0)
    assert r.ok and r.content.count(": match") == 20
    assert "[20 of 300 matching lines shown (280 more" in r.content


async def test_search_skips_links_binaries_and_git(box: Box):
    (box.root / "blob.bin").write_bytes(b"\x00" + CANARY_BYTES)
    r = await box.call("search", pattern="CANARY")
    assert r.ok and r.content.startswith("No matches")
    r = await box.call("search", pattern="[core]")
    assert r.content.startswith("No matches")  # .git is not searched


async def test_search_bad_regex(box: Box):
    r = await box.call("search", pattern="(unclosed", type="regex")
    assert not r.ok and r.error.code is ErrorCode.VALIDATION and "literal" in r.error.suggested_fix


CANARY_BYTES = b"CANARY-7f3a9-do-not-leak"


# ----- write_file -----------------------------------------------------------------------------

async def test_write_file_create_replace_append(box: Box):
    r = await box.call("write_file", path="out/new.txt", content="one\n")
    assert r.ok and r.content.startswith("Created out/new.txt")
    r = await box.call("write_file", path="out/new.txt", content="two\n")
    assert r.ok and r.content.startswith("Replaced") and (box.root / "out/new.txt").read_text() == "two\n"
    r = await box.call("write_file", path="out/new.txt", content="three\n", mode="append")
    assert r.ok and (box.root / "out/new.txt").read_text() == "two\nthree\n"
    r = await box.call("write_file", path="nodir/x.txt", content="x", create_directories=False)
    assert not r.ok and r.error.code is ErrorCode.NOT_FOUND


async def test_write_file_keeps_mode_and_leaves_no_temp_files(box: Box):
    p = box.root / "run.sh"
    p.write_text("#!/bin/sh\n")
    p.chmod(0o755)
    r = await box.call("write_file", path="run.sh", content="#!/bin/sh\necho hi\n")
    assert r.ok and (p.stat().st_mode & 0o777) == 0o755
    assert not [x for x in os.listdir(box.root) if x.endswith(".tmp")]


async def test_write_file_preview_is_a_diff_and_writes_nothing(box: Box):
    tool = box.registry.get("write_file")
    before = (box.root / "README.md").read_text()
    diff = tool.preview({"path": "README.md", "content": "# Demo\nmore\n"}, box.ctx)
    assert "--- a/README.md" in diff and "+more" in diff
    assert (box.root / "README.md").read_text() == before
    diff = tool.preview({"path": "fresh.txt", "content": "x\n"}, box.ctx)
    assert "--- /dev/null" in diff and not (box.root / "fresh.txt").exists()
    assert "cannot preview" in tool.preview({"path": "../x", "content": ""}, box.ctx)
    assert tool.changed_paths({"path": "a.txt", "content": ""}) == ["a.txt"]


def test_write_is_atomic_under_a_crash(tmp_path):
    """Kill a writer process at random moments: the file always holds the old or the new content."""
    target = tmp_path / "ws" / "data.txt"
    target.parent.mkdir()
    old, new = "O" * 400_000, "N" * 400_000
    script = textwrap.dedent(f"""
        import os, sys
        from agentcli.tools.sandbox import Workspace
        ws = Workspace({str(target.parent)!r})
        print("ready", flush=True)
        while True:
            ws.write_atomic("data.txt", b"N" * 400_000)
            ws.write_atomic("data.txt", b"O" * 400_000)
    """)
    for _ in range(5):
        target.write_text(old)
        proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
        assert proc.stdout.readline().strip() == b"ready"
        import time
        time.sleep(0.15)
        proc.kill()
        proc.wait()
        assert target.read_text() in (old, new)
    leftovers = [p for p in target.parent.iterdir() if p.name != "data.txt"]
    assert all(p.name.endswith(".tmp") for p in leftovers)  # a killed writer may leave its temp file, never a mix


# ----- edit_file ------------------------------------------------------------------------------

async def test_edit_file_unique_first(box: Box):
    r = await box.call("edit_file", path="src/pkg/util.py", old_content="a + b", new_content="a - b")
    assert r.ok and "Replaced 1 occurrence" in r.content and "line 2" in r.content
    assert (box.root / "src/pkg/util.py").read_text() == "def add(a, b):\n    return a - b\n"


async def test_edit_file_uniqueness_rules(box: Box):
    (box.root / "dup.txt").write_text("x = 1\ny = 2\nx = 1\nx = 1\n")
    r = await box.call("edit_file", path="dup.txt", old_content="x = 1", new_content="x = 9")
    assert not r.ok and r.error.code is ErrorCode.VALIDATION
    assert "appears 3 times" in r.content and "lines 1, 3, 4" in r.content
    assert (box.root / "dup.txt").read_text() == "x = 1\ny = 2\nx = 1\nx = 1\n"
    r = await box.call("edit_file", path="dup.txt", old_content="x = 1", new_content="x = 9", occurrence="last")
    assert r.ok and (box.root / "dup.txt").read_text() == "x = 1\ny = 2\nx = 1\nx = 9\n"
    r = await box.call("edit_file", path="dup.txt", old_content="x = 1", new_content="z", occurrence="all")
    assert r.ok and "Replaced 2 occurrences" in r.content
    assert (box.root / "dup.txt").read_text() == "z\ny = 2\nz\nx = 9\n"


async def test_edit_file_misses_explain_themselves(box: Box):
    r = await box.call("edit_file", path="src/main.py", old_content="return  1", new_content="return 2")
    assert not r.ok and r.error.code is ErrorCode.VALIDATION and "spacing" in r.error.suggested_fix
    r = await box.call("edit_file", path="src/main.py", old_content="", new_content="x")
    assert not r.ok and "empty" in r.content
    r = await box.call("edit_file", path="src/main.py", old_content="return 1", new_content="return 1")
    assert not r.ok and "same" in r.content
    r = await box.call("edit_file", path="ghost.py", old_content="a", new_content="b")
    assert not r.ok and r.error.code is ErrorCode.NOT_FOUND


async def test_edit_file_crlf_and_preview(box: Box):
    (box.root / "win.txt").write_bytes(b"one\r\ntwo\r\nthree\r\n")
    tool = box.registry.get("edit_file")
    diff = tool.preview({"path": "win.txt", "old_content": "one\ntwo", "new_content": "one\n2"}, box.ctx)
    assert "-two" in diff and "+2" in diff
    assert (box.root / "win.txt").read_bytes() == b"one\r\ntwo\r\nthree\r\n"
    r = await box.call("edit_file", path="win.txt", old_content="one\ntwo", new_content="one\n2")
    assert r.ok and "CRLF" in r.content
    assert (box.root / "win.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"


async def test_edit_file_refuses_invalid_utf8(box: Box):
    (box.root / "latin.txt").write_bytes(b"caf\xe9 ok\n")
    r = await box.call("edit_file", path="latin.txt", old_content="ok", new_content="fine")
    assert not r.ok and "UTF-8" in r.content and (box.root / "latin.txt").read_bytes() == b"caf\xe9 ok\n"


# ----- think / submit / ask_user --------------------------------------------------------------

async def test_think_submit_ask_user(box: Box):
    assert (await box.call("think", thought="plan")).content == "Thought recorded."
    assert (await box.call("submit", answer="42", confidence=0.5)).content == "42"
    r = await box.call("submit", answer="42", confidence=3)
    assert not r.ok and r.error.code is ErrorCode.VALIDATION
    r = await box.call("ask_user", question="which?")
    assert not r.ok and r.error.code is ErrorCode.EXECUTION and "loop" in r.content


def test_read_only_tools_have_no_preview(box: Box):
    ctx: ToolContext = box.ctx
    for name in ("read_file", "list_files", "search", "think", "submit", "ask_user"):
        assert box.registry.get(name).preview({}, ctx) == ""


async def test_small_output_caps_still_paginate_instead_of_failing(box: Box):
    """With a tight cap every tool still answers (cut, with its note) rather than TOOL_OUTPUT_TOO_LARGE."""
    box.ctx.max_output_bytes = 1024
    (box.root / "long.txt").write_text("".join(f"line {i} " + "z" * 300 + "\n" for i in range(500)))
    (box.root / "hits.txt").write_text("needle " + "q" * 300 + "\n" * 2 + ("needle\n" * 400))
    calls = [
        ("read_file", {"path": "long.txt"}),
        ("read_file", {"path": "long.txt", "start_line": 100, "end_line": 400}),
        ("list_files", {"recursive": True, "include_hidden": True}),
        ("search", {"pattern": "needle"}),
        ("bash", {"command": "seq 1 100000; seq 1 100000 >&2"}),
    ]
    for name, args in calls:
        r = await box.call(name, **args)
        assert r.ok, (name, r.content)
        assert len(r.content.encode()) <= 1024, (name, len(r.content.encode()))
