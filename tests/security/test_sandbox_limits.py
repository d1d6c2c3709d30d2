"""Issue 23, class 4: a command's use of memory, processes, disk and CPU is bounded, per command.

Generated from inside: every writable mount the command can see (besides the workspace) is filled
by one launch until it stops; none may take more than its bound. With small profile limits,
one launch each tries to allocate past the memory limit, start more processes than allowed, write
a file past the size limit and spin past the CPU limit. Where a limit cannot be had, nothing runs.
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from sandbox_attacks import PY, run_sandboxed

from agentcli.config.schema import BashConfig
from agentcli.tools import bwrap

MB = 1 << 20
SMALL = BashConfig(memory_mb=256, processes=24, file_size_mb=4, cpu_seconds=1, tmpfs_mb=16)


@pytest.fixture(scope="module", autouse=True)
def sandbox_required() -> None:
    st = bwrap.status(refresh=True)
    if not st.available:
        pytest.fail(f"the shell sandbox cannot start here: {st.detail}. {st.hint}", pytrace=False)


_FILL = r"""
import json, os, sys
# Every writable mount the command can see (the last one mounted on a path is the one it reaches),
# except the workspace: found from inside, not from the list the sandbox was built with.
mounts = {}
for line in open("/proc/self/mountinfo"):
    f = line.split()
    fstype = f[f.index("-") + 1]
    if "rw" in f[5].split(",") and fstype not in ("proc", "devpts", "sysfs", "mqueue", "devtmpfs"):
        mounts[f[4]] = fstype
mounts.pop(sys.argv[1], None)
out = {}
for d in sorted(mounts):
    n = 0
    try:
        with open(os.path.join(d, "fill"), "wb") as f:
            chunk = b"\0" * (1 << 20)
            while n < (1 << 30):  # never more than 1 GiB per mount, bound or not
                n += f.write(chunk)
                f.flush()
    except OSError:
        pass
    try:
        out[d] = os.stat(os.path.join(d, "fill")).st_size
    except OSError:
        out[d] = 0
print(json.dumps(out))
"""


def test_every_writable_mount_is_bounded(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "fill.py").write_text(_FILL)
    lim = bwrap.Limits.of(SMALL)
    cfg = SMALL.model_copy(update={"file_size_mb": 2048})  # the file limit would stop the fill first
    ran = run_sandboxed(ws, f"{PY} fill.py {ws}", config=cfg, timeout=120)
    assert ran.code == 0, ran
    filled = json.loads(ran.out.strip().splitlines()[-1])
    assert "/tmp" in filled and "/dev/shm" in filled and len(filled) >= 4, filled
    over = {d: n for d, n in filled.items() if n > lim.tmpfs_bytes}
    assert over == {}, over
    assert filled["/tmp"] >= lim.tmpfs_bytes // 2  # it really filled (the bound, not something else, stopped it)
    total = sum(filled.values())
    print(f"\nsandbox-tmpfs: 0 of {len(filled)} writable mounts grew past their bound ({total // MB} MiB written in "
          f"all; /tmp and home {lim.tmpfs_bytes // MB} MiB each, the rest less)")


_LIMITS = r"""
import json, os, subprocess, sys, time
what = sys.argv[1]
if what == "memory":
    try:
        block = bytearray(512 << 20)
        print("ALLOCATED")
    except MemoryError:
        print("REFUSED")
elif what == "processes":
    procs, refused = [], 0
    for _ in range(64):
        try:
            procs.append(subprocess.Popen(["sleep", "30"]))
        except OSError:
            refused += 1
    print(json.dumps({"started": len(procs), "refused": refused}))
    for p in procs:
        p.kill()
elif what == "file":
    n = 0
    try:
        with open("big", "wb") as f:
            while n < (64 << 20):
                n += f.write(b"\0" * (1 << 20))
                f.flush()
    except OSError:
        pass
    print(json.dumps({"size": os.path.getsize("big")}))
elif what == "cpu":
    print("SPINNING", flush=True)
    while True:
        pass
"""


@pytest.mark.parametrize("what", ["memory", "processes", "file", "cpu"])
def test_rlimits_bound_each_command(what: str, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "limits.py").write_text(_LIMITS)
    started = time.monotonic()
    ran = run_sandboxed(ws, f"ulimit -S -f unlimited 2>/dev/null; {PY} limits.py {what}", config=SMALL, timeout=60)
    elapsed = time.monotonic() - started
    if what == "memory":
        assert "REFUSED" in ran.out and "ALLOCATED" not in ran.out, ran
    elif what == "processes":
        got = json.loads(ran.out.strip().splitlines()[-1])
        assert got["started"] < SMALL.processes and got["refused"] > 0, got
    elif what == "file":
        assert json.loads(ran.out.strip().splitlines()[-1])["size"] <= SMALL.file_size_mb * MB, ran
    else:
        assert "SPINNING" in ran.out and ran.code != 0 and elapsed < 30, (ran, elapsed)
    print(f"\nsandbox-rlimit[{what}]: held (exit {ran.code}, {elapsed:.1f} s)")


def test_a_limit_that_cannot_be_set_runs_nothing(tmp_path: Path, monkeypatch) -> None:
    """Fail closed: when the kernel refuses a limit, the command does not start."""
    import resource
    import subprocess

    ws = tmp_path / "ws"
    ws.mkdir()
    preexec = bwrap.limits(10, config=SMALL)
    real = resource.setrlimit

    def refuse(which, value):
        if which == resource.RLIMIT_NPROC:
            raise OSError(1, "not here")
        real(which, value)

    monkeypatch.setattr(resource, "setrlimit", refuse)
    with pytest.raises(subprocess.SubprocessError):
        subprocess.run(["touch", str(ws / "ran")], preexec_fn=preexec, check=False)
    assert not (ws / "ran").exists()


def test_a_bubblewrap_that_cannot_bound_tmpfs_is_no_sandbox(monkeypatch) -> None:
    monkeypatch.setattr(bwrap, "_version", lambda exe: (0, 4, 0))
    try:
        st = bwrap.status(refresh=True)
        assert not st.available and "0.5" in st.detail and "0.5" in st.hint
    finally:
        bwrap.set_status(None)


def test_limits_are_profile_settings_with_safe_defaults() -> None:
    default = bwrap.Limits.of(BashConfig())
    assert default == bwrap.Limits()
    assert default.memory_bytes == 16 << 30 and default.processes == 512 and default.tmpfs_bytes == 1 << 30
    for bad in ({"memory_mb": 0}, {"processes": 1}, {"file_size_mb": 0}, {"cpu_seconds": 0}, {"tmpfs_mb": 0}):
        with pytest.raises(ValueError):
            BashConfig(**bad)
    assert "512 processes" in default.describe() and "CPU the timeout + 5 s" in default.describe()


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_the_default_limits_leave_room_for_what_toolchains_reserve(tmp_path: Path) -> None:
    """The address-space bound is no memory quota: node reserves about 10 GB of address space for
    one WebAssembly memory (JS toolchains use it), so the default must be above that."""
    ws = tmp_path / "ws"
    ws.mkdir()
    ran = run_sandboxed(ws, "node -e 'new WebAssembly.Memory({initial: 1}); console.log(\"wasm ok\")'",
                        config=BashConfig())
    assert ran.refused is None and "wasm ok" in ran.out, (ran.out, ran.err)
