"""Shared helper for tool tests: a workspace with canary files outside it (next door and one level up).

A uniquely named module (not conftest) so `from _toolbox import Box` cannot pick up another
directory's conftest when the whole suite runs."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from agentcli.config.schema import BashConfig
from agentcli.core.types import ToolCall, ToolResult
from agentcli.tools.base import ToolContext
from agentcli.tools.executor import execute
from agentcli.tools.registry import default_registry
from agentcli.tools.sandbox import Workspace

CANARY = "CANARY-7f3a9-do-not-leak"


class Box:
    """A workspace plus the canaries around it, and a one-call helper."""

    def __init__(self, base: Path, **bash: object) -> None:
        self.base = base
        self.root = base / "ws"
        self.outside = base / "outside"
        self.sibling = base / "ws-evil"  # shares the root's string prefix: must count as outside
        for d in (self.root / "src" / "pkg", self.root / ".git", self.outside / "sub", self.sibling):
            d.mkdir(parents=True, exist_ok=True)
        (self.root / "src" / "main.py").write_text("def main():\n    return 1\n")
        (self.root / "src" / "pkg" / "util.py").write_text("def add(a, b):\n    return a + b\n")
        (self.root / "README.md").write_text("# Demo\n")
        (self.root / ".git" / "config").write_text("[core]\n")
        for d in (self.outside, self.outside / "sub", self.sibling):
            (d / "secret.txt").write_text(CANARY + "\n")
        # Links that lead out: a file link, a directory link, a link deep inside, and a relative one.
        os.symlink(self.outside / "secret.txt", self.root / "link_file")
        os.symlink(self.outside, self.root / "link_dir")
        os.symlink("../../../outside", self.root / "src" / "pkg" / "up")
        os.symlink(self.sibling, self.root / "link_sibling")
        self.ws = Workspace(self.root)
        self.bash = BashConfig(**bash)  # type: ignore[arg-type]
        self.ctx = ToolContext(self.ws, self.bash, 20_000)
        self.registry = default_registry()
        self._outside_state = self.snapshot()

    def snapshot(self) -> dict[str, tuple[bytes, int]]:
        """Every file outside the workspace: content and mtime."""
        state = {}
        for d in (self.outside, self.sibling):
            for p in sorted(d.rglob("*")):
                if p.is_file() and not p.is_symlink():
                    state[str(p)] = (p.read_bytes(), p.stat().st_mtime_ns)
        extra = sorted(str(p) for p in self.base.iterdir() if p.name not in ("ws", "outside", "ws-evil"))
        state["<base>"] = ("\n".join(extra).encode(), 0)
        return state

    def outside_unchanged(self) -> bool:
        return self.snapshot() == self._outside_state

    async def call(self, name: str, **args: object) -> ToolResult:
        return await execute(ToolCall(name, dict(args)), self.registry, self.ctx)

    def run(self, name: str, **args: object) -> ToolResult:
        return asyncio.run(self.call(name, **args))
