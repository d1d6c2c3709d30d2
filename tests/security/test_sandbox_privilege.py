"""Issue 23, class 2: root inside the sandbox is not root outside.

The /proc writers are generated from this host: every file under /proc/sys that the agent's
uid may open for writing, and every other /proc entry that is not a process's own (sysrq-trigger,
irq/*, bus/*, fs/*, mtrr, ...). One sandbox launch tries to open each for writing (no byte is
written: opening is where the kernel decides, and writing would change the host) and really
writes two canaries, vm.swappiness and kernel.core_pattern, whose host values must not move.
The command must not be host root: its uid maps to a non-root host uid, it has no capability,
and the workspace stays editable, with new files owned on the host by the agent's own uid.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from pathlib import Path

import pytest
from sandbox_attacks import PY, run_sandboxed

from agentcli.tools import bwrap, seccomp

CANARIES = {"/proc/sys/vm/swappiness": None, "/proc/sys/kernel/core_pattern": None}


@pytest.fixture(scope="module", autouse=True)
def sandbox_required() -> None:
    st = bwrap.status(refresh=True)
    if not st.available:
        pytest.fail(f"the shell sandbox cannot start here: {st.detail}. {st.hint}", pytrace=False)


def _host_writers() -> list[str]:
    """Every /proc path outside the pid dirs that the agent's uid could open for writing here."""
    found = []
    for top in sorted(os.listdir("/proc")):
        if top.isdigit() or top in ("self", "thread-self", "net", "mounts"):
            continue
        base = f"/proc/{top}"
        if os.path.isfile(base) and not os.path.islink(base):
            if os.access(base, os.W_OK):
                found.append(base)
            continue
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = [d for d in dirnames if not d.isdigit() or top == "irq"]
            for name in filenames:
                p = os.path.join(dirpath, name)
                if os.access(p, os.W_OK) and not os.path.islink(p):
                    found.append(p)
    return found


_PROBE = r"""
import json, os, sys
paths = json.load(open(sys.argv[1]))
opened = []
for p in paths:
    try:
        fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:
        continue
    os.close(fd)
    opened.append(p)
canaries = {}
for p, value in [] if sys.argv[2:] == ["control"] else (("/proc/sys/vm/swappiness", "37"), ("/proc/sys/kernel/core_pattern", "|/bin/true %p")):
    try:
        with open(p, "w") as f:
            f.write(value)
        canaries[p] = "written"
    except OSError as exc:
        canaries[p] = exc.strerror
status = dict(line.split(":\t", 1) for line in open("/proc/self/status").read().splitlines() if ":\t" in line)
print(json.dumps({"opened": opened, "canaries": canaries, "uid": os.getuid(), "euid": os.geteuid(),
                  "uid_map": open("/proc/self/uid_map").read().split(),
                  "caps": {k: status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
                  "nnp": status.get("NoNewPrivs", "").strip()}))
"""


def test_no_proc_writer_reaches_the_host(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    writers = _host_writers()
    (ws / "paths.json").write_text(json.dumps(writers))
    (ws / "probe.py").write_text(_PROBE)
    if os.geteuid() == 0:  # the class is root's: the control, run outside the sandbox, opens them
        assert len(writers) > 50, "the host shows too few /proc writers for the check to mean much"
        control = subprocess.run([PY, "probe.py", "paths.json", "control"], cwd=ws, capture_output=True, text=True,
                                 timeout=120, check=True)
        assert len(json.loads(control.stdout)["opened"]) > len(writers) // 2
    host = {p: open(p).read() for p in CANARIES}
    try:
        ran = run_sandboxed(ws, f"{PY} probe.py paths.json")
    finally:
        changed = {p: open(p).read() for p in CANARIES}
        for p, value in host.items():  # put the host back before failing, should the sandbox have let it through
            if changed[p] != value:
                with open(p, "w") as f:
                    f.write(value)
    assert ran.code == 0, ran
    out = json.loads(ran.out.strip().splitlines()[-1])
    assert changed == host, "a sandboxed command changed a host sysctl"
    assert out["opened"] == [], f"{len(out['opened'])} /proc writers opened: {out['opened'][:10]}"
    assert all(v != "written" for v in out["canaries"].values()), out["canaries"]
    # Not host root: the command's uid maps to a non-zero host uid, with no capability in any set.
    uid_map = out["uid_map"]
    host_uid = next(int(uid_map[i + 1]) for i in range(0, len(uid_map), 3)
                    if int(uid_map[i]) <= out["uid"] < int(uid_map[i]) + int(uid_map[i + 2]))
    assert host_uid != 0 and out["uid"] != 0 and out["euid"] != 0, out
    assert set(out["caps"].values()) == {"0000000000000000"}, out["caps"]
    assert out["nnp"] == "1"
    print(f"\nsandbox-proc: 0 of {len(writers)} host /proc writers could be opened for writing; host uid "
          f"{host_uid}, no capabilities; swappiness and core_pattern unchanged")


def test_the_workspace_stays_editable_and_new_files_belong_to_the_agent(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "src").mkdir(parents=True)
    (ws / "src" / "main.py").write_text("print(1)\n")
    (ws / "src" / "main.py").chmod(0o644)
    (ws / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (ws / "tool.sh").chmod(0o755)
    ran = run_sandboxed(ws, "echo 'print(2)' >> src/main.py && mkdir -p build/out && echo made > build/out/a.txt "
                            "&& ln -s a.txt build/out/link && chmod +x build/out/a.txt && ./tool.sh && "
                            "mv src/main.py src/app.py && cp src/app.py src/copy.py && touch -d @0 src/copy.py "
                            "&& stat -c '%u:%g %n' src/app.py build/out/a.txt")
    assert ran.code == 0 and ran.refused is None, ran
    assert (ws / "src" / "app.py").read_text() == "print(1)\nprint(2)\n"
    uid, gid = os.geteuid(), os.getegid()
    for p in ("src/app.py", "src/copy.py", "build", "build/out", "build/out/a.txt"):
        st = (ws / p).lstat()
        assert (st.st_uid, st.st_gid) == (uid, gid), (p, st.st_uid, st.st_gid)
    assert (ws / "build" / "out" / "link").lstat().st_uid == uid
    assert os.access(ws / "build" / "out" / "a.txt", os.X_OK)
    # Inside, the workspace's files are the command's own (whatever number it has there).
    inside = {line.split()[0] for line in ran.out.splitlines() if ":" in line.split()[0]}
    assert len(inside) == 1


def test_no_new_user_namespace_no_keyring_no_setuid(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    nr = seccomp.ARCHES[platform.machine()].nr
    probe = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall.restype = ctypes.c_long\n"
             "def sc(*a):\n    r = libc.syscall(*a)\n    return -ctypes.get_errno() if r < 0 else r\n"
             f"print('unshare', sc({nr['unshare']}, 0x10000000))\nprint('keyctl', sc({nr['keyctl']}, 0, -3, 0))\n"
             f"print('add_key', sc({nr['add_key']}, b'user', b'x', b'y', 1, -3))\n")
    (ws / "p.py").write_text(probe)
    ran = run_sandboxed(ws, f"{PY} p.py; unshare -U true && echo NESTED-USERNS; "
                            "(command -v su >/dev/null && su -c 'id -u' root) 2>/dev/null | grep -qx 0 && echo SU-ROOT; "
                            "true")
    assert "NESTED-USERNS" not in ran.out and "SU-ROOT" not in ran.out, ran
    got = dict(line.split() for line in ran.out.splitlines() if line.split()[0] in ("unshare", "keyctl", "add_key"))
    assert got == {"unshare": "-1", "keyctl": "-38", "add_key": "-38"}, ran


def test_no_setuid_or_setgid_file_comes_out(tmp_path: Path) -> None:
    """A file the command makes is the agent's on the host: none may carry a setuid or setgid bit."""
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "mine").write_text("#!/bin/sh\n")
    ran = run_sandboxed(ws, f"cp /bin/true a; chmod 4755 a; chmod g+s a; chmod u+s mine; install -m 6755 /bin/true b; "
                            f"mkdir -m 2775 d; cp -p /bin/true c && chmod 4711 c; "
                            f"{PY} -c \"import os; os.open('e', os.O_CREAT | os.O_WRONLY, 0o4755)\"; "
                            f"{PY} -c \"import os; fd = os.open('f', os.O_CREAT | os.O_WRONLY, 0o755); "
                            f"os.fchmod(fd, 0o4755)\"; true")
    assert ran.code == 0, ran
    flagged = [str(p.relative_to(ws)) for p in ws.rglob("*") if p.lstat().st_mode & 0o6000]
    assert flagged == [], flagged
    print("\nsandbox-setuid: 0 of 8 ways to leave a setuid or setgid file worked")


def test_what_starts_the_sandbox_is_never_in_the_workspace(tmp_path: Path) -> None:
    """A command could replace what agentcli runs outside the sandbox to start the next one: bwrap (a
    user's ~/bin with the home dir as workspace) and, as root, the helper's interpreter, setpriv and the
    system folders. A workspace that holds any of them, or lies in one, is refused."""
    from agentcli.tools import userns

    ws = tmp_path / "home"
    (ws / "bin").mkdir(parents=True)
    fake = ws / "bin" / "bwrap"
    fake.write_text("#!/bin/sh\nexec \"$@\"\n")
    fake.chmod(0o755)
    real = bwrap.status()
    bwrap.set_status(bwrap.SandboxStatus(True, "test", bwrap=str(fake), namespaces=real.namespaces,
                                         seccomp=real.seccomp, setpriv=real.setpriv))
    try:
        assert "holds" in (bwrap.workspace_refusal(str(ws)) or "")
    finally:
        bwrap.set_status(None)
    if not userns.active():
        return
    places = [*userns.trusted_dirs(), real.setpriv, real.bwrap]
    checked = 0
    for p in places:
        for ws_path in (p, os.path.dirname(p), os.path.join(p, "sub") if os.path.isdir(p) else None):
            if ws_path and os.path.lexists(os.path.dirname(ws_path)):
                assert bwrap.workspace_refusal(ws_path), ws_path
                checked += 1
    assert bwrap.workspace_refusal("/") and checked >= 20
    print(f"\nsandbox-launchers: 0 of {checked} workspaces over what root runs outside the sandbox were accepted")
