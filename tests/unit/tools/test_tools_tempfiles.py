"""Temp files a killed write_file/edit_file left behind: swept on the next write, never listed or searched."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from _toolbox import Box

from agentcli.tools import sandbox
from agentcli.tools.sandbox import Workspace, is_temp_name


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _temp(d: Path, name: str, age: float, body: str = "half-written CANARY-TEMP\n") -> Path:
    p = d / name
    p.write_text(body)
    t = time.time() - age
    os.utime(p, (t, t))
    return p


def test_the_name_pattern_is_exact():
    assert is_temp_name(".a.py.agentcli-123-0badf00d.tmp")
    assert is_temp_name(".x.tmp.agentcli-9-00000000.tmp")
    for name in (".a.py.agentcli-123-0BADF00D.tmp", ".a.py.agentcli-123-0badf00.tmp", "a.py.agentcli-1-0badf00d.tmp",
                 ".a.py.agentcli-123-0badf00d.tmp.bak", ".a.py.agentcli--0badf00d.tmp", ".agentcli-1-0badf00d.tmp",
                 ".a.py.agentcli-0-0badf00d.tmp", ".a.py.agentcli-12x-0badf00d.tmp", ".a.py.agentcli-1-0badf00d.TMP"):
        assert not is_temp_name(name), name


async def test_next_write_sweeps_stale_temps_and_nothing_else(box: Box):
    d = box.root / "src"
    dead = _dead_pid()
    stale = _temp(d, f".main.py.agentcli-{dead}-0badf00d.tmp", 60)
    stale_own = _temp(d, f".x.agentcli-{os.getpid()}-00c0ffee.tmp", 60)  # our pid, from a killed earlier process
    fresh = _temp(d, f".main.py.agentcli-{dead}-1badf00d.tmp", 0)  # may still be renamed by its writer
    live = _temp(d, ".main.py.agentcli-1-2badf00d.tmp", 60)  # pid 1 is alive: another process's write
    orphan = _temp(d, ".main.py.agentcli-1-3badf00d.tmp", 7200)  # ... unless it is hours old
    keep = [_temp(d, n, 60) for n in (f".main.py.agentcli-{dead}-0BADF00D.tmp", f"main.py.agentcli-{dead}-0badf00d.tmp",
                                      f".main.py.agentcli-{dead}-0badf00d.tmp.bak", ".main.py.tmp")]
    (d / f".dir.agentcli-{dead}-4badf00d.tmp").mkdir()
    os.symlink(box.outside / "secret.txt", d / f".ln.agentcli-{dead}-5badf00d.tmp")
    other_dir = _temp(box.root, f".README.md.agentcli-{dead}-6badf00d.tmp", 60)
    r = await box.call("write_file", path="src/main.py", content="x = 1\n")
    assert r.ok
    assert not stale.exists() and not stale_own.exists() and not orphan.exists()
    assert fresh.exists() and live.exists() and other_dir.exists()
    assert all(p.exists() for p in keep)
    assert (d / f".dir.agentcli-{dead}-4badf00d.tmp").is_dir()
    assert (d / f".ln.agentcli-{dead}-5badf00d.tmp").is_symlink() and (box.outside / "secret.txt").exists()
    r = await box.call("edit_file", path="README.md", old_content="# Demo", new_content="# Demo 2")
    assert r.ok and not other_dir.exists()
    assert box.outside_unchanged()


async def test_list_files_and_search_skip_temp_files(box: Box):
    dead = _dead_pid()
    _temp(box.root / "src", f".main.py.agentcli-{dead}-0badf00d.tmp", 0)
    _temp(box.root, ".notes.agentcli-1-0badf00d.tmp.keep", 0)  # not our pattern: shown like any hidden file
    r = await box.call("list_files", recursive=True, include_hidden=True)
    assert r.ok and "agentcli-" + str(dead) not in r.content and ".notes.agentcli-1-0badf00d.tmp.keep" in r.content
    r = await box.call("search", pattern="CANARY-TEMP")
    assert r.ok and ".main.py.agentcli" not in r.content and ".notes.agentcli" in r.content


def test_concurrent_writers_never_sweep_each_others_temps(tmp_path, monkeypatch):
    """With the age guard off, the in-flight set alone must keep a sibling thread's temp file alive."""
    monkeypatch.setattr(sandbox, "STALE_TEMP_S", -1.0)
    ws = Workspace(tmp_path)
    errors: list[BaseException] = []
    data = b"z" * 300_000

    def writer(name: str) -> None:
        try:
            for _ in range(40):
                ws.write_atomic(name, data)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=writer, args=(f"f{k}.bin",)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"f{k}.bin" for k in range(4)]
