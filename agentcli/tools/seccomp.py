"""The command sandbox's seccomp filter: which sockets a command may make, and no way around that.

A fresh network namespace stops TCP/UDP and abstract sockets, but a socket *file* (tmux,
docker, D-Bus, ssh-agent, an X server) is reached by path, and a path can be anywhere the
sandbox can see; with `network = true` the host's abstract unix sockets are reachable too.
Hiding directories is a list; the filter is the class. Every syscall that makes a socket:

- `socket`: only AF_INET, AF_INET6 and AF_NETLINK/NETLINK_ROUTE (what name lookup needs). AF_UNIX,
  AF_VSOCK (the hypervisor, which no network namespace stops), AF_PACKET, AF_ALG, every other
  family and every other netlink protocol (sock_diag lists the host's sockets) are refused;
- `socketpair`: only AF_UNIX with SOCK_STREAM or SOCK_SEQPACKET (pipes between a program's own
  processes). A datagram pair is refused: `sendto` on it reaches any datagram socket by path or
  abstract name;
- `io_uring_setup`/`_enter`/`_register`: ENOSYS (IORING_OP_SOCKET makes sockets without
  `socket()`; runtimes fall back to epoll);
- syscalls through another ABI (i386 `socketcall`, x32) would dodge the number checks: ENOSYS.

A file mode with the setuid or setgid bit (`chmod`, `fchmod`, `fchmodat`, `fchmodat2`, and the mode
of `open`, `openat`, `creat`, `mkdir`, `mkdirat`, `mknod`, `mknodat`; `openat2`, whose mode a filter
cannot read, gets ENOSYS and libc falls back): a file the command makes is the agent's on the host,
so a setuid bit there would hand the agent's uid (root's, when it runs as root) to whoever runs it.

Also refused: new user namespaces (`unshare`/`clone` with CLONE_NEWUSER; `clone3`, whose flags
a filter cannot read, gets ENOSYS and libc falls back to `clone`), where a command would get
every capability back, and the kernel keyrings (`keyctl`, `add_key`, `request_key`), which
are shared by every process of the same uid.

The program is classic BPF, built here as bytes for bubblewrap's `--seccomp FD`; bwrap
sets no_new_privs and installs it. Architectures not in the table get no filter, and so no
sandbox (the status says why: every command asks).
"""

from __future__ import annotations

import platform
import struct

from agentcli.core.record import record

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGT_K = 0x25  # BPF_JMP | BPF_JGT | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_AND_K = 0x54  # BPF_ALU | BPF_AND | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
EPERM, EACCES, ENOSYS = 1, 13, 38
_OFF_NR, _OFF_ARCH = 0, 4
_OFF_ARG = (16, 24, 32, 40)  # struct seccomp_data args[i]; the low word on little-endian

AF_UNIX, AF_INET, AF_INET6, AF_NETLINK = 1, 2, 10, 16
NETLINK_ROUTE = 0
SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET = 1, 2, 5
_SOCK_TYPE_MASK = 0xF  # the rest of `type` is SOCK_NONBLOCK / SOCK_CLOEXEC
CLONE_NEWUSER = 0x10000000
ALLOWED_FAMILIES = (AF_INET, AF_INET6)  # plus AF_NETLINK with NETLINK_ROUTE
ALLOWED_PAIR_TYPES = (SOCK_STREAM, SOCK_SEQPACKET)


@record(frozen=True)
class Arch:
    """One architecture's numbers: AUDIT_ARCH_*, the highest native syscall number (None: no
    foreign ABI shares the arch value) and the syscalls the filter looks at."""

    audit: int
    native_max: int | None
    nr: dict[str, int]


_COMMON = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "clone3": 435, "openat2": 437,
           "fchmodat2": 452}
ARCHES: dict[str, Arch] = {
    "x86_64": Arch(0xC000003E, 0x3FFFFFFF, {  # numbers above are the x32 ABI
        "socket": 41, "socketpair": 53, "clone": 56, "unshare": 272,
        "add_key": 248, "request_key": 249, "keyctl": 250,
        "open": 2, "creat": 85, "mkdir": 83, "mknod": 133, "chmod": 90, "fchmod": 91, "openat": 257,
        "mkdirat": 258, "mknodat": 259, "fchmodat": 268, **_COMMON}),
    "aarch64": Arch(0xC00000B7, None, {
        "socket": 198, "socketpair": 199, "clone": 220, "unshare": 97,
        "add_key": 217, "request_key": 218, "keyctl": 219,
        "fchmod": 52, "fchmodat": 53, "openat": 56, "mkdirat": 34, "mknodat": 33, **_COMMON}),
}
# Refused whatever their arguments, with the errno a program takes as "not here".
REFUSED: dict[str, int] = {"io_uring_setup": ENOSYS, "io_uring_enter": ENOSYS, "io_uring_register": ENOSYS,
                           "clone3": ENOSYS, "keyctl": ENOSYS, "add_key": ENOSYS, "request_key": ENOSYS,
                           "openat2": ENOSYS}
# Syscalls that take a file mode, and which argument holds it (where the architecture has them).
MODE_ARG: dict[str, int] = {"chmod": 1, "fchmod": 1, "creat": 1, "mkdir": 1, "mknod": 1, "open": 2, "fchmodat": 2,
                            "fchmodat2": 2, "mkdirat": 2, "mknodat": 2, "openat": 3}
S_ISUID_ISGID = 0o6000


class _Asm:
    """Straight-line BPF with forward jumps to labels (resolved when the program is built)."""

    def __init__(self) -> None:
        self.ops: list[tuple[int, int, object, object]] = []
        self.labels: dict[str, int] = {}

    def op(self, code: int, k: int, jt: object = 0, jf: object = 0) -> None:
        self.ops.append((code, k, jt, jf))

    def label(self, name: str) -> None:
        self.labels[name] = len(self.ops)

    def ret(self, value: int) -> None:
        self.op(_RET_K, value)

    def build(self) -> bytes:
        out = []
        for i, (code, k, jt, jf) in enumerate(self.ops):
            offs = [self.labels[j] - i - 1 if isinstance(j, str) else j for j in (jt, jf)]
            if any(not 0 <= o < 256 for o in offs):  # type: ignore[operator]
                raise ValueError("seccomp: jump out of range")
            out.append(struct.pack("=HBBI", code, offs[0], offs[1], k))
        return b"".join(out)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine as `struct sock_filter[]` bytes, or None where we have no table."""
    arch = ARCHES.get(machine or platform.machine())
    if arch is None:
        return None
    nr = arch.nr
    a = _Asm()
    a.op(_LD_W_ABS, _OFF_ARCH)
    a.op(_JEQ_K, arch.audit, "native", 0)
    a.ret(_RET_ERRNO | ENOSYS)
    a.label("native")
    a.op(_LD_W_ABS, _OFF_NR)
    if arch.native_max is not None:
        a.op(_JGT_K, arch.native_max, "nosys", 0)
    a.op(_JEQ_K, nr["socket"], "socket", 0)
    a.op(_JEQ_K, nr["socketpair"], "socketpair", 0)
    a.op(_JEQ_K, nr["clone"], "newuser", 0)
    a.op(_JEQ_K, nr["unshare"], "newuser", 0)
    for name, errno in REFUSED.items():
        a.op(_JEQ_K, nr[name], "nosys" if errno == ENOSYS else "eperm", 0)
    for name, arg in MODE_ARG.items():
        if name in nr:
            a.op(_JEQ_K, nr[name], f"mode{arg}", 0)
    a.ret(_RET_ALLOW)
    for arg in sorted(set(MODE_ARG.values())):  # no setuid or setgid bit in a mode
        a.label(f"mode{arg}")
        a.op(_LD_W_ABS, _OFF_ARG[arg])
        a.op(_JSET_K, S_ISUID_ISGID, "eperm", "allow")
    a.label("socket")  # socket(family, type, protocol)
    a.op(_LD_W_ABS, _OFF_ARG[0])
    for family in ALLOWED_FAMILIES:
        a.op(_JEQ_K, family, "allow", 0)
    a.op(_JEQ_K, AF_NETLINK, 0, "eacces")
    a.op(_LD_W_ABS, _OFF_ARG[2])
    a.op(_JEQ_K, NETLINK_ROUTE, "allow", "eacces")
    a.label("socketpair")  # socketpair(family, type, protocol, sv): unix only (TIPC makes pairs too)
    a.op(_LD_W_ABS, _OFF_ARG[0])
    a.op(_JEQ_K, AF_UNIX, 0, "eacces")
    a.op(_LD_W_ABS, _OFF_ARG[1])
    a.op(_AND_K, _SOCK_TYPE_MASK)
    for kind in ALLOWED_PAIR_TYPES:
        a.op(_JEQ_K, kind, "allow", 0)
    a.op(_JEQ_K, 0, "eacces", "eacces")  # (any other type)
    a.label("newuser")  # clone(flags, ...) and unshare(flags)
    a.op(_LD_W_ABS, _OFF_ARG[0])
    a.op(_JSET_K, CLONE_NEWUSER, "eperm", "allow")
    a.label("nosys")
    a.ret(_RET_ERRNO | ENOSYS)
    a.label("eperm")
    a.ret(_RET_ERRNO | EPERM)
    a.label("eacces")
    a.ret(_RET_ERRNO | EACCES)
    a.label("allow")
    a.ret(_RET_ALLOW)
    return a.build()
