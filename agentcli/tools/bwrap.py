"""The OS sandbox every shell command runs in: bubblewrap, probed once, failing closed.

What a command sees (argv built by `sandbox_argv`):
- `/` read-only; a private `/tmp`; `/home`, `/root`, `/run`, `/mnt`, ... replaced by empty
  scratch dirs, so other projects, other users' sockets and credentials are not there;
- the workspace read-write, except `.git/hooks`, `.git/config` and `.agent/` (read-only);
- agentcli's own config, data and cache dirs and well-known credential files hidden, by
  real path, even when the workspace contains them;
- fresh pid, ipc, uts, cgroup and (unless `[bash] network = true`) network namespaces; a
  user namespace with nested ones disabled where the kernel allows; no capabilities;
- a seccomp filter refusing new AF_UNIX sockets (`seccomp.py`); CPU, memory, file size and
  process limits; `--die-with-parent`, so killing our child ends the whole pid namespace.

`status()` says whether that can start here; callers never run a command outside it
without a human's approval (see the loop) and say how to enable it (`agent doctor`).
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agentcli.tools import seccomp

# Tried in order; the first that starts `true` is used. The first is stronger (a user namespace
# in which no further namespaces can be made); the second is for hosts without user namespaces
# where bwrap is setuid or we are root.
_NAMESPACES: tuple[tuple[str, ...], ...] = (
    ("--unshare-all", "--unshare-user", "--disable-userns"),
    ("--unshare-all",),
)
_ALWAYS = ("--cap-drop", "ALL", "--die-with-parent", "--new-session", "--hostname", "sandbox")
# Replaced by empty scratch dirs before the workspace is bound back in: where other people's
# files, sockets and credentials live. Only those that exist and are real directories.
SCRATCH_DIRS = ("/home", "/root", "/tmp", "/var/tmp", "/run", "/mnt", "/media", "/srv", "/var/mail",
                "/var/spool", "/dev/shm")
# Hidden after the workspace is bound (it may be a home directory): relative to $HOME.
HOME_SECRETS = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh",
                ".password-store", ".local/share/keyrings", ".netrc", ".git-credentials", ".pypirc", ".npmrc",
                ".config/hub", ".terraform.d", ".vault-token")
READ_ONLY_IN_WORKSPACE = (".git/hooks", ".git/config", ".agent")
_PROBE_TIMEOUT_S = 15
_CPU_GRACE_S = 5
MEMORY_BYTES = 8 << 30  # address space; generous because runtimes (JVM, Go, node) reserve a lot
FILE_BYTES = 2 << 30
EXTRA_PROCESSES = 512
ENV_BWRAP = "AGENTCLI_BWRAP"  # use this bwrap binary (tests point it at a missing one to see the fail-closed path)


@dataclass(frozen=True, slots=True)
class SandboxStatus:
    """Whether commands can run contained here, what is in force, and how to enable it if not."""

    available: bool
    detail: str
    hint: str = ""
    bwrap: str = ""
    namespaces: tuple[str, ...] = ()
    seccomp: bool = False


_cache: SandboxStatus | None = None
INSTALL_HINT = ("install bubblewrap (Debian/Ubuntu: `sudo apt-get install bubblewrap`; Fedora: `sudo dnf install "
                "bubblewrap`) and allow unprivileged user namespaces (`sysctl kernel.unprivileged_userns_clone=1`, "
                "or on Ubuntu `sysctl kernel.apparmor_restrict_unprivileged_userns=0`)")


def _seccomp_fd() -> int | None:
    prog = seccomp.program()
    if prog is None or not hasattr(os, "memfd_create"):
        return None
    fd = os.memfd_create("agentcli-seccomp", 0)
    os.write(fd, prog)
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


def _try(exe: str, namespaces: tuple[str, ...], use_seccomp: bool) -> tuple[bool, str]:
    fd = _seccomp_fd() if use_seccomp else None
    extra = ("--seccomp", str(fd)) if fd is not None else ()
    true = shutil.which("true") or "/bin/true"
    argv = [exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *namespaces, *_ALWAYS, *extra, "--", true]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL, check=False,
                              pass_fds=(fd,) if fd is not None else ())
    except (OSError, subprocess.TimeoutExpired) as exc:
        return False, str(exc)
    finally:
        if fd is not None:
            os.close(fd)
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return done.returncode == 0, (lines[-1][:200] if lines else f"exit code {done.returncode}")


def _probe() -> SandboxStatus:
    if platform.system() != "Linux":
        return SandboxStatus(False, f"no OS sandbox on {platform.system() or 'this system'} (bubblewrap is Linux-only)",
                             "run agentcli on Linux with bubblewrap to let shell commands run without asking")
    exe = os.environ.get(ENV_BWRAP) or shutil.which("bwrap") or ""
    if not exe or not os.access(exe, os.X_OK):
        return SandboxStatus(False, "bubblewrap (bwrap) is not installed", INSTALL_HINT)
    why = ""
    for namespaces in _NAMESPACES:
        ok, why = _try(exe, namespaces, use_seccomp=True)
        if ok:
            seccomp_on = seccomp.program() is not None
            return SandboxStatus(True, f"bubblewrap {'with' if seccomp_on else 'without'} seccomp; namespaces: "
                                 + ("user, " if "--unshare-user" in namespaces else "")
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
        return ["--tmpfs", path, "--remount-ro", path]
    return ["--ro-bind", "/dev/null", path]


def workspace_refusal(workspace: str) -> str | None:
    """Why commands cannot run in this workspace (it lies inside agentcli's own files), or None."""
    ws = _real(workspace)
    for own in own_dirs():
        if _inside(ws, own):
            return f"the workspace lies inside agentcli's own files ({own})"
    return None


def mounts(workspace: str, *, network: bool) -> list[str]:
    """Everything about the filesystem view; see the module docstring."""
    ws = _real(workspace)
    home = _real("~")
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
    for d in dict.fromkeys((*SCRATCH_DIRS, home)):
        # A dir the workspace itself contains stays (the user chose to share it); the workspace is
        # bound back on top of the scratch dirs that contain it.
        if d == "/dev/shm" or (os.path.isdir(d) and not os.path.islink(d) and not _inside(d, ws)):
            args += ["--tmpfs", d]
    if network:
        resolv = _real("/etc/resolv.conf")
        if resolv != "/etc/resolv.conf" and os.path.isfile(resolv):
            args += ["--ro-bind", resolv, resolv]  # systemd-resolved keeps it under /run
    args += ["--bind", ws, ws]
    for rel in READ_ONLY_IN_WORKSPACE:
        path = os.path.join(ws, rel)
        if rel == ".git/hooks" and os.path.isdir(os.path.join(ws, ".git")) and not os.path.lexists(path):
            os.mkdir(path, 0o755)  # git makes it anyway; without it a command could add hooks
        elif rel == ".agent" and not os.path.lexists(path):
            # The mount point must exist on the host. It stays (empty; git ignores empty dirs):
            # removing it afterwards would race another sandbox on the same workspace, whose
            # read-only mount a removal would detach, letting it create `.agent/` after all.
            os.mkdir(path, 0o700)
        if os.path.lexists(path):
            real = _real(path)
            if _inside(real, ws):
                args += ["--ro-bind", real, real]
    for secret in (*own_dirs(), *(os.path.join(home, s) for s in HOME_SECRETS)):
        if os.path.lexists(secret):
            args += _hide(_real(secret))
    return args


def limits(timeout: float) -> Callable[[], None]:
    """A preexec function setting CPU, memory, file size and process-count limits for bwrap and its tree.

    The process limit counts every process of the user, so it is the current total plus a margin
    (root is exempt from it by the kernel; the pid namespace still ends everything with the call).
    """
    try:
        procs = sum(1 for n in os.listdir("/proc") if n.isdigit())
    except OSError:
        procs = 4096
    table = {
        resource.RLIMIT_CPU: int(timeout) + _CPU_GRACE_S,
        resource.RLIMIT_AS: MEMORY_BYTES,
        resource.RLIMIT_FSIZE: FILE_BYTES,
        resource.RLIMIT_NPROC: procs + EXTRA_PROCESSES,
        resource.RLIMIT_CORE: 0,
    }

    def apply() -> None:
        for which, value in table.items():
            _, hard = resource.getrlimit(which)
            cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
            try:
                resource.setrlimit(which, (cap, cap))
            except (ValueError, OSError):
                pass

    return apply


@contextmanager
def sandbox_argv(argv: list[str], *, workspace: str, cwd: str, network: bool,
                 state: SandboxStatus) -> Iterator[tuple[list[str], tuple[int, ...]]]:
    """(bwrap argv running `argv` contained, fds to pass); closes the seccomp fd afterwards."""
    args = mounts(workspace, network=network)
    fd = _seccomp_fd() if state.seccomp else None
    try:
        full = [state.bwrap, *args, *state.namespaces, *(("--share-net",) if network else ()), *_ALWAYS]
        if fd is not None:
            full += ["--seccomp", str(fd)]
        full += ["--chdir", cwd, "--", *argv]
        yield full, ((fd,) if fd is not None else ())
    finally:
        if fd is not None:
            os.close(fd)
