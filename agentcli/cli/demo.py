"""`make demo` / `python -m agentcli.cli.demo`: one real agent session, offline, on a throwaway copy.

Copies the demo workspace (package data) to a temporary folder, runs
`agent run "Fix the typo in greeting.py ..." --profile offline --tier walk --yes` through the
CLI in-process, and says where the edited copy is. The repository is never modified.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from importlib import resources
from pathlib import Path

GOAL = "Fix the typo in greeting.py and tell me what you changed"
INTRO = """agentcli demo: a real agent loop with the built-in offline model (no key, no server).
Watch for: a native tool call whose JSON the repair layer fixes, a <tool_call> text call,
a tier request, a Claude-XML call, and the final answer (--yes approves the tier request and
the edit, never past --tier walk).
Workspace (a temporary copy): {ws}

$ agent run "{goal}" --profile offline --workspace {ws} --tier walk --yes
"""


def prepare(parent: Path | None = None) -> Path:
    """A fresh copy of the demo workspace under `parent` (a new temp dir by default)."""
    base = Path(tempfile.mkdtemp(prefix="agentcli-demo-", dir=parent))
    ws = base / "workspace"
    with resources.as_file(resources.files("agentcli.evals") / "demo_workspace") as src:
        shutil.copytree(src, ws, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return ws


def argv(ws: Path) -> list[str]:
    return ["run", GOAL, "--profile", "offline", "--workspace", str(ws), "--tier", "walk", "--yes"]


def main(args: list[str] | None = None) -> int:
    from agentcli.cli.main import app

    ws = prepare(Path(args[0]) if args else None)
    sys.stdout.write(INTRO.format(ws=ws, goal=GOAL) + "\n")
    sys.stdout.flush()
    try:
        code = app(argv(ws), standalone_mode=False)
    except SystemExit as exc:  # typer.Exit surfaces as SystemExit in some click versions
        code = exc.code
    code = int(code or 0)
    sys.stdout.write(f"\nThe edited copy is in {ws} (greeting.py). Exit code {code}.\n")
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
