"""A tiny seccomp filter for the command sandbox: no new AF_UNIX sockets, no foreign syscall ABIs.

A fresh network namespace stops TCP/UDP and abstract sockets, but a socket *file* (tmux,
docker, D-Bus, ssh-agent, an X server) is reached by path, and a path can be anywhere the
sandbox can see. Hiding directories is a list; refusing `socket(AF_UNIX, ...)` is the
class. `socketpair()` is a different syscall and keeps working (pipes between a program's
own processes). Syscalls through another ABI (i386 `socketcall`, x32) would dodge the
number check, so they fail with ENOSYS.

The program is classic BPF, built here as bytes for bubblewrap's `--seccomp FD`; bwrap
sets no_new_privs and installs it. Architectures not in the table get no filter (the
sandbox status says so).
"""

from __future__ import annotations

import platform
import struct

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JGT_K = 0x25  # BPF_JMP | BPF_JGT | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_RET_ALLOW = 0x7FFF0000
_RET_ERRNO = 0x00050000
_EACCES, _ENOSYS = 13, 38
_AF_UNIX = 1
_OFF_NR, _OFF_ARCH, _OFF_ARG0 = 0, 4, 16  # struct seccomp_data; arg0's low word on little-endian


# machine -> (AUDIT_ARCH_*, socket syscall number, highest native syscall number or None)
_ARCHES: dict[str, tuple[int, int, int | None]] = {
    "x86_64": (0xC000003E, 41, 0x3FFFFFFF),  # numbers above are the x32 ABI
    "aarch64": (0xC00000B7, 198, None),
}


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The filter for this machine as `struct sock_filter[]` bytes, or None where we have no table."""
    entry = _ARCHES.get(machine or platform.machine())
    if entry is None:
        return None
    arch, socket_nr, native_max = entry
    ops = [
        _op(_LD_W_ABS, _OFF_ARCH),
        _op(_JEQ_K, arch, 1, 0),
        _op(_RET_K, _RET_ERRNO | _ENOSYS),
        _op(_LD_W_ABS, _OFF_NR),
    ]
    if native_max is not None:
        ops += [_op(_JGT_K, native_max, 0, 1), _op(_RET_K, _RET_ERRNO | _ENOSYS)]
    ops += [
        _op(_JEQ_K, socket_nr, 0, 3),
        _op(_LD_W_ABS, _OFF_ARG0),
        _op(_JEQ_K, _AF_UNIX, 0, 1),
        _op(_RET_K, _RET_ERRNO | _EACCES),
        _op(_RET_K, _RET_ALLOW),
    ]
    return b"".join(ops)
