"""The workspace sandbox: the escape corpus for every file tool, a fuzzer, a symlink race, protected paths."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
from pathlib import Path

import pytest
from _toolbox import CANARY, Box
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.tools.sandbox import Workspace

FUZZ_EXAMPLES = int(os.environ.get("AGENTCLI_FUZZ_EXAMPLES", "2000"))


def escape_corpus(box: Box) -> list[str]:
    """Paths that try to leave the workspace (issue 8 §1); every one must be a PERMISSION error."""
    out, sib = str(box.outside), str(box.sibling)
    return [
        "..", "../", "../.", "./..", "../outside/secret.txt", "../../etc/passwd", "../../../../../../etc/passwd",
        "src/../../outside/secret.txt", "a/../../outside/secret.txt", "src/pkg/../../../outside/secret.txt",
        "./../outside/sub/secret.txt", "src/./../../outside",
        f"{out}/secret.txt", out, "/etc/passwd", "/", "/.", "/etc/../etc/passwd", "//etc/passwd",
        f"{sib}/secret.txt", "../ws-evil/secret.txt", "../ws-evil", f"{box.root}-evil/secret.txt",
        "~", "~/secret.txt", "~root/.ssh/id_rsa",
        "../outside/.", "../outside/secret.txt/.", "../outside/sub/",
        "..\\outside\\secret.txt", "src\\..\\..\\outside\\secret.txt", "\\etc\\passwd",
        "src/main.py\x00../../outside/secret.txt", "\x00", "../outside/secret.txt\x00.py",
        "x" * 300, "a/" * 2100 + "f", "../" * 1500 + "etc/passwd",
        "%2e%2e/outside/secret.txt", "%2E%2E%2Foutside%2Fsecret.txt", "..%2foutside%2fsecret.txt",
        "src/%2e%2e/%2e%2e/outside/secret.txt", "%2e%2e%5coutside",
        "\uff0e\uff0e/outside/secret.txt", "\u2025/outside/secret.txt", "src/\uff0e\uff0e/\uff0e\uff0e/outside",
        "..\uff0foutside\uff0fsecret.txt", ".\u2024/outside",
        "link_file", "link_dir/secret.txt", "link_dir", "link_dir/sub/secret.txt", "src/pkg/up/secret.txt",
        "src/pkg/up", "link_sibling/secret.txt", "./link_dir/../link_dir/secret.txt",
    ]


FILE_TOOLS = {
    "read_file": lambda p: {"path": p},
    "list_files": lambda p: {"path": p, "recursive": True, "include_hidden": True},
    "search": lambda p: {"pattern": "CANARY"} | {"path": p},
    "write_file": lambda p: {"path": p, "content": "PWNED"},
    "edit_file": lambda p: {"path": p, "old_content": "CANARY", "new_content": "PWNED"},
}


async def test_escape_corpus_every_file_tool(box: Box):
    corpus = escape_corpus(box)
    attempts, refused = 0, 0
    for name, make in FILE_TOOLS.items():
        for path in corpus:
            r = await box.call(name, **make(path))
            attempts += 1
            assert not r.ok, (name, path, r.content[:200])
            assert r.error.code is ErrorCode.PERMISSION, (name, repr(path)[:80], r.content[:200])
            assert CANARY not in r.content
            refused += 1
    assert box.outside_unchanged(), "a file outside the workspace was read-modified or created"
    assert refused == attempts == len(corpus) * len(FILE_TOOLS)
    print(f"\npath-escape corpus: {attempts} attempts, 0 escapes, {refused} structured permission errors")


def _escapes(root: Path, path: str) -> bool:
    """Independent oracle: does this path, as the OS would resolve it, end outside root?"""
    if "\x00" in path:
        return False
    real = os.path.realpath(os.path.join(root, path))
    return not (real == str(root) or real.startswith(str(root) + os.sep))


_SEGMENTS = st.sampled_from([
    "..", ".", "", "src", "pkg", "main.py", "link_dir", "link_file", "up", "outside", "secret.txt", "ws-evil",
    "sub", "%2e%2e", "%2f", "\uff0e\uff0e", "\u2025", "~", "\\", "..\\..", "\x00", "a" * 260, ".git", "README.md",
    "new.txt", "x%00y", "link_sibling",
])


@st.composite
def fuzz_paths(draw) -> str:
    parts = draw(st.lists(_SEGMENTS, min_size=1, max_size=8))
    lead = draw(st.sampled_from(["", "/", "./", "../", "~/"]))
    return lead + "/".join(parts) + draw(st.sampled_from(["", "/", "/.", "/.."]))


@pytest.mark.slow
def test_fuzz_paths_never_escape():
    base = Path(tempfile.mkdtemp(prefix="agentcli-fuzz-"))
    box = Box(base)
    loop = asyncio.new_event_loop()
    stats = {"attempts": 0, "escaping": 0, "permission": 0}

    @settings(max_examples=FUZZ_EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
    @given(path=fuzz_paths(), tool=st.sampled_from(sorted(FILE_TOOLS)))
    def check(path: str, tool: str) -> None:
        stats["attempts"] += 1
        r = loop.run_until_complete(box.call(tool, **FILE_TOOLS[tool](path)))
        assert CANARY not in r.content, (tool, path)
        if _escapes(box.root, path):
            stats["escaping"] += 1
            assert not r.ok and r.error.code is ErrorCode.PERMISSION, (tool, path, r.content[:200])
            stats["permission"] += 1
        if not r.ok:
            assert r.error is not None and r.content.startswith("Error [")

    try:
        check()
        assert box.outside_unchanged()
    finally:
        loop.close()
        shutil.rmtree(base, ignore_errors=True)
    assert stats["permission"] == stats["escaping"]
    print(f"\nfuzz: {stats['attempts']} calls, {stats['escaping']} escaping paths, 0 escapes, "
          f"{stats['permission']} permission errors")


def test_protected_paths_cannot_be_written(box: Box):
    for path in (".git/config", ".git/hooks/pre-commit", ".agent/profiles.toml", ".agent/sessions/x.json",
                 "src/../.git/config", ".GIT/config", "sub/.git/HEAD", "./.agent", ".git"):
        r = box.run("write_file", path=path, content="evil")
        assert not r.ok and r.error.code is ErrorCode.PERMISSION, path
    assert (box.root / ".git/config").read_text() == "[core]\n"
    assert not (box.root / ".agent").exists()
    r = box.run("edit_file", path=".git/config", old_content="[core]", new_content="[x]")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION
    os.symlink(box.root / ".git", box.root / "gitlink")
    r = box.run("write_file", path="gitlink/config", content="evil")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION
    assert box.run("read_file", path=".git/config").ok  # reading is fine


def test_writes_never_go_through_symlinks(box: Box):
    (box.root / "target.txt").write_text("inside\n")
    os.symlink("target.txt", box.root / "alias.txt")
    r = box.run("write_file", path="alias.txt", content="x")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION
    r = box.run("write_file", path="link_file", content="x")
    assert not r.ok and r.error.code is ErrorCode.PERMISSION
    assert (box.root / "target.txt").read_text() == "inside\n" and box.outside_unchanged()
    # Reading through a link that stays inside is fine.
    assert box.run("read_file", path="alias.txt").content == "1\tinside\n"


def test_sibling_prefix_is_outside(tmp_path: Path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws-evil").mkdir()
    (tmp_path / "ws-evil" / "x").write_text("no")
    ws = Workspace(tmp_path / "ws")
    with pytest.raises(ToolFailure) as e:
        ws.resolve(str(tmp_path / "ws-evil" / "x"), write=False)
    assert e.value.error.code is ErrorCode.PERMISSION
    assert ws.resolve(str(tmp_path / "ws"), write=False) == ws.root
    assert ws.relative(ws.root / "a" / "b") == "a/b"


def test_symlink_race_leaks_nothing(box: Box):
    """A thread swaps checked names for links to the canaries for ~1 s while we read and write them."""
    root = box.root
    (root / "safe.txt").write_text("SAFE\n")
    (root / "realdir").mkdir()
    (root / "realdir" / "secret.txt").write_text("SAFE\n")
    os.symlink("safe.txt", root / "swap.txt")
    os.symlink("realdir", root / "swapdir")
    stop = threading.Event()

    def swapper() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            for name, good, bad in (("swap.txt", "safe.txt", str(box.outside / "secret.txt")),
                                    ("swapdir", "realdir", str(box.outside))):
                tmp = root / f".{name}.{n}"
                os.symlink(bad if n % 2 else good, tmp)
                os.replace(tmp, root / name)
            if n % 3 == 0:  # sometimes a plain file, so the check passes on a regular file
                tmp = root / f".plain.{n}"
                tmp.write_text("SAFE\n")
                os.replace(tmp, root / "swap.txt")

    t = threading.Thread(target=swapper, daemon=True)
    t.start()
    reads = writes = leaked = 0
    try:
        for _ in range(400):  # rounds counted, not timed: the race runs as long on a busy machine
            for path in ("swap.txt", "swapdir/secret.txt"):
                try:
                    data = box.ws.read_bytes(path)
                    reads += 1
                    leaked += CANARY.encode() in data
                except ToolFailure as exc:
                    assert exc.error.code in (ErrorCode.PERMISSION, ErrorCode.NOT_FOUND, ErrorCode.VALIDATION)
                try:
                    box.ws.write_atomic("swapdir/new.txt", b"PWNED")
                    writes += 1
                except ToolFailure as exc:
                    assert exc.error.code in (ErrorCode.PERMISSION, ErrorCode.NOT_FOUND, ErrorCode.EXECUTION)
    finally:
        stop.set()
        t.join()
    assert leaked == 0
    assert not (box.outside / "new.txt").exists(), "a write landed outside the workspace"
    assert box.outside_unchanged()
    assert reads > 0 and writes > 0  # the race really ran both ways
    print(f"\nsymlink race: {reads} reads, {writes} writes, 0 canary bytes read, 0 outside files written")


def test_fifo_and_devices_are_not_read(box: Box):
    os.mkfifo(box.root / "pipe")
    r = box.run("read_file", path="pipe")  # must not hang on the FIFO
    assert not r.ok and r.error.code is ErrorCode.PERMISSION


@pytest.mark.parametrize("char", ["e", "é", "字", "😀"])
def test_a_name_of_the_longest_length_is_written_atomically(tmp_path: Path, char: str) -> None:
    """A file name up to NAME_MAX (255 bytes) in any script: the temp name beside it is cut by
    bytes, so it fits too (cut by characters, a multibyte name's temp name did not)."""

    name = char * (255 // len(char.encode("utf-8")))
    ws = Workspace(tmp_path)
    ws.write_atomic(name, b"content")
    assert (tmp_path / name).read_bytes() == b"content"
    assert [p.name for p in tmp_path.iterdir()] == [name]  # no temp file left behind
