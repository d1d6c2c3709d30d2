"""Issue 23, class 3: every way to make a socket, tried with real syscalls inside the real sandbox.

Generated: `socket(family, type, 0)` for every address family number (0..AF_MAX) and type, every
netlink protocol, `socketpair` for every family and type, and the three io_uring syscalls (whose
IORING_OP_SOCKET makes sockets without `socket()`). Only AF_INET/AF_INET6 sockets, NETLINK_ROUTE
and stream/seqpacket pairs may come back. Then, with the network off and on, a host listener on
an abstract unix address (stream and datagram) and one on a socket file in the workspace count
what reaches them: nothing may.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import socket
import threading
from pathlib import Path

import pytest
from sandbox_attacks import PY, run_sandboxed

from agentcli.tools import bwrap, seccomp

AF_MAX = 46
TYPES = (1, 2, 3, 4, 5, 10)  # stream, dgram, raw, rdm, seqpacket, packet

_PROBE = r"""
import ctypes, json, os, socket, sys
nr = json.loads(sys.argv[1]); AF_MAX = int(sys.argv[2]); types = json.loads(sys.argv[3])
libc = ctypes.CDLL(None, use_errno=True); libc.syscall.restype = ctypes.c_long
def sc(*a):
    r = libc.syscall(*a)
    return -ctypes.get_errno() if r < 0 else r
made = []
tried = 0
for fam in range(AF_MAX):
    for typ in types:
        for flags in (0, 0o2000000 | 0o4000):  # and with SOCK_CLOEXEC | SOCK_NONBLOCK
            tried += 1
            fd = sc(nr["socket"], fam, typ | flags, 0)
            if fd >= 0:
                os.close(fd); made.append(["socket", fam, typ, 0])
            sv = (ctypes.c_int * 2)()
            tried += 1
            if sc(nr["socketpair"], fam, typ | flags, 0, sv) == 0:
                os.close(sv[0]); os.close(sv[1]); made.append(["socketpair", fam, typ, 0])
for proto in range(32):
    for typ in (2, 3):
        tried += 1
        fd = sc(nr["socket"], 16, typ, proto)
        if fd >= 0:
            os.close(fd); made.append(["socket", 16, typ, proto])
params = ctypes.create_string_buffer(120)
uring = {"setup": sc(nr["io_uring_setup"], 8, params), "enter": sc(nr["io_uring_enter"], 0, 1, 0, 0, 0, 0),
         "register": sc(nr["io_uring_register"], 0, 0, 0, 0)}
tried += 3
reached = []
for name in sys.argv[4:]:
    addr = name.encode().replace(b"@", b"\0", 1)
    for kind in ("stream", "dgram", "pair-dgram", "pair-stream", "pair-seqpacket"):
        tried += 1
        try:
            if kind.startswith("pair-"):
                s = socket.socketpair(socket.AF_UNIX, getattr(socket, "SOCK_" + kind[5:].upper()))[0]
            else:
                s = socket.socket(socket.AF_UNIX, getattr(socket, "SOCK_" + kind.upper()))
        except OSError:
            continue
        s.settimeout(2)
        try:
            if kind == "dgram":
                s.sendto(b"x", addr)
            else:
                s.connect(addr)  # a pair is connected already: only a datagram pair could be pointed elsewhere
                s.send(b"x")
            reached.append(name + " " + kind)
        except OSError:
            pass
        finally:
            s.close()
print(json.dumps({"made": made, "uring": uring, "reached": reached, "tried": tried}))
"""


@pytest.fixture(scope="module", autouse=True)
def sandbox_required() -> None:
    st = bwrap.status(refresh=True)
    if not st.available:
        pytest.fail(f"the shell sandbox cannot start here: {st.detail}. {st.hint}", pytrace=False)
    if not st.seccomp:
        pytest.fail(f"no seccomp filter for {platform.machine()}", pytrace=False)


class _Listeners:
    """Host unix listeners (abstract stream and datagram, a socket file) counting what reaches them."""

    def __init__(self, ws: Path) -> None:
        tag = secrets.token_hex(6)
        self.names = [f"@agentcli-test-{tag}-s", f"@agentcli-test-{tag}-d", str(ws / "host.sock")]
        self.hits = {n: 0 for n in self.names}
        self.socks = []
        stream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        stream.bind(self.names[0].replace("@", "\0", 1))
        stream.listen(8)
        dgram = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        dgram.bind(self.names[1].replace("@", "\0", 1))
        path = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        path.bind(self.names[2])
        path.listen(8)
        os.chmod(self.names[2], 0o777)
        self.socks = [stream, dgram, path]
        self.stop = threading.Event()
        for name, s in zip(self.names, self.socks, strict=True):
            s.settimeout(0.2)
            threading.Thread(target=self._serve, args=(name, s), daemon=True).start()

    def _serve(self, name: str, s: socket.socket) -> None:
        while not self.stop.is_set():
            try:
                if s.type == socket.SOCK_DGRAM:
                    s.recv(16)
                else:
                    s.accept()[0].close()
                self.hits[name] += 1
            except OSError:
                continue

    def settle(self) -> dict[str, int]:
        import time

        time.sleep(0.5)
        return dict(self.hits)

    def close(self) -> None:
        self.stop.set()
        for s in self.socks:
            s.close()


@pytest.mark.parametrize("network", [False, True], ids=["network-off", "network-on"])
def test_only_ip_sockets_and_private_pairs_can_be_made(network: bool, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "probe.py").write_text(_PROBE)
    nr = seccomp.ARCHES[platform.machine()].nr
    listeners = _Listeners(ws)
    try:
        # Control: from the host the listeners are reached (the probe can tell).
        import subprocess

        control = subprocess.run([PY, "probe.py", json.dumps(nr), "0", "[]", *listeners.names], cwd=ws,
                                 capture_output=True, text=True, timeout=60, check=True)
        before = listeners.settle()
        assert all(before.values()), (before, control.stdout)
        ran = run_sandboxed(ws, f"{PY} probe.py '{json.dumps(nr)}' {AF_MAX} '{json.dumps(TYPES)}' "
                                + " ".join(listeners.names), network=network)
        after = listeners.settle()
    finally:
        listeners.close()
    assert ran.code == 0, ran
    out = json.loads(ran.out.strip().splitlines()[-1])
    allowed = {("socket", f) for f in seccomp.ALLOWED_FAMILIES} | {("socketpair", seccomp.AF_UNIX)}
    bad = [m for m in out["made"] if (m[0], m[1]) not in allowed and not (m[1] == 16 and m[3] == 0)]
    assert bad == [], bad
    pairs = {m[2] for m in out["made"] if m[0] == "socketpair"}
    assert pairs <= set(seccomp.ALLOWED_PAIR_TYPES), pairs
    assert {m[3] for m in out["made"] if m[1] == 16} <= {0}  # NETLINK_ROUTE only
    assert out["uring"] == {"setup": -38, "enter": -38, "register": -38}
    assert out["reached"] == [] and after == before, (out["reached"], before, after)
    print(f"\nsandbox-seccomp[{'on' if network else 'off'}]: 0 of {out['tried']} socket-making calls got past the "
          f"allow-list ({len(out['made'])} allowed: IP, NETLINK_ROUTE, stream pairs); 0 of 3 host unix listeners reached")
