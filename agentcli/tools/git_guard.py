"""Git metadata a shell command could leave for the host's git to run later: found, bound
read-only for the command, and checked again when it ends.

Git runs programs named by repository files (hooks, `core.fsmonitor`, filters, pagers), and it
finds a repository by looking for `.git` (a directory, or a file saying `gitdir: PATH`) in the
current directory and its parents, or for a directory shaped like one (`HEAD`, `objects/`,
`refs/`). So the class is: every git dir the workspace uses, and any new one.

- Before a command (`before`): every `.git` entry in the workspace, every directory shaped like
  a git dir, the targets of gitfiles and of `commondir`, the repository of a parent folder, and
  the files that any of their config files (or the user's global ones) include are listed; the
  sandbox binds each read-only. A `.git` that is a mount point cannot be renamed away (EBUSY).
  Such paths that do not exist yet but lie in the workspace (a missing include target or
  `commondir`) are remembered.
- After it (`Guard.after`): a `.git` entry that was not there before, or a remembered path that
  appeared, is moved aside (`NAME-refused-by-agentcli`, and a folder's `HEAD` inside it too); a
  folder newly shaped like a git dir has its `HEAD` moved aside. Git no longer sees a repository
  in either; each is reported, and the caller refuses the command. Nothing is deleted.

Names compare case-folded. The walk never follows links nor enters `.git` entries (it walks again
after moving them aside, to find what they held), and is incremental: a directory whose inode
and ctime (which no program can set) are unchanged is not listed again, so a command in a large
workspace costs a stat per directory. Files that git runs as hooks from the worktree
(`core.hooksPath` targets, `.husky/`, `.pre-commit-config.yaml`, lefthook) are not refused, but
changes to them are reported (`Guard.hook_changes`, `hook_paths`), for the run summary and
`agent diff`. The file tools ask `write_refusal` before each write.
"""

from __future__ import annotations

import os
import re
import stat
import threading
import time
from contextlib import suppress
from dataclasses import field

from agentcli.core.record import record
from agentcli.tools.plainread import read_plain

REFUSED_SUFFIX = "-refused-by-agentcli"
_GITFILE_MAX = 4096
_CONFIG_MAX = 1 << 20
_INCLUDE_DEPTH = 10  # git's own limit
_SHOWN = 20  # problems named in the refusal; the rest are counted
_RACY_NS = 2_000_000_000  # a directory changed this close to its listing is listed again (timestamp granularity)
# Names compare case-folded: on a case-folding folder (ext4 `chattr +F`) git's lstat(".git") finds `.GIT`.
BARE_NAMES = frozenset({"head", "objects", "refs"})
# Worktree files that hook managers run from (besides core.hooksPath targets).
HOOK_FILES = (".husky", ".pre-commit-config.yaml", ".pre-commit-hooks.yaml", "lefthook.yml", ".lefthook.yml",
              "lefthook.yaml", ".lefthook.yaml", "lefthook-local.yml")


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


@record(frozen=True)
class Meta:
    """One `.git` entry: kind (dir, file, link, other), identity, and where a link or gitfile points."""

    path: str
    kind: str
    dev: int
    ino: int
    target: str = ""

    def same(self, other: Meta) -> bool:
        return (self.kind, self.dev, self.ino, self.target) == (other.kind, other.dev, other.ino, other.target)


@record
class _Dir:
    ino: int
    ctime: int
    listed_at: int
    subdirs: tuple[str, ...]
    git: tuple[Meta, ...]
    bare: bool


def _meta(path: str) -> Meta | None:
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            return Meta(path, "link", st.st_dev, st.st_ino, os.readlink(path))
        except OSError:
            return Meta(path, "link", st.st_dev, st.st_ino)
    if stat.S_ISDIR(st.st_mode):
        return Meta(path, "dir", st.st_dev, st.st_ino)
    if stat.S_ISREG(st.st_mode):
        return Meta(path, "file", st.st_dev, st.st_ino, gitfile_target(path) or "")
    return Meta(path, "other", st.st_dev, st.st_ino)


def gitfile_target(path: str) -> str | None:
    """The git dir a gitfile (`gitdir: PATH`) names, as an absolute normalised path, or None."""
    raw = read_plain(path, _GITFILE_MAX)
    if raw is None:
        return None
    head = raw.decode("utf-8", "replace")
    first = head.split("\n", 1)[0].strip()
    if not first.startswith("gitdir:"):
        return None
    target = first[len("gitdir:"):].strip()
    if not target:
        return None
    return os.path.normpath(os.path.join(os.path.dirname(path), target))


class Tree:
    """The workspace's directories, listed once and re-listed only where they changed."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.dirs: dict[str, _Dir] = {}
        self.lock = threading.Lock()

    def _list(self, path: str, st: os.stat_result) -> _Dir:
        listed_at = time.time_ns()
        subdirs: list[str] = []
        git: list[Meta] = []
        names: set[str] = set()
        try:
            it = os.scandir(path)
        except PermissionError:
            # A folder its owner cannot read (made so by a command): open it up to look inside.
            if st.st_uid != os.geteuid():
                raise
            os.chmod(path, stat.S_IMODE(st.st_mode) | 0o700)
            it = os.scandir(path)
        with it:
            for e in it:
                names.add(e.name.casefold())
                if e.name.casefold() == ".git":
                    m = _meta(e.path)
                    if m is not None:
                        git.append(m)
                elif e.is_dir(follow_symlinks=False):
                    subdirs.append(e.name)
        return _Dir(st.st_ino, st.st_ctime_ns, listed_at, tuple(sorted(subdirs)), tuple(git), BARE_NAMES <= names)

    def refresh(self) -> tuple[dict[str, Meta], set[str], list[str]]:
        """(every `.git` entry by path, every git-dir-shaped folder, folders that could not be read)."""
        with self.lock:
            seen: dict[str, _Dir] = {}
            metas: dict[str, Meta] = {}
            bares: set[str] = set()
            unreadable: list[str] = []
            stack = [self.root]
            while stack:
                path = stack.pop()
                try:
                    st = os.lstat(path)
                except OSError:
                    # Gone, or deeper than PATH_MAX: git cannot use metadata there either (its getcwd
                    # fails past the same bound), so nothing below it is reachable by the user's git.
                    continue
                if not stat.S_ISDIR(st.st_mode):
                    continue
                rec = self.dirs.get(path)
                if (rec is None or rec.ino != st.st_ino or rec.ctime != st.st_ctime_ns
                        or rec.ctime >= rec.listed_at - _RACY_NS):
                    try:
                        rec = self._list(path, st)
                    except OSError:
                        unreadable.append(path)
                        continue
                seen[path] = rec
                for m in rec.git:
                    metas[m.path] = m
                if rec.bare:
                    bares.add(path)  # entered all the same: a new one must not hide what lies below it
                stack.extend(os.path.join(path, n) for n in rec.subdirs)
            self.dirs = seen
            return metas, bares, unreadable


_trees: dict[str, Tree] = {}
_trees_lock = threading.Lock()


def tree(root: str) -> Tree:
    """The (cached) index of this workspace."""
    with _trees_lock:
        t = _trees.get(root)
        if t is None:
            t = _trees[root] = Tree(root)
        return t


# ----- git dirs a repository uses, and what their config files include ------------------------

def commondir(gitdir: str) -> str | None:
    """The `commondir` a git dir names (linked worktrees, submodules), as an absolute path."""
    try:
        with open(os.path.join(gitdir, "commondir"), "rb") as f:
            text = f.read(_GITFILE_MAX).decode("utf-8", "replace").strip()
    except OSError:
        return None
    return os.path.normpath(os.path.join(gitdir, text)) if text else None


def gitdirs_of(meta: Meta) -> list[str]:
    """The git dirs a `.git` entry makes git use, existing or not: itself, a gitfile's or link's
    target, and the `commondir` each names. (One that is missing could be made by a command.)"""
    first: str | None = None
    if meta.kind == "dir":
        first = meta.path
    elif meta.kind == "file" and meta.target:
        first = meta.target
    elif meta.kind == "link":
        first = os.path.realpath(meta.path)
    if first is None:
        return []
    out = [first]
    common = commondir(first)
    if common:
        out.append(common)
    return out


_SECTION = re.compile(r'^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"(?:[^"\\]|\\.)*")?\s*\]\s*(.*)$')
_KEY = re.compile(r"^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$")


def _unquote(value: str) -> str:
    out, quoted, i = [], False, 0
    while i < len(value):
        c = value[i]
        if c == '"':
            quoted = not quoted
        elif c == "\\" and i + 1 < len(value):
            i += 1
            out.append({"n": "\n", "t": "\t", "b": "\b"}.get(value[i], value[i]))
        elif c in "#;" and not quoted:
            break
        else:
            out.append(c)
        i += 1
    return "".join(out).strip()


def config_values(path: str) -> list[tuple[str, str]]:
    """(section.key lowercased, value) pairs of a git config file; [section "sub"] reads as `section`.

    A small reader, erring wide: every `include` and `includeIf` path counts, whatever its condition.
    """
    try:
        with open(path, "rb") as f:
            text = f.read(_CONFIG_MAX).decode("utf-8", "replace")
    except OSError:
        return []
    out: list[tuple[str, str]] = []
    section = ""
    lines = text.replace("\\\r\n", "").replace("\\\n", "").splitlines()
    for line in lines:
        m = _SECTION.match(line)
        if m:
            section = m.group(1).lower().split(".", 1)[0]
            line = m.group(2)
            if not line.strip():
                continue
        k = _KEY.match(line)
        if k:
            out.append((f"{section}.{k.group(1).lower()}", _unquote(k.group(2) or "")))
    return out


def _expand(value: str, base: str) -> str:
    if value.startswith("~/") or value == "~":
        value = os.path.expanduser(value)
    return os.path.normpath(os.path.join(base, value))


def user_configs() -> list[str]:
    """The config files git reads besides a repository's own: system and global (by absolute path)."""
    home = os.path.expanduser("~")
    paths = [os.path.join(home, ".gitconfig"), os.path.join(home, ".config", "git", "config"), "/etc/gitconfig"]
    if os.environ.get("XDG_CONFIG_HOME"):  # as the user's git sees it now; the default place counts too
        paths.append(os.path.join(os.environ["XDG_CONFIG_HOME"], "git", "config"))
    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM"):
        if os.environ.get(var):
            paths.append(os.path.abspath(os.environ[var]))
    return paths


def config_closure(configs: list[str]) -> tuple[list[str], list[str]]:
    """(every config file these configs are or include, existing or not; every core.hooksPath value,
    resolved). Includes are followed up to git's depth limit."""
    files: list[str] = []
    hooks: list[str] = []
    todo = [(p, 0) for p in configs]
    while todo:
        path, depth = todo.pop()
        if path in files:
            continue
        files.append(path)
        if depth >= _INCLUDE_DEPTH:
            continue
        for key, value in config_values(path):
            if key in ("include.path", "includeif.path") and value:
                todo.append((_expand(value, os.path.dirname(path)), depth + 1))
            elif key == "core.hookspath" and value:
                hooks.append(_expand(value, os.path.dirname(path)))
    return files, hooks


def parent_repo(root: str) -> Meta | None:
    """The `.git` of the repository a folder above the workspace belongs to, as git would find it."""
    d = os.path.dirname(root)
    while True:
        m = _meta(os.path.join(d, ".git"))
        if m is not None:
            return m
        if d == "/":
            return None
        d = os.path.dirname(d)


# ----- one command: before and after --------------------------------------------------------------

@record
class Guard:
    """What a command found, what the sandbox binds read-only, and the check when it ends."""

    root: str
    metas: dict[str, Meta]
    bares: set[str]
    protect: list[str]  # existing paths (files or dirs) bound read-only, in the workspace or not
    absent: list[str]  # paths inside the workspace git would read if they existed (includes, gitdirs)
    hook_roots: list[str]  # core.hooksPath targets and hook-manager files inside the workspace
    hook_stamps: dict[str, tuple[int, int, int]]
    problems: list[str] = field(default_factory=list)
    hook_changes: list[str] = field(default_factory=list)
    reported: set[str] = field(default_factory=set)

    def after(self) -> list[str]:
        """Move aside git metadata the command made; the problems (one line each), [] when none.

        Repeated until a walk finds nothing new: a repository inside one that was moved aside (which
        the walk does not enter while it is named `.git`) is found on the next round.
        """
        problems: list[str] = []
        while found := self._round():  # ends: each path is reported once, and the tree is finite
            problems += found
        now = _hook_stamps(self.root, self.hook_roots)
        self.hook_changes = sorted(self._rel(p) for p in set(now) | set(self.hook_stamps)
                                   if now.get(p) != self.hook_stamps.get(p))
        self.problems = problems
        return problems

    def _round(self) -> list[str]:
        """One walk; what it found that is new (each path is reported once, moved or not)."""
        metas, bares, unreadable = tree(self.root).refresh()
        problems: list[str] = []
        known = list(self.metas.values())
        for path, meta in sorted(metas.items()):
            old = self.metas.get(path)
            if (old is not None and old.same(meta)) or path in self.reported:
                continue
            if old is None and any(k.same(meta) for k in known):
                continue  # a protected .git whose parent folder was renamed: the same bound entry
            problems.append(self._refuse(path, "a .git " + {"dir": "directory", "file": "file (gitfile)",
                                                              "link": "symbolic link"}.get(meta.kind, "entry")))
            if old is not None and old.kind == "link" and old.target and not os.path.lexists(path):
                with suppress(OSError):
                    os.symlink(old.target, path)  # put the user's link back
        for path in sorted(bares - self.bares - self.reported):
            self.reported.add(path)
            moved = _move_aside(_head(path))
            problems.append(f"{self._rel(path)}/ is shaped like a git directory (HEAD, objects/, refs/); "
                            + (f"its HEAD was moved to {self._rel(moved)}" if moved else "its HEAD could not be moved"))
        for path in self.absent:
            if os.path.lexists(path) and path not in self.reported:
                problems.append(self._refuse(path, "a path git reads as repository metadata (a config include, "
                                                   "a gitfile's or commondir's target)"))
        for path in unreadable:
            if path not in self.reported:
                self.reported.add(path)
                problems.append(f"{self._rel(path)}/ could not be read, so it could not be checked for git metadata")
        return problems

    def _rel(self, path: str) -> str:
        return os.path.relpath(path, self.root) if _inside(path, self.root) else path

    def _refuse(self, path: str, what: str) -> str:
        self.reported.add(path)
        moved = _move_aside(path)
        where = f"moved to {self._rel(moved)}" if moved else "it could not be moved"
        return f"{self._rel(path)}: {what} ({where})"

    def message(self) -> str:
        """The refusal shown to the model."""
        shown = self.problems[:_SHOWN] + ([f"and {len(self.problems) - _SHOWN} more"]
                                          if len(self.problems) > _SHOWN else [])
        return ("the command made git metadata in the workspace, which commands may not do (the user's git "
                "would run programs it names): " + "; ".join(shown) + ". The command's output is not shown.")


def _move_aside(path: str) -> str | None:
    """Rename `path` to a free `NAME-refused-by-agentcli[-N]` beside it; a directory's HEAD too."""
    if not os.path.lexists(path):
        return None
    base = path + REFUSED_SUFFIX
    dest, n = base, 1
    while os.path.lexists(dest):
        n += 1
        dest = f"{base}-{n}"
    try:
        os.rename(path, dest)
    except PermissionError:
        # A folder the command made read-only to its owner (us, when not root): open it up, then retry.
        parent = os.path.dirname(path)
        try:
            st = os.lstat(parent)
            if st.st_uid != os.geteuid():
                return None
            os.chmod(parent, stat.S_IMODE(st.st_mode) | 0o700)
            os.rename(path, dest)
        except OSError:
            return None
    except OSError:
        return None
    if os.path.isdir(dest) and not os.path.islink(dest):
        _move_aside(_head(dest))
    return dest


def _head(folder: str) -> str:
    """The folder's HEAD entry, in whatever case it was written."""
    with suppress(OSError):
        for name in os.listdir(folder):
            if name.casefold() == "head":
                return os.path.join(folder, name)
    return os.path.join(folder, "HEAD")


def _stamp(path: str) -> tuple[int, int, int]:
    try:
        st = os.lstat(path)
    except OSError:
        return (0, 0, 0)
    return (st.st_ino, st.st_mtime_ns, st.st_size)


def _hook_stamps(root: str, roots: list[str]) -> dict[str, tuple[int, int, int]]:
    """(inode, mtime, size) of every file under the hook roots inside the workspace."""
    out: dict[str, tuple[int, int, int]] = {}
    for top in roots:
        if not _inside(top, root) or not os.path.lexists(top):
            continue
        if not os.path.isdir(top) or os.path.islink(top):
            out[top] = _stamp(top)
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if d != ".git"]
            for f in filenames:
                out[os.path.join(dirpath, f)] = _stamp(os.path.join(dirpath, f))
    return out


def before(root: str) -> Guard:
    """List the workspace's git metadata (see the module docstring); `root` is a real path."""
    metas, bares, _ = tree(root).refresh()
    protect: list[str] = []
    gitdirs: list[str] = []
    entries = list(metas.values())
    parent = parent_repo(root)
    if parent is not None:
        entries.append(parent)
    absent: list[str] = []
    for m in entries:
        if m.kind in ("dir", "file"):
            protect.append(m.path)
        for g in gitdirs_of(m):
            real = os.path.realpath(g)
            gitdirs.append(real)
            if not os.path.lexists(real) and _inside(real, root):
                absent.append(real)  # a gitfile or commondir naming a folder a command could make
    gitdirs += sorted(bares)
    protect += [g for g in gitdirs if os.path.lexists(g)]
    configs = [os.path.join(g, name) for g in dict.fromkeys(gitdirs) for name in ("config", "config.worktree")]
    files, hooks = config_closure(configs + user_configs())
    for f in files:
        real = os.path.realpath(f)
        if not _inside(real, root):
            continue
        if os.path.lexists(real):
            protect.append(real)
        else:
            absent.append(real)
    hook_roots = [os.path.realpath(h) for h in hooks if _inside(os.path.realpath(h), root)]
    hook_roots = list(dict.fromkeys(hook_roots + [os.path.join(root, n) for n in HOOK_FILES]))
    real_protect = [os.path.realpath(p) for p in dict.fromkeys(protect) if os.path.lexists(p)]
    return Guard(root, metas, bares, list(dict.fromkeys(real_protect)), absent, hook_roots,
                 _hook_stamps(root, hook_roots))


def hook_paths(root: str) -> list[str]:
    """Workspace-relative paths git runs hooks from (core.hooksPath targets, hook managers' files)
    that exist now; for `agent diff` and the run summary."""
    g = before(os.path.realpath(root))
    return sorted(os.path.relpath(p, g.root) for p in g.hook_roots if os.path.lexists(p))


def in_git_dir(root: str) -> str | None:
    """Why a workspace that is, or lies inside, a git dir cannot hold commands; None when it does not."""
    parts = root.split("/")
    if ".git" in parts:
        return "the workspace lies inside a .git directory"
    try:
        names = {n.casefold() for n in os.listdir(root)}
    except OSError:
        return None
    if BARE_NAMES <= names:
        return "the workspace is a git directory (it has HEAD, objects/ and refs/)"
    return None


def _nearest_git(start: str) -> Meta | None:
    d = start
    while True:
        m = _meta(os.path.join(d, ".git"))
        if m is not None or d == "/":
            return m
        d = os.path.dirname(d)


def write_refusal(root: str, real: str) -> str | None:
    """Why a file tool may not write `real` (a real path inside `root`): the write would make a folder
    shaped like a git dir, or `real` is a config file git reads (an include target, a global config
    inside the workspace). None when it may."""
    d = root
    rel = os.path.relpath(real, root)
    for part in ([] if rel == "." else rel.split(os.sep)):
        try:
            names = {n.casefold() for n in os.listdir(d)}
        except OSError:
            break
        if BARE_NAMES <= names | {part.casefold()}:
            shown = os.path.relpath(d, root)
            return (f"{'the workspace root' if shown == '.' else shown + '/'} would be shaped like a git directory "
                    "(HEAD, objects/, refs/), which git would run programs from")
        d = os.path.join(d, part)
    configs: list[str] = []
    for start in (os.path.dirname(real), root):
        m = _nearest_git(start)
        if m is not None:
            configs += [os.path.join(g, c) for g in gitdirs_of(m) for c in ("config", "config.worktree")]
    files, _ = config_closure(configs + user_configs())
    if real in {os.path.realpath(f) for f in files}:
        return f"{rel} is a git config file (git reads it for this repository), which could make git run programs"
    return None
