"""Root outside is not root inside: how the sandbox runs a root agent's command as an unprivileged uid.

Mapped the usual way (`bwrap --unshare-user --uid N`), a root agent's sandbox is still host uid 0
to the kernel: sysctls, keyrings and every root-owned file judge it as root. So as root:

- a user namespace is made in which sandbox uid SANDBOX_UID is host uid HOST_UID (no user, no
  files; uid 0 maps to 0 only so bubblewrap can set up its mounts), and bubblewrap joins it
  (`--userns FD`); inside, `setpriv` drops to SANDBOX_UID and clears every capability, the
  bounding set included, before the command starts;
- the workspace is bound through an idmapped mount (Linux >= 5.12, a filesystem that supports
  it) that shows the agent's files (uid 0) as HOST_UID: the command edits them as their owner,
  and what it creates is written to disk as uid 0, as if the agent had made it;
- RLIMIT_NPROC now binds (it never binds host root), per command.

A small helper (Python, started with -I -S, its code held in this module) makes the two
namespaces and the mount in a private mount namespace, then becomes bubblewrap. When any
step cannot be done here, the sandbox is unavailable (the status says why): a root agent never
runs commands as host root inside it.
"""

from __future__ import annotations

import os
import resource
import shutil
import sys

SANDBOX_UID = 1000  # what `id` says inside
HOST_UID = 2_147_483_646  # what the host sees: no user, no files (also the gid); see host_id()
SETPRIV_CAPS = ("--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP")
# The helper runs as root outside the sandbox: the base interpreter by real path (a venv's `python`
# is a link that may lie in the workspace), taken once, with its own stdlib only (-I -S).
PYTHON = os.path.realpath(getattr(sys, "_base_executable", "") or sys.executable)
# Folders whose files root runs or loads outside the sandbox (the helper, bwrap, their libraries, the
# loader's config): a workspace that holds or lies in one would let a command change them.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/boot")
EXIT_SETUP = 126  # the helper's exit code when a step fails (its stderr says which)

# Only _ctypes (not ctypes, whose import costs more than the rest of the helper) and libc by name.
_HELPER = r"""
import _ctypes, os, sys
ws, nproc, host, uid, check, rl_nproc = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), \
    sys.argv[5], int(sys.argv[6])
argv = sys.argv[8:]
class Long(_ctypes._SimpleCData):
    _type_ = "l"
class Fn(_ctypes.CFuncPtr):
    _flags_ = _ctypes.FUNCFLAG_CDECL | _ctypes.FUNCFLAG_USE_ERRNO
    _restype_ = Long
libc = _ctypes.dlopen(None)
syscall, unshare, mount, setrlimit = (Fn(_ctypes.dlsym(libc, n)) for n in ("syscall", "unshare", "mount", "setrlimit"))
def u64(*values):
    return b"".join(v.to_bytes(8, sys.byteorder) for v in values)
def die(step, err=None):
    err = _ctypes.get_errno() if err is None else err
    sys.stderr.write("agentcli sandbox: %s failed: %s\n" % (step, os.strerror(err)))
    sys.stderr.flush()
    os._exit(126)
def userns(uid_map, limit):
    r, w = os.pipe(); r2, w2 = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r); os.close(w2)
        ok = unshare(0x10000000) == 0
        os.write(w, b"1" if ok else b"0")
        os.read(r2, 1)
        if ok and limit:  # no user namespace can be made inside this one
            try:
                with open("/proc/sys/user/max_user_namespaces", "w") as f:
                    f.write("0")
            except OSError:
                pass
        os._exit(0)
    os.close(w); os.close(r2)
    if os.read(r, 1) != b"1":
        die("making a user namespace", 1)
    try:
        for name in ("uid_map", "gid_map"):
            with open("/proc/%d/%s" % (pid, name), "w") as f:
                f.write(uid_map)
        fd = os.open("/proc/%d/ns/user" % pid, os.O_RDONLY)
    except OSError as e:
        die("mapping a user namespace", e.errno)
    os.write(w2, b"x"); os.waitpid(pid, 0)
    return fd
idmap = userns("0 %d 1\n%d 0 1\n" % (host, host), False)  # the agent's files (0) are the command's (host)
attr = u64(0x00100000, 0, 0, idmap)  # struct mount_attr: attr_set = MOUNT_ATTR_IDMAP, userns_fd
tree, err = -1, 0
for flags in (0x8000, 0):  # AT_RECURSIVE, then the workspace's own mount only
    tree = syscall(428, -100, ws.encode(), 1 | 0o2000000 | flags)  # open_tree(OPEN_TREE_CLONE | CLOEXEC)
    if tree < 0:
        die("cloning the workspace mount")
    if syscall(442, tree, b"", 0x1000 | flags, attr, len(attr)) == 0:  # mount_setattr(AT_EMPTY_PATH)
        break
    err = _ctypes.get_errno()
    os.close(tree)
    tree = -1
if tree < 0:
    die("an idmapped mount of the workspace (the kernel or its filesystem does not support it)", err)
os.close(idmap)
if check == "check":
    os._exit(0)
sandbox = userns("0 0 1\n%d %d 1\n" % (uid, host), True)
if unshare(0x00020000) != 0:
    die("making a mount namespace")
if mount(None, b"/", None, 16384 | (1 << 19), None) != 0:  # MS_REC | MS_SLAVE
    die("making mounts private")
if syscall(429, tree, b"", -100, ws.encode(), 4) != 0:  # move_mount(MOVE_MOUNT_F_EMPTY_PATH)
    die("mounting the workspace")
os.close(tree)
if setrlimit(rl_nproc, u64(nproc, nproc)) != 0:
    die("setting the process limit")
os.set_inheritable(sandbox, True)
os.execv(argv[0], [argv[0], "--userns", str(sandbox)] + argv[1:])
"""


def _mapped(path: str) -> list[tuple[int, int]]:
    """The id ranges [first, last] this process's user namespace maps (its /proc/self/*_map, inside)."""
    out = []
    try:
        with open(path) as f:
            for line in f:
                inside, _, count = (int(x) for x in line.split())
                out.append((inside, inside + count - 1))
    except (OSError, ValueError):
        return [(0, 4294967294)]
    return out


def host_id() -> int | None:
    """The id the command runs as on the host: HOST_UID, or where this user namespace does not map it
    (a rootless container maps 0-65535), the highest id below it mapped for users and groups alike
    (never 0 or the 16-bit nobody ids). None when there is none."""
    ranges = [_mapped("/proc/self/uid_map"), _mapped("/proc/self/gid_map")]

    def ok(i: int) -> bool:
        return all(any(lo <= i <= hi for lo, hi in r) for r in ranges)

    if ok(HOST_UID):
        return HOST_UID
    candidates = [min(hi, HOST_UID) for lo, hi in ranges[0] if hi >= 1]
    for top in sorted(candidates, reverse=True):
        for i in range(top, max(top - 4, 0), -1):
            if i not in (65534, 65535) and ok(i):
                return i
    return None


def _root_is_root() -> bool:
    """Whether uid 0 here is uid 0 one level up (the host's, unless namespaces nest deeper)."""
    try:
        with open("/proc/self/uid_map") as f:
            return any(line.split()[:2] == ["0", "0"] for line in f)
    except OSError:
        return True


def active() -> bool:
    """Whether commands need this mapping: the agent runs as the host's root. (Root in a rootless
    container is a plain user to the host, mapped elsewhere: it gets the ordinary sandbox.)"""
    return hasattr(os, "geteuid") and os.geteuid() == 0 and _root_is_root()


def trusted_dirs() -> list[str]:
    """Where the files lie that root runs outside the sandbox for every command: the system folders
    and the helper interpreter's installation."""
    return [*SYSTEM_DIRS, os.path.realpath(sys.base_prefix), os.path.dirname(PYTHON)]


def setpriv() -> str | None:
    """A setpriv outside the dirs the sandbox replaces (it must be there inside too), or None."""
    for p in ("/usr/bin/setpriv", "/bin/setpriv", shutil.which("setpriv") or ""):
        if p and os.access(p, os.X_OK):
            return p
    return None


def drop_prefix(exe: str) -> list[str]:
    """The argv prefix, run inside the sandbox, that becomes SANDBOX_UID with no capabilities at all."""
    return [exe, f"--reuid={SANDBOX_UID}", f"--regid={SANDBOX_UID}", "--clear-groups", "--inh-caps=-all",
            "--bounding-set=-all", "--"]


def chdir_prefix(cwd: str) -> list[str]:
    """The argv prefix that enters `cwd` and then execs the rest (bwrap's --chdir runs too early for root)."""
    return ["/bin/sh", "-c", 'cd -- "$0" && exec "$@"', cwd]


def helper_argv(bwrap_argv: list[str], workspace: str, *, processes: int, check: bool = False) -> list[str]:
    """The helper that sets the namespaces and the workspace mount up, then execs `bwrap_argv` with
    `--userns FD` added (with `check`, it only tries the idmapped mount and exits 0 or EXIT_SETUP)."""
    return [PYTHON, "-I", "-S", "-c", _HELPER, workspace, str(processes), str(host_id()), str(SANDBOX_UID),
            "check" if check else "run", str(resource.RLIMIT_NPROC), "--", *bwrap_argv]
