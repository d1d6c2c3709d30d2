"""Ending everything a stdio MCP server started, not only the server itself.

The SDK starts a server in its own process group, but when the server exits on its own after
stdin closes it kills nothing: a daemon the server forked (`sh -c 'daemon &'`, a language server
it spawned) keeps running after the run. Each server start carries a random marker in its
environment, which every descendant inherits, so at close every process still carrying it is
found (in /proc) and killed with its group, even one that left the group with setsid.
"""

from __future__ import annotations

import os
import secrets
import signal
from contextlib import suppress

MARK_VAR = "AGENTCLI_MCP_SERVER_RUN"
_PASSES = 5  # a process forking while we kill gets another pass; a fork bomb is bounded by these


def new_mark() -> str:
    return secrets.token_hex(12)


def marked(mark: str) -> list[int]:
    """Pids (of this user) whose environment carries `mark`; empty where /proc is not there."""
    needle = f"{MARK_VAR}={mark}".encode()
    out = []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    me = os.getpid()
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:
            continue  # gone, or another user's
        if needle in env.split(b"\0"):
            out.append(int(name))
    return out


def reap(mark: str) -> int:
    """SIGKILL every process carrying `mark`, and the process groups they lead; how many were found."""
    found: set[int] = set()
    for _ in range(_PASSES):
        pids = marked(mark)
        if not pids:
            break
        for pid in pids:
            found.add(pid)
            with suppress(OSError):
                if os.getpgid(pid) == pid:
                    os.killpg(pid, signal.SIGKILL)
            with suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in pids:  # reap our own children so they do not stay as zombies carrying the mark
            with suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
    return len(found)
