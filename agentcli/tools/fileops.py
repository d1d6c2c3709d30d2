"""Shared checks for the file-management tools (move, copy, delete, make_dir).

Every path goes through the workspace sandbox as a write (`Workspace.resolve(write=True)`):
inside the workspace, never through a link at the last name, never `.git/`, `.agent/` or
agentcli's own files. Folders are walked without following links, and bounded: a tree too
large to list is refused for copy and still moved or deleted whole, with the workspace
snapshot (itself bounded) standing in for the exact list of files.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.tools.sandbox import Workspace

MAX_TREE_FILES = 2000
MAX_COPY_BYTES = 200 * 1024 * 1024


def existing(ws: Workspace, path: str, what: str = "source") -> Path:
    """A path that exists and may be changed."""
    real = ws.resolve(path, write=True)
    if not os.path.lexists(real):
        raise ToolFailure.of(ErrorCode.NOT_FOUND, f"{what} {path!r} does not exist",
                             "Check the path with list_files (paths are relative to the workspace root).")
    return real


def target(ws: Workspace, path: str) -> Path:
    return ws.resolve(path, write=True)


def is_dir(real: Path) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(real).st_mode)
    except OSError:
        return False


def refuse_hard_links(real: Path, root: Path) -> None:
    """A file with another name elsewhere may be a file from outside the workspace: never copied
    (the file tools do not read such files either)."""
    paths = [real] if not is_dir(real) else [Path(d) / f for d, _, fs in os.walk(real, followlinks=False) for f in fs]
    for p in paths[: MAX_TREE_FILES + 1]:
        try:
            st = os.lstat(p)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1:
            raise ToolFailure.of(ErrorCode.PERMISSION, f"{os.path.relpath(p, root)} has other hard links; "
                                 "it is not copied", "Copy a file that is not hard-linked.")


def tree(real: Path, root: Path, limit: int = MAX_TREE_FILES) -> tuple[list[str], int] | None:
    """(workspace-relative regular files under `real`, their total bytes), links not followed; None past
    `limit` files."""
    if not is_dir(real):
        size = os.lstat(real).st_size if os.path.lexists(real) else 0
        return [os.path.relpath(real, root).replace(os.sep, "/")], size
    files: list[str] = []
    total = 0
    for dirpath, dirnames, filenames in os.walk(real, followlinks=False):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            try:
                st = os.lstat(full)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode):
                continue  # links and the like: moved with their folder, but there is no content to keep
            files.append(os.path.relpath(full, root).replace(os.sep, "/"))
            total += st.st_size
            if len(files) > limit:
                return None
    return files, total


def moved(files: list[str], src_rel: str, dst_rel: str) -> list[str]:
    """The same files under their new folder."""
    return [dst_rel + f[len(src_rel):] if f.startswith(src_rel) else f for f in files]


def final_target(ws: Workspace, source: Path, destination: str) -> Path:
    """Where `source` lands: inside `destination` when that is an existing folder (as mv does)."""
    dst = target(ws, destination)
    if is_dir(dst):
        dst = target(ws, os.path.join(ws.relative(dst), source.name))
    if dst == source or str(dst).startswith(str(source) + os.sep):
        raise ToolFailure.of(ErrorCode.VALIDATION, "the destination is the source or inside it",
                             "Pick a destination outside the folder being moved or copied.")
    return dst


def refuse_existing(dst: Path, overwrite: bool, rel: str) -> None:
    if not os.path.lexists(dst):
        return
    if is_dir(dst) or not overwrite:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"{rel} already exists",
                             "Pass overwrite=true to replace a file, or choose another destination.")
