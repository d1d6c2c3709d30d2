"""Project instructions: the workspace's AGENTS.md, plus AGENTS.md files in folders on the
way to the files being worked on, read into the system prompt.

The convention many agents share (agents.md): plain Markdown, the nearest file to the code
wins. Files are listed root first and the prompt says a deeper one overrides a shallower
one for the files under it. Each file and the total are capped: a repository controls
these bytes, and they are sent with every request.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from pathlib import Path

FILENAME = "AGENTS.md"
MAX_FILE_BYTES = 16 * 1024
MAX_TOTAL_BYTES = 48 * 1024
MAX_FILES = 16

HEADING = (
    "Project instructions from AGENTS.md files follow. Follow them. Where they disagree, the file "
    "nearer to the code you are working on (deeper in the tree) wins for the files under it."
)


@dataclass
class Instructions:
    """The AGENTS.md files loaded so far: workspace-relative path -> text, root first."""

    root: Path
    files: dict[str, str] = field(default_factory=dict)
    _seen_dirs: set[str] = field(default_factory=set)

    @classmethod
    def load(cls, root: Path) -> Instructions:
        inst = cls(root)
        inst._load_dir(".")
        return inst

    def note(self, path: object) -> list[str]:
        """A tool touched `path`: load AGENTS.md files of the folders between the root and it.
        Returns the files newly loaded."""
        if not isinstance(path, str) or not path.strip() or "\x00" in path:
            return []
        from agentcli.tools.sandbox import Workspace

        try:
            rel = Workspace(self.root).relative(path)
        except (ValueError, OSError):
            return []
        if rel == ".." or rel.startswith("../") or posixpath.isabs(rel):
            return []  # outside the workspace: the tools refuse it too
        folder = posixpath.dirname(rel) if not (self.root / rel).is_dir() else rel
        added = []
        parts = [p for p in folder.split("/") if p and p != "."]
        for i in range(1, len(parts) + 1):
            got = self._load_dir("/".join(parts[:i]))
            if got:
                added.append(got)
        if added:  # keep root-first order: shallower files before deeper ones
            self.files = dict(sorted(self.files.items(), key=lambda kv: (kv[0].count("/"), kv[0])))
        return added

    def _load_dir(self, rel_dir: str) -> str | None:
        if rel_dir in self._seen_dirs or len(self.files) >= MAX_FILES:
            return None
        self._seen_dirs.add(rel_dir)
        rel = FILENAME if rel_dir in ("", ".") else f"{rel_dir}/{FILENAME}"
        used = sum(len(t.encode()) for t in self.files.values())
        room = min(MAX_FILE_BYTES, MAX_TOTAL_BYTES - used)
        if room <= 0:
            return None
        from agentcli.core.errors import ToolFailure
        from agentcli.tools.sandbox import Workspace

        try:
            data = Workspace(self.root).read_bytes(rel, limit=room + 1)
        except (ToolFailure, ValueError, OSError):
            return None  # absent, a link out of the workspace, unreadable: no instructions
        text = data[:room].decode("utf-8", "replace")
        if len(data) > room:
            text += f"\n[{FILENAME} cut at {room} bytes]"
        self.files[rel] = text
        return rel

    def prompt(self) -> str:
        if not self.files:
            return ""
        parts = [HEADING]
        for rel, text in self.files.items():
            parts.append(f"<instructions file=\"{rel}\">\n{text.strip()}\n</instructions>")
        return "\n\n".join(parts)


# What a starter AGENTS.md says about building and testing, by the files a project has.
_PROJECT_HINTS: tuple[tuple[str, str], ...] = (
    ("pyproject.toml", "- Python project: run the tests with `python -m pytest`."),
    ("package.json", "- Node project: install with `npm install`, test with `npm test`."),
    ("Cargo.toml", "- Rust project: build with `cargo build`, test with `cargo test`."),
    ("go.mod", "- Go module: test with `go test ./...`."),
    ("Makefile", "- A Makefile is present: see its targets (`make test` if it has one)."),
)

STARTER = """# AGENTS.md

Instructions for coding agents working in this repository (agentcli and others read this file).

## Project
- What this project is, in a sentence or two.

## Build and test
{hints}

## Conventions
- Code style, naming, and anything a change must respect.
- Files or folders an agent must not touch.
"""


def starter_text(root: Path) -> str:
    hints = [hint for name, hint in _PROJECT_HINTS if (root / name).exists()]
    return STARTER.format(hints="\n".join(hints) or "- How to build and run the tests.")
