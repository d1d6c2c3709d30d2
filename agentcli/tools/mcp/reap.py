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
_DYING_S = 2.0  # how long one pass waits for the processes it killed to be gone


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
        _wait_gone(pids)  # a killed process is still there until it has exited: the next pass must
        # not count it, and the caller must not return while it runs (nor miss what it forked meanwhile)
    return len(found)


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie has ended; only its exit status is left)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def _wait_gone(pids: list[int]) -> None:
    """Wait, at most _DYING_S, until every one of `pids` has exited (SIGKILL is delivered, not instant)."""
    import time

    deadline = time.monotonic() + _DYING_S
    waiting = [p for p in pids if _alive(p)]
    while waiting and time.monotonic() < deadline:
        time.sleep(0.005)
        for pid in waiting:
            with suppress(ChildProcessError, OSError):
                os.waitpid(pid, os.WNOHANG)
        waiting = [p for p in waiting if _alive(p)]
