"""The OS sandbox every shell command runs in: bubblewrap, probed once, failing closed.

What a command sees (argv built by `sandbox_argv`):
- `/` read-only; `/tmp`, `/home`, `/root`, `/run`, `/mnt`, ... replaced by empty scratch tmpfs
  mounts of a bounded size, so other projects, other users' sockets and credentials are not there;
- the workspace read-write, except `.agent/` and every git dir the workspace uses (`git_guard`:
  `.git` dirs and gitfiles anywhere in it, their targets and `commondir`, a parent folder's
  repository, config files they include), all read-only; git metadata a command makes anyway is
  moved aside when it ends and the command is refused;
- agentcli's own config, data and cache dirs and well-known credential files hidden, by
  real path, even when the workspace contains them;
- `/proc` of its own pid namespace, with `/proc/sys` and every other part that writes to the
  host (`sysrq-trigger`, `irq`, `bus`, `fs`, ...) read-only;
- fresh pid, ipc, uts, cgroup and (unless `[bash] network = true`) network namespaces, a user
  namespace with no capabilities and no way to make another; as root, the command runs as an
  unprivileged host uid with the workspace idmapped (`userns.py`), never as host root;
- a seccomp filter (`seccomp.py`): no AF_UNIX or other non-IP sockets, no io_uring, no keyrings;
- per command: address space, process count, file size and CPU time limits (`Limits`, from the
  profile's `[bash]` table), `--die-with-parent`, so killing our child ends the whole pid namespace.

`status()` says whether that can start here; callers never run a command outside it
without a human's approval (see the loop) and say how to enable it (`agent doctor`).
"""

from __future__ import annotations

import os
import platform
import re
import resource
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from agentcli.core.record import record
from agentcli.tools import git_guard, seccomp, userns

# Tried in order; the first that starts `true` is used (not as root: see userns.py). The first is
# stronger (a user namespace in which no further namespaces can be made); the second is for hosts
# without user namespaces where bwrap is setuid.
_NAMESPACES: tuple[tuple[str, ...], ...] = (
    ("--unshare-all", "--unshare-user", "--disable-userns"),
    ("--unshare-all",),
)
# As root bubblewrap joins the user namespace the helper made (`--userns`), which --unshare-all
# would refuse, so the other namespaces are named one by one.
_ROOT_NAMESPACES = ("--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try")
_ALWAYS = ("--die-with-parent", "--new-session", "--hostname", "sandbox")
# Replaced by empty scratch dirs before the workspace is bound back in: where other people's
# files, sockets and credentials live. Only those that exist and are real directories.
SCRATCH_DIRS = ("/home", "/root", "/tmp", "/var/tmp", "/run", "/mnt", "/media", "/srv", "/var/mail",
                "/var/spool", "/dev/shm")
# Hidden after the workspace is bound (it may be a home directory): relative to $HOME.
HOME_SECRETS = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh",
                ".password-store", ".local/share/keyrings", ".netrc", ".git-credentials", ".pypirc", ".npmrc",
                ".config/hub", ".terraform.d", ".vault-token")
READ_ONLY_IN_WORKSPACE = (".agent",)  # and every git dir (git_guard)
# /proc entries left writable: the pid dirs (the sandbox's own processes) and these links.
_PROC_OWN = frozenset({"self", "thread-self", "net", "mounts"})
_PROBE_TIMEOUT_S = 15
_CPU_GRACE_S = 5
SMALL_TMPFS = 8 << 20  # /run, /mnt, /srv, ...: writable (some programs expect it), never large
MIN_BWRAP = (0, 5)  # --size for tmpfs mounts; --perms
ENV_BWRAP = "AGENTCLI_BWRAP"  # use this bwrap binary (tests point it at a missing one to see the fail-closed path)


@record(frozen=True)
class Limits:
    """What one command may use; the profile's `[bash]` settings, or these defaults."""

    memory_bytes: int = 16 << 30  # RLIMIT_AS; generous: JVM, Go and node reserve a lot (WebAssembly ~10 GB)
    processes: int = 512  # RLIMIT_NPROC: as root, the command's own; otherwise on top of the user's
    file_bytes: int = 2 << 30  # RLIMIT_FSIZE: the largest file a command can write
    cpu_seconds: float | None = None  # RLIMIT_CPU; None: the command's timeout plus a grace
    tmpfs_bytes: int = 1 << 30  # /tmp and the home dir each; /var/tmp and /dev/shm a quarter

    @classmethod
    def of(cls, config: Any = None) -> Limits:
        """From a BashConfig (or anything with its fields), a Limits, or None (the defaults)."""
        if config is None:
            return cls()
        if isinstance(config, Limits):
            return config
        mb = 1 << 20
        return cls(memory_bytes=int(config.memory_mb) * mb, processes=int(config.processes),
                   file_bytes=int(config.file_size_mb) * mb, cpu_seconds=config.cpu_seconds,
                   tmpfs_bytes=int(config.tmpfs_mb) * mb)

    def describe(self) -> str:
        """One line for `agent doctor`."""
        cpu = f"{self.cpu_seconds:g} s" if self.cpu_seconds else f"the timeout + {_CPU_GRACE_S} s"
        return (f"memory {_size(self.memory_bytes)}, {self.processes} processes, files up to "
                f"{_size(self.file_bytes)}, CPU {cpu}, /tmp and home {_size(self.tmpfs_bytes)} each")


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n} bytes"


@record(frozen=True)
class SandboxStatus:
    """Whether commands can run contained here, what is in force, and how to enable it if not."""

    available: bool
    detail: str
    hint: str = ""
    bwrap: str = ""
    namespaces: tuple[str, ...] = ()
    seccomp: bool = False
    setpriv: str = ""  # set when the agent is root: commands drop to an unprivileged uid through it


_cache: SandboxStatus | None = None
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install "
                "bubblewrap`) and allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, "
                "or on Ubuntu `sysctl kernel.apparmor_restrict_unprivileged_userns=0`)")
ROOT_HINT = ("run agentcli as a non-root user, or on Linux >= 5.12 with util-linux's setpriv and a filesystem "
             "that supports idmapped mounts (ext4, xfs, btrfs, tmpfs)")


def _seccomp_fd() -> int | None:
    prog = seccomp.program()
    if prog is None or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("agentcli-seccomp", 0)
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _version(exe: str) -> tuple[int, ...] | None:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT_S, check=False,
                             stdin=subprocess.DEVNULL).stdout.decode(errors="replace")
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", out)
    return tuple(int(x) for x in m.groups() if x is not None) if m else None


def _run_probe(argv: list[str], fds: tuple[int, ...], preexec: Callable[[], None] | None) -> tuple[bool, str]:
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL,
                              check=False, pass_fds=fds, preexec_fn=preexec)
    except (OSError, subprocess.TimeoutExpired, subprocess.SubprocessError) as exc:
        return False, str(exc)
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return done.returncode == 0, (lines[-1][:200] if lines else f"exit code {done.returncode}")


def _try(state: SandboxStatus) -> tuple[bool, str]:
    """Start `true` in a full sandbox (scratch workspace, seccomp, limits) as `state` describes it."""
    with tempfile.TemporaryDirectory(prefix="agentcli-probe-") as ws:
        true = shutil.which("true") or "/bin/true"
        try:
            with sandbox_argv([true], workspace=ws, cwd=ws, network=False, state=state) as (argv, fds):
                return _run_probe(argv, fds, limits(_PROBE_TIMEOUT_S))
        except Exception as exc:  # noqa: BLE001 - any failure to build the sandbox means "not available"
            return False, f"{type(exc).__name__}: {exc}"


def _probe() -> SandboxStatus:
    if platform.system() != "Linux":
        return SandboxStatus(False, f"no OS sandbox on {platform.system() or 'this system'} (bubblewrap is Linux-only)",
                             "run agentcli on Linux with bubblewrap to let shell commands run without asking")
    exe = os.environ.get(ENV_BWRAP) or shutil.which("bwrap") or ""
    if not exe or not os.access(exe, os.X_OK):
        return SandboxStatus(False, "bubblewrap (bwrap) is not installed", INSTALL_HINT)
    version = _version(exe)
    if version is None or version < MIN_BWRAP:
        shown = ".".join(map(str, version)) if version else "unknown"
        return SandboxStatus(False, f"bubblewrap {shown} is older than 0.5 and cannot bound the size of its "
                             "scratch mounts", "install bubblewrap 0.5 or newer", bwrap=exe)
    seccomp_on = seccomp.program() is not None and hasattr(os, "memfd_create")
    if not seccomp_on:  # the socket, io_uring and user-namespace rules are the filter's: no filter, no sandbox
        return SandboxStatus(False, f"no seccomp filter for this machine ({platform.machine()}), so commands could "
                             "open unix sockets and io_uring", "run agentcli on x86_64 or aarch64 Linux", bwrap=exe)
    what = f"bubblewrap {'.'.join(map(str, version))} with seccomp"
    if userns.active():
        sp = userns.setpriv()
        if sp is None:
            return SandboxStatus(False, "agentcli runs as root and setpriv (util-linux) is missing, so commands "
                                 "would run as host root", ROOT_HINT, bwrap=exe)
        if userns.host_id() is None:
            return SandboxStatus(False, "agentcli runs as root in a user namespace that maps no id but root, so "
                                 "commands would run as its root", ROOT_HINT, bwrap=exe)
        state = SandboxStatus(True, "", bwrap=exe, namespaces=_ROOT_NAMESPACES, seccomp=seccomp_on, setpriv=sp)
        ok, why = _try(state)
        if not ok:
            return SandboxStatus(False, f"agentcli runs as root and the sandbox cannot run commands as an "
                                 f"unprivileged user here ({why})", ROOT_HINT, bwrap=exe)
        return SandboxStatus(True, f"{what}; namespaces: user (root runs commands as uid {userns.SANDBOX_UID}, "
                             f"host uid {userns.host_id()}, no capabilities; workspace idmapped), pid, net, ipc, uts",
                             bwrap=exe, namespaces=_ROOT_NAMESPACES, seccomp=seccomp_on, setpriv=sp)
    why = ""
    for namespaces in _NAMESPACES:
        ok, why = _try(SandboxStatus(True, "", bwrap=exe, namespaces=namespaces, seccomp=seccomp_on))
        if ok:
            return SandboxStatus(True, f"{what}; namespaces: " + ("user, " if "--unshare-user" in namespaces else "")
                                 + "pid, net, ipc, uts", bwrap=exe, namespaces=namespaces, seccomp=seccomp_on)
    return SandboxStatus(False, f"bubblewrap cannot start a sandbox here ({why})", INSTALL_HINT, bwrap=exe)


def status(*, refresh: bool = False) -> SandboxStatus:
    """The sandbox status, probed once per process (the probe starts bwrap a few times)."""
    global _cache
    if _cache is None or refresh:
        _cache = _probe()
    return _cache


def set_status(value: SandboxStatus | None) -> None:
    """Override (tests, `agent doctor --refresh`) or clear the cached status."""
    global _cache
    _cache = value


# ----- the argv ------------------------------------------------------------------------------------

def _real(p: str | Path) -> str:
    return os.path.realpath(os.path.expanduser(os.fspath(p)))


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def own_dirs() -> list[str]:
    """agentcli's own config, data and cache dirs, by real path."""
    from agentcli.config.paths import cache_dir, config_dir, data_dir

    return [_real(d) for d in (config_dir(), data_dir(), cache_dir())]


def _hide(path: str) -> list[str]:
    if os.path.isdir(path) and not os.path.islink(path):
        return ["--size", str(SMALL_TMPFS), "--tmpfs", path, "--remount-ro", path]
    return ["--ro-bind", "/dev/null", path]


_idmap_ok: dict[str, str | None] = {}


def workspace_refusal(workspace: str) -> str | None:
    """Why commands cannot run in this workspace (inside agentcli's own files or a git dir; as root, on
    a filesystem that cannot be idmapped), or None."""
    ws = _real(workspace)
    for own in own_dirs():
        if _inside(ws, own):
            return f"the workspace lies inside agentcli's own files ({own})"
    why = git_guard.in_git_dir(ws)
    if why:
        return why
    # What starts the sandbox must not be something a command in it can change: bubblewrap itself
    # (a user's ~/bin with the home dir as workspace), and as root every file root runs for it.
    exe = (_cache.bwrap if _cache is not None else "") or shutil.which("bwrap") or ""
    launchers = [_real(exe)] if exe else []
    if userns.active():
        launchers += [_real(d) for d in userns.trusted_dirs()]
        if _cache is not None and _cache.setpriv:
            launchers.append(_real(_cache.setpriv))
    for path in launchers:
        writable = os.access(path, os.W_OK) or os.access(os.path.dirname(path), os.W_OK)
        if writable and (_inside(path, ws) or (os.path.isdir(path) and _inside(ws, path))):
            return (f"the workspace holds {path}, which agentcli runs outside the sandbox to start it"
                    if _inside(path, ws) else f"the workspace lies in {path}, whose files agentcli runs "
                    "outside the sandbox to start it")
    if userns.active() and (_cache is None or _cache.setpriv):
        if ws not in _idmap_ok:
            ok, detail = _run_probe(userns.helper_argv(["true"], ws, processes=1, check=True), (), None)
            _idmap_ok[ws] = None if ok else (f"agentcli runs as root, and commands here could only run as host "
                                             f"root: {detail}")
        return _idmap_ok[ws]
    return None


_proc_cache: list[str] | None = None


def proc_read_only() -> list[str]:
    """Every /proc entry that is not a process's own: its directories and writable files (`/proc/sys`,
    `sysrq-trigger`, `irq`, `bus`, `fs`, `mtrr`, ...), as found on this host."""
    global _proc_cache
    if _proc_cache is None:
        found = []
        try:
            names = sorted(os.listdir("/proc"))
        except OSError:
            names = []
        for name in names:
            if name.isdigit() or name in _PROC_OWN:
                continue
            path = f"/proc/{name}"
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if (os.path.isdir(path) and not os.path.islink(path)) or (
                    not os.path.islink(path) and st.st_mode & 0o222):
                found.append(path)
        _proc_cache = found
    return _proc_cache


def _parents(path: str, top: str) -> list[str]:
    """The directories strictly between `top` and `path`, outermost first."""
    out = []
    d = os.path.dirname(path)
    while _inside(d, top) and d != top:
        out.append(d)
        d = os.path.dirname(d)
    return out[::-1]


def mounts(workspace: str, *, network: bool, limits: Limits | None = None, guard: git_guard.Guard | None = None,
           root: bool | None = None) -> list[str]:
    """Everything about the filesystem view; see the module docstring."""
    lim = limits or Limits()
    ws = _real(workspace)
    home = _real("~")
    root = userns.active() if root is None else root
    guard = guard or git_guard.before(ws)
    # /dev is a tmpfs bwrap makes without a size, owned by the command's uid when not root: read-only
    # (its devices still work; /dev/shm is a sized tmpfs of its own, mounted on top).
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--remount-ro", "/dev", "--proc", "/proc"]
    for p in proc_read_only():
        args += ["--ro-bind", p, p]
    scratch = list(dict.fromkeys((*SCRATCH_DIRS, home)))
    if root:
        # The command's uid cannot pass a folder on the way to the workspace that only root may enter:
        # the outermost such folder is replaced by a scratch dir too.
        for d in _parents(ws, "/"):
            if any(_inside(d, s) for s in scratch):
                continue  # under a scratch dir already: the folders on the way are made traversable
            try:
                if not os.stat(d).st_mode & 0o001:
                    scratch.append(d)
                    break
            except OSError:
                break
    big = {"/tmp": lim.tmpfs_bytes, home: lim.tmpfs_bytes, "/var/tmp": lim.tmpfs_bytes // 4,
           "/dev/shm": lim.tmpfs_bytes // 4}
    used: list[str] = []
    for d in scratch:
        # A dir the workspace itself contains stays (the user chose to share it); the workspace is
        # bound back on top of the scratch dirs that contain it.
        if d == "/dev/shm" or (os.path.isdir(d) and not os.path.islink(d) and not _inside(d, ws)):
            args += ["--size", str(max(big.get(d, SMALL_TMPFS), 1 << 20)), "--perms", "1777", "--tmpfs", d]
            used.append(d)
    if network:
        resolv = _real("/etc/resolv.conf")
        if resolv != "/etc/resolv.conf" and os.path.isfile(resolv):
            args += ["--ro-bind", resolv, resolv]  # systemd-resolved keeps it under /run
    binds = [("--bind", ws)]
    for rel in READ_ONLY_IN_WORKSPACE:
        path = os.path.join(ws, rel)
        if rel == ".agent" and not os.path.lexists(path):
            # The mount point must exist on the host. It stays (empty; git ignores empty dirs):
            # removing it afterwards would race another sandbox on the same workspace, whose
            # read-only mount a removal would detach, letting it create `.agent/` after all.
            os.mkdir(path, 0o700)
        if os.path.lexists(path):
            real = _real(path)
            if _inside(real, ws):
                binds.append(("--ro-bind", real))
    binds += [("--ro-bind", p) for p in guard.protect]
    made: set[str] = set()
    for flag, path in binds:
        for d in used:
            if _inside(path, d) and path != d:
                for parent in _parents(path, d):  # traversable by the command's uid (bwrap copies 0700)
                    if parent not in made and not _inside(parent, ws):
                        made.add(parent)
                        args += ["--perms", "0755", "--dir", parent]
        args += [flag, path, path]
    for secret in (*own_dirs(), *(os.path.join(home, s) for s in HOME_SECRETS)):
        if os.path.lexists(secret):
            args += _hide(_real(secret))
    return args


def _own_processes() -> int:
    """Processes running as this uid now (RLIMIT_NPROC counts them all)."""
    uid, n = os.getuid(), 0
    try:
        names = os.listdir("/proc")
    except OSError:
        return 4096
    for name in names:
        if name.isdigit():
            try:
                n += os.stat(f"/proc/{name}").st_uid == uid
            except OSError:
                pass
    return n


def limits(timeout: float, *, config: Any = None) -> Callable[[], None]:
    """A preexec function setting CPU, memory, file size and process-count limits for the sandbox's tree.

    Fails closed: a limit that cannot be set stops the command from starting. The process limit
    counts every process of the uid: not root, the user's current count plus `processes`; as root
    (exempt from it) the helper lowers it to `processes` for the unprivileged uid the command runs as.
    """
    lim = Limits.of(config)
    base = sum(1 for n in os.listdir("/proc") if n.isdigit()) if userns.active() else _own_processes()
    table = {
        resource.RLIMIT_CPU: int(lim.cpu_seconds or (timeout + _CPU_GRACE_S)),
        resource.RLIMIT_AS: lim.memory_bytes,
        resource.RLIMIT_FSIZE: lim.file_bytes,
        resource.RLIMIT_NPROC: base + lim.processes,
        resource.RLIMIT_CORE: 0,
    }

    def apply() -> None:
        for which, value in table.items():
            _, hard = resource.getrlimit(which)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(which, (cap, cap))

    return apply


@contextmanager
def sandbox_argv(argv: list[str], *, workspace: str, cwd: str, network: bool, state: SandboxStatus,
                 config: Any = None, report: list[str] | None = None) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """(bwrap argv running `argv` contained, fds to pass); run the process inside the block.

    When the block ends: the seccomp fd is closed, and git metadata the command made is moved
    aside; then the block raises a PERMISSION ToolFailure saying what was refused (also when the
    command failed). `config` is the profile's BashConfig (or a Limits) for the tmpfs size and the
    process limit; pass the same to `limits()`. Changes to hook files are appended to `report`.
    """
    from agentcli.core.errors import ErrorCode, ToolFailure

    lim = Limits.of(config)
    ws = _real(workspace)
    root = bool(state.setpriv)
    guard = git_guard.before(ws)
    args = mounts(workspace, network=network, limits=lim, guard=guard, root=root)
    fd = _seccomp_fd() if state.seccomp else None
    try:
        caps = ("--cap-drop", "ALL", *(userns.SETPRIV_CAPS if root else ()))
        net = ("--unshare-net",) if root and not network else ("--share-net",) if network and not root else ()
        full = [state.bwrap, *args, *state.namespaces, *net, *caps, *_ALWAYS]
        if fd is not None:
            full += ["--seccomp", str(fd)]
        if root:
            # bwrap changes directory after dropping its capabilities, as a uid the idmapped workspace
            # does not let in: the directory is changed after the switch to the command's uid instead.
            full += ["--chdir", "/", "--", *userns.drop_prefix(state.setpriv), *userns.chdir_prefix(cwd), *argv]
            full = userns.helper_argv(full, ws, processes=lim.processes)
        else:
            full += ["--chdir", cwd, "--", *argv]
        yield full, ((fd,) if fd is not None else ())
    except BaseException:
        with suppress(Exception):
            guard.after()  # still move aside what the command made; the original error stands
        raise
    finally:
        if fd is not None:
            os.close(fd)
    problems = guard.after()
    if report is not None:
        report += [f"changed a file git runs as a hook: {p}" for p in guard.hook_changes]
    if problems:
        raise ToolFailure.of(ErrorCode.PERMISSION, guard.message(),
                             "Leave repositories to the user: do not run git init, git clone, cargo new (use "
                             "--vcs none) or anything else that makes a .git in the workspace.")
