"""Issue 23, class 1: nothing a command writes makes the host's git run a program later.

The attacks are generated from each workspace layout: every git dir the workspace uses (the
`.git` dir, a gitfile's target, `commondir`, `modules/<x>`, `worktrees/<x>`, a parent folder's
repository) × every path in it that git runs from or follows (each hook, config, config.worktree,
commondir, info/attributes, HEAD, new modules/ and worktrees/ entries, renaming or removing the
dir and rebuilding it), plus every way to make a new repository (`git init` in a subfolder or in
a workspace that is not a repo, a gitfile, a `.git` link, a bare repository with core.worktree,
the workspace root shaped like a git dir, a config file an include names, `~/.gitconfig` when the
workspace is the home dir). One sandbox launch per layout tries them all; then the host's real
git runs `status` and `commit` wherever a repository could now be found, with payloads that
would each touch a marker outside the workspace. Not one marker may exist.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from sandbox_attacks import run_sandboxed

from agentcli.tools import bwrap

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

# Every hook git runs for status, commit, checkout, merge, gc, push and the index/ref machinery.
HOOKS = ("pre-commit", "prepare-commit-msg", "commit-msg", "post-commit", "pre-merge-commit", "post-checkout",
         "post-merge", "post-rewrite", "pre-rebase", "pre-push", "pre-auto-gc", "post-index-change",
         "reference-transaction", "fsmonitor-watchman", "push-to-checkout", "sendemail-validate", "applypatch-msg",
         "pre-applypatch", "post-applypatch", "post-update", "update", "pre-receive", "post-receive")


@pytest.fixture(scope="module", autouse=True)
def sandbox_required() -> None:
    st = bwrap.status(refresh=True)
    if not st.available:
        pytest.fail(f"the shell sandbox cannot start here: {st.detail}. {st.hint}", pytrace=False)


def _git(*args: str, cwd: Path, home: Path, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1",
           "LANG": "C"}
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main",
                           "-c", "protocol.file.allow=always", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=60, check=check)


@dataclass
class Layout:
    """A workspace, the git dirs it uses (name -> path), and what the attack script tries."""

    name: str
    base: Path
    ws: Path = field(init=False)
    markers: Path = field(init=False)
    home: Path = field(init=False)
    gitdirs: dict[str, Path] = field(default_factory=dict)
    gitfiles: list[Path] = field(default_factory=list)
    attacks: dict[str, str] = field(default_factory=dict)  # id -> bash snippet
    must_fail: set[str] = field(default_factory=set)  # ids whose writes the sandbox must refuse outright
    creates: set[str] = field(default_factory=set)  # ids that make new metadata (moved aside afterwards)
    probes: list[Path] = field(default_factory=list)  # where the host's git is run afterwards

    def __post_init__(self) -> None:
        self.ws = self.base / "ws"
        self.markers = self.base / "markers"
        self.home = self.base / "hosthome"
        for d in (self.ws, self.markers, self.home):
            d.mkdir(parents=True, exist_ok=True)

    def mark(self, aid: str) -> str:
        return f"touch {shlex.quote(str(self.markers / aid))}"

    def fsmonitor(self, aid: str) -> str:
        return f"[core]\n\tfsmonitor = {self.mark(aid)}\n\thooksPath = {self.ws}/evilhooks\n"

    def add(self, aid: str, snippet: str, *, protected: bool) -> None:
        self.attacks[aid] = snippet
        (self.must_fail if protected else self.creates).add(aid)


def _protected_attacks(lay: Layout) -> None:
    """Every write into every git dir the workspace uses, and every gitfile; all must fail."""
    for gname, g in lay.gitdirs.items():
        q = shlex.quote(str(g))
        for hook in HOOKS:
            aid = f"{gname}-hook-{hook}"
            lay.add(aid, f"mkdir -p {q}/hooks && printf '#!/bin/sh\\n{lay.mark(aid)}\\n' > {q}/hooks/{hook} && "
                         f"chmod +x {q}/hooks/{hook}", protected=True)
        for name in ("config", "config.worktree"):
            aid = f"{gname}-{name}"
            lay.add(aid, f"printf %s {shlex.quote(lay.fsmonitor(aid))} >> {q}/{name}", protected=True)
        aid = f"{gname}-commondir"
        lay.add(aid, f"cp -r {q} evilcommon-{gname} 2>/dev/null; printf %s {shlex.quote(lay.fsmonitor(aid))} >> "
                     f"evilcommon-{gname}/config; echo \"$PWD/evilcommon-{gname}\" > {q}/commondir", protected=True)
        lay.add(f"{gname}-info-attributes", f"mkdir -p {q}/info && echo '* filter=evil diff=evil' >> "
                                             f"{q}/info/attributes", protected=True)
        lay.add(f"{gname}-HEAD", f"echo 'ref: refs/heads/evil' > {q}/HEAD", protected=True)
        for sub in ("modules/evil", "worktrees/evil"):
            aid = f"{gname}-{sub.replace('/', '-')}"
            lay.add(aid, f"mkdir -p {q}/{sub} && printf %s {shlex.quote(lay.fsmonitor(aid))} > {q}/{sub}/config && "
                         f"echo ../.. > {q}/{sub}/commondir", protected=True)
        aid = f"{gname}-rename-rebuild"
        lay.add(aid, f"mv {q} {q}.old && mkdir {q} && cp -r {q}.old/. {q}/ && printf %s "
                     f"{shlex.quote(lay.fsmonitor(aid))} >> {q}/config", protected=True)
        lay.add(f"{gname}-remove", f"rm -rf {q} && test ! -e {q}", protected=True)
    for i, gf in enumerate(lay.gitfiles):
        q = shlex.quote(str(gf))
        aid = f"gitfile{i}-retarget"
        lay.add(aid, f"git init -q --bare evilgd{i} 2>/dev/null; printf %s {shlex.quote(lay.fsmonitor(aid))} >> "
                     f"evilgd{i}/config; echo \"gitdir: $PWD/evilgd{i}\" > {q}", protected=True)
        lay.add(f"gitfile{i}-remove", f"rm -f {q} && test ! -e {q}", protected=True)


def _creation_attacks(lay: Layout, *, root_repo: bool) -> None:
    """Every way to make a repository the host's git would find; each is moved aside afterwards."""
    ws = lay.ws
    init = "git -c init.defaultBranch=main init -q"
    lay.add("new-subdir-repo", f"{init} sub-new && git --git-dir=sub-new/.git config core.fsmonitor "
                               f"{shlex.quote(lay.mark('new-subdir-repo'))}", protected=False)
    lay.add("new-gitfile", f"{init} --bare gf-target && git --git-dir=gf-target config core.bare false && "
                           f"git --git-dir=gf-target config core.worktree \"$PWD/sub-gf\" && git --git-dir=gf-target "
                           f"config core.fsmonitor {shlex.quote(lay.mark('new-gitfile'))} && mkdir -p sub-gf && "
                           "echo \"gitdir: $PWD/gf-target\" > sub-gf/.git", protected=False)
    lay.add("new-link", f"{init} --bare ln-target && git --git-dir=ln-target config core.bare false && "
                        f"git --git-dir=ln-target config core.fsmonitor {shlex.quote(lay.mark('new-link'))} && "
                        "mkdir -p sub-ln && ln -s ../ln-target sub-ln/.git", protected=False)
    lay.add("new-bare", f"{init} --bare evilbare && git --git-dir=evilbare config core.bare false && "
                        f"git --git-dir=evilbare config core.worktree \"$PWD\" && git --git-dir=evilbare config "
                        f"core.fsmonitor {shlex.quote(lay.mark('new-bare'))}", protected=False)
    lay.add("new-nested-deep", f"mkdir -p a/b/c/d && {init} a/b/c/d && git --git-dir=a/b/c/d/.git config "
                               f"core.fsmonitor {shlex.quote(lay.mark('new-nested-deep'))}", protected=False)
    lay.probes += [ws / "sub-new", ws / "sub-gf", ws / "sub-ln", ws / "evilbare", ws / "a" / "b" / "c" / "d",
                   ws / "gf-target", ws / "ln-target"]
    if not root_repo:
        lay.add("root-git-init", f"{init} . && git --git-dir=.git config core.fsmonitor "
                                 f"{shlex.quote(lay.mark('root-git-init'))}", protected=False)
        lay.add("root-bare-shape", "mkdir -p objects refs/heads && echo 'ref: refs/heads/main' > HEAD && printf %s "
                                   f"{shlex.quote(lay.fsmonitor('root-bare-shape'))} > config && "
                                   "printf '\\tbare = false\\n\\tworktree = .\\n' >> config", protected=False)


def _layout(name: str, base: Path) -> Layout:
    lay = Layout(name, base)
    ws, home = lay.ws, lay.home
    (ws / "readme.txt").write_text("hello\n")
    if name == "repo":  # a repository with a submodule-style gitdir and a linked worktree
        _git("init", "-q", ".", cwd=ws, home=home)
        _git("add", "readme.txt", cwd=ws, home=home)
        _git("commit", "-qm", "init", cwd=ws, home=home)
        (ws / ".git" / "modules").mkdir()
        _git("init", "-q", "--separate-git-dir", str(ws / ".git" / "modules" / "lib"), str(ws / "lib"), cwd=ws,
             home=home)
        _git("worktree", "add", "-q", str(base / "wt"), cwd=ws, home=home)
        _git("init", "-q", "vendor/dep", cwd=ws, home=home)  # a vendored repository of its own
        _git("init", "-q", "--bare", "mirror.git", cwd=ws, home=home)  # a bare one
        lay.gitdirs = {"dotgit": ws / ".git", "module": ws / ".git" / "modules" / "lib",
                       "worktree": ws / ".git" / "worktrees" / "wt", "vendored": ws / "vendor" / "dep" / ".git",
                       "bare": ws / "mirror.git"}
        lay.gitfiles = [ws / "lib" / ".git"]
        lay.probes = [ws, ws / "lib", base / "wt", ws / "vendor" / "dep", ws / "mirror.git"]
    elif name == "gitfile-outside":  # --separate-git-dir: the real git dir is outside the workspace
        _git("init", "-q", "--separate-git-dir", str(base / "real.git"), str(ws), cwd=base, home=home)
        lay.gitdirs = {"target": base / "real.git"}
        lay.gitfiles = [ws / ".git"]
        lay.probes = [ws]
    elif name == "gitfile-inside":  # ... or inside it, under another name
        (ws / "meta").mkdir()
        _git("init", "-q", "--separate-git-dir", str(ws / "meta" / "real.git"), str(ws), cwd=base, home=home)
        lay.gitdirs = {"target": ws / "meta" / "real.git"}
        lay.gitfiles = [ws / ".git"]
        lay.probes = [ws, ws / "meta" / "real.git"]
    elif name == "linked-worktree":  # the workspace is a worktree of a repository elsewhere
        main = base / "main"
        main.mkdir()
        _git("init", "-q", ".", cwd=main, home=home)
        (main / "f").write_text("f\n")
        _git("add", "f", cwd=main, home=home)
        _git("commit", "-qm", "init", cwd=main, home=home)
        shutil.rmtree(ws)
        _git("worktree", "add", "-q", str(ws), cwd=main, home=home)
        lay.gitdirs = {"admin": main / ".git" / "worktrees" / "ws", "common": main / ".git"}
        lay.gitfiles = [ws / ".git"]
        lay.probes = [ws, main]
    elif name == "subfolder":  # the workspace is a folder inside a repository
        parent = base / "parent"
        parent.mkdir()
        _git("init", "-q", ".", cwd=parent, home=home)
        shutil.rmtree(ws)
        lay.ws = ws = parent / "ws"
        ws.mkdir()
        (ws / "readme.txt").write_text("hello\n")
        lay.gitdirs = {"parent": parent / ".git"}
        lay.probes = [ws, parent]
    elif name == "include":  # config files that the repository's config includes, one of them missing
        _git("init", "-q", ".", cwd=ws, home=home)
        (ws / "shared.gitconfig").write_text("[user]\n\tname = x\n")
        with open(ws / ".git" / "config", "a") as f:
            f.write("[include]\n\tpath = ../shared.gitconfig\n[includeIf \"gitdir:/\"]\n\tpath = ../missing.gitconfig\n")
        lay.gitdirs = {"dotgit": ws / ".git"}
        lay.add("include-existing", f"printf %s {shlex.quote(lay.fsmonitor('include-existing'))} >> shared.gitconfig",
                protected=True)
        lay.add("include-missing", f"printf %s {shlex.quote(lay.fsmonitor('include-missing'))} > missing.gitconfig",
                protected=False)
        lay.probes = [ws]
    elif name == "home":  # the workspace is the home directory: ~/.gitconfig is a workspace file
        proj = ws / "proj"
        proj.mkdir()
        _git("init", "-q", ".", cwd=proj, home=home)
        lay.gitdirs = {"proj": proj / ".git"}
        lay.add("home-gitconfig", f"printf %s {shlex.quote(lay.fsmonitor('home-gitconfig'))} > .gitconfig",
                protected=False)
        lay.add("home-xdg-config", f"mkdir -p .config/git && printf %s {shlex.quote(lay.fsmonitor('home-xdg-config'))}"
                                   " > .config/git/config", protected=False)
        lay.home = ws
        lay.probes = [proj]
    elif name == "dangling":  # a gitfile whose git dir names a commondir that is not there (yet)
        gd = ws / "gd"
        (gd / "refs").mkdir(parents=True)
        (gd / "HEAD").write_text("ref: refs/heads/main\n")
        (gd / "commondir").write_text("../common\n")
        (ws / ".git").write_text(f"gitdir: {gd}\n")
        lay.gitdirs = {"gd": gd}
        lay.gitfiles = [ws / ".git"]
        lay.add("dangling-commondir", "mkdir -p common/objects common/refs/heads && git init -q --bare x.git && cp "
                                      f"x.git/HEAD common/ && printf %s {shlex.quote(lay.fsmonitor('dangling-commondir'))} "
                                      "> common/config && rm -rf x.git", protected=False)
        lay.probes = [ws]
    elif name == "none":  # not a repository, nor inside one
        lay.probes = [ws]
    _protected_attacks(lay)
    _creation_attacks(lay, root_repo=name not in ("none", "subfolder", "home", "dangling"))
    return lay


def _script(lay: Layout) -> str:
    lines = ["cd " + shlex.quote(str(lay.ws))]
    for aid, snippet in lay.attacks.items():
        lines.append(f"( {snippet} ) >/dev/null 2>&1 && echo 'WROTE {aid}' || echo 'REFUSED {aid}'")
    return "\n".join(lines) + "\n"


def _probe_host(lay: Layout) -> list[str]:
    """The host's git, as its user would run it next, wherever a repository could be found."""
    ran = []
    for d in dict.fromkeys(lay.probes):
        if not d.is_dir():
            continue
        for args in (("status",), ("commit", "--allow-empty", "-qm", "probe"), ("checkout", "-q", "-B", "probe")):
            _git(*args, cwd=d, home=lay.home, check=False)
            ran.append(f"{d}: git {args[0]}")
    return ran


LAYOUTS = ("repo", "gitfile-outside", "gitfile-inside", "linked-worktree", "subfolder", "include", "home", "dangling",
           "none")


@pytest.mark.parametrize("name", LAYOUTS)
def test_no_git_metadata_a_command_writes_runs_on_the_host(name: str, tmp_path: Path, monkeypatch) -> None:
    lay = _layout(name, tmp_path)
    if name == "home":
        monkeypatch.setenv("HOME", str(lay.ws))
    before = {str(p): p.read_bytes() for g in lay.gitdirs.values() for p in sorted(g.rglob("*")) if p.is_file()}
    ran = run_sandboxed(lay.ws, _script(lay))
    wrote = {line.split()[1] for line in ran.out.splitlines() if line.startswith("WROTE ")}
    refused = {line.split()[1] for line in ran.out.splitlines() if line.startswith("REFUSED ")}
    assert wrote | refused == set(lay.attacks), ran.err  # every attack ran and reported
    assert not wrote & lay.must_fail, sorted(wrote & lay.must_fail)
    after = {str(p): p.read_bytes() for g in lay.gitdirs.values() for p in sorted(g.rglob("*")) if p.is_file()}
    assert after == before, "a file in a git dir the workspace uses changed"
    if wrote & lay.creates:
        assert ran.refused and "git metadata" in ran.refused, ran
    for made in ("sub-new", "sub-gf", "sub-ln", "a/b/c/d"):  # each new .git was moved aside
        assert not os.path.lexists(lay.ws / made / ".git"), made
    for made in ("evilbare", "gf-target", "ln-target"):  # each new bare repository lost its HEAD
        assert not os.path.lexists(lay.ws / made / "HEAD"), made
    probes = _probe_host(lay)
    markers = sorted(os.listdir(lay.markers))
    assert markers == [], f"the host's git ran a payload: {markers}"
    print(f"\nsandbox-git[{name}]: 0 of {len(lay.attacks)} git metadata attacks ran a program on the host "
          f"({len(refused)} writes refused, {len(wrote & lay.creates)} made new metadata, moved aside; "
          f"{len(probes)} host git runs)")


def test_the_host_probes_would_see_a_payload(tmp_path: Path) -> None:
    """The control: the same payloads written on the host (no sandbox) do run, so the probes can tell."""
    lay = _layout("repo", tmp_path)
    hook = lay.ws / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\n{lay.mark('control-hook')}\n")
    hook.chmod(0o755)
    with open(lay.ws / ".git" / "config", "a") as f:
        f.write(f"[core]\n\tfsmonitor = {lay.mark('control-fsmonitor')}\n")
    sub = lay.ws / "sub"
    sub.mkdir()
    _git("init", "-q", ".", cwd=sub, home=lay.home)
    _git("config", "core.fsmonitor", lay.mark("control-subrepo"), cwd=sub, home=lay.home)
    lay.probes.append(sub)
    _probe_host(lay)
    assert sorted(os.listdir(lay.markers)) == ["control-fsmonitor", "control-hook", "control-subrepo"]


def test_hook_files_in_the_worktree_are_reported(tmp_path: Path) -> None:
    """core.hooksPath into the worktree (husky) is the visible variant: allowed, and reported."""
    lay = Layout("husky", tmp_path)
    _git("init", "-q", ".", cwd=lay.ws, home=lay.home)
    _git("config", "core.hooksPath", ".husky", cwd=lay.ws, home=lay.home)
    (lay.ws / ".husky").mkdir()
    notes: list[str] = []
    ran = run_sandboxed(lay.ws, "printf '#!/bin/sh\\nexit 0\\n' > .husky/pre-commit; echo 'repos: []' > "
                                ".pre-commit-config.yaml; echo other > notes.txt", report=notes)
    assert ran.refused is None and ran.code == 0, ran
    assert sorted(notes) == ["changed a file git runs as a hook: .husky/pre-commit",
                             "changed a file git runs as a hook: .pre-commit-config.yaml"]


def test_moved_aside_metadata_cannot_be_put_back(tmp_path: Path) -> None:
    """A repository moved aside and renamed back by the next command is moved aside again."""
    lay = _layout("none", tmp_path)
    first = run_sandboxed(lay.ws, f"git init -q sub && git --git-dir=sub/.git config core.fsmonitor "
                                  f"{shlex.quote(lay.mark('again'))}")
    assert first.refused and (lay.ws / "sub" / ".git-refused-by-agentcli").is_dir()
    second = run_sandboxed(lay.ws, "mv sub/.git-refused-by-agentcli sub/.git && mv sub/.git/HEAD-refused-by-agentcli "
                                   "sub/.git/HEAD")
    assert second.refused and not (lay.ws / "sub" / ".git").exists()
    _git("status", cwd=lay.ws / "sub", home=lay.home, check=False)
    assert os.listdir(lay.markers) == []


def test_file_tools_cannot_make_a_git_dir_or_write_an_included_config(tmp_path: Path) -> None:
    from agentcli.core.errors import ToolFailure
    from agentcli.tools.sandbox import Workspace

    lay = _layout("include", tmp_path)
    w = Workspace(lay.ws)
    for path in ("missing.gitconfig", "shared.gitconfig"):
        with pytest.raises(ToolFailure, match="git config file"):
            w.write_atomic(path, b"[core]\n\tfsmonitor = touch /tmp/x\n")
    w.write_atomic("evil/objects/x", b"", create_dirs=True)
    w.write_atomic("evil/refs/heads/main", b"", create_dirs=True)
    with pytest.raises(ToolFailure, match="shaped like a git directory"):
        w.write_atomic("evil/HEAD", b"ref: refs/heads/main\n")
    w.write_atomic("other/HEAD", b"just a file named HEAD\n", create_dirs=True)
    w.write_atomic("other/objects/x", b"", create_dirs=True)
    with pytest.raises(ToolFailure, match="shaped like a git directory"):
        w.write_atomic("other/refs/x", b"", create_dirs=True)


def test_repositories_nested_inside_new_ones_are_all_moved_aside(tmp_path: Path) -> None:
    """A .git inside a .git inside a .git ..., 80 deep: every level is found once the one above is moved."""
    lay = _layout("none", tmp_path)
    depth = 80
    ran = run_sandboxed(lay.ws, f"p=.; for i in $(seq {depth}); do git init -q \"$p\" && git --git-dir=\"$p/.git\" "
                                f"config core.fsmonitor {shlex.quote(lay.mark('nested'))}; p=\"$p/.git/n\"; done")
    assert ran.refused, ran
    left = [p for p in lay.ws.rglob("*") if p.name.casefold() == ".git" or p.name == "HEAD"]
    assert left == [], left[:3]
    assert ran.refused.count("moved to") >= 20 and f"and {depth - 20} more" in ran.refused
