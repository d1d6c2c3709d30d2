"""git: read the repository (status, diff, log, show, blame), safe by construction (`tools/gitsafe`)."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_bool, arg_int, arg_str

ACTIONS = ("status", "diff", "log", "show", "blame")
MAX_PATHS = 50


def paths_arg(args: dict[str, Any], ctx: ToolContext) -> list[str]:
    """`paths` as workspace-relative paths (each checked like the file tools check theirs)."""
    raw = args.get("paths") or []
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list) or not all(isinstance(p, str) and p for p in raw) or len(raw) > MAX_PATHS:
        raise ToolFailure.of(ErrorCode.VALIDATION, f"paths must be a list of up to {MAX_PATHS} workspace paths",
                             'Pass paths like ["src/app.py"].', argument="paths")
    return [_confined(ctx, p) for p in raw]


def _confined(ctx: ToolContext, path: str) -> str:
    ws = ctx.workspace
    try:
        return ws.relative(ws.resolve(path, write=False))
    except ToolFailure as exc:
        if exc.error.code is not ErrorCode.NOT_FOUND:
            raise
    # A path that no longer exists (a deleted file still in the index): checked without following it.
    return ws.relative(ws.resolve(path, write=True))


class Git(BuiltinTool):
    spec = Tool(
        name="git",
        description=(
            "Read the workspace's git repository: status, diff, log, show or blame.\n"
            "Use it when: you need what changed (status, diff), the history (log), an old version or a commit "
            "(show), or who last changed lines (blame).\n"
            "Do not use it to change the repository (git_write does that, at the walk tier). Edge cases: runs git "
            "itself, never a shell; hooks, pagers, external diff and filter programs are off; output is bounded, "
            "so pass paths or a smaller count for big histories.\n"
            'Example: {"action": "diff", "paths": ["src/app.py"]}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(ACTIONS), "description": "Which git read to run."},
                "paths": {"type": "array", "items": {"type": "string"},
                          "description": "Limit to these workspace paths (blame: exactly one file)."},
                "rev": {"type": "string", "description": "A revision: commit, branch, tag, HEAD~2, or A..B for diff "
                                                         "and log (show: the commit; default HEAD)."},
                "staged": {"type": "boolean", "description": "diff: the staged changes instead of the unstaged ones."},
                "max_count": {"type": "integer", "minimum": 1, "maximum": 200,
                              "description": "log: how many commits (default 20)."},
                "start_line": {"type": "integer", "minimum": 1, "description": "blame: first line (default 1)."},
                "end_line": {"type": "integer", "minimum": 1, "description": "blame: last line (default the end)."},
            },
            "required": ["action"],
            "additionalProperties": False,
        },
        tier=Tier.CRAWL,
        read_only=True,
    )

    def touched_paths(self, args: dict[str, Any]) -> list[str]:
        raw = args.get("paths")
        return [p for p in raw if isinstance(p, str)] if isinstance(raw, list) else []

    def argv(self, args: dict[str, Any], ctx: ToolContext) -> list[str]:
        from agentcli.tools.gitsafe import check_rev

        action = arg_str(args, "action", choices=ACTIONS)
        paths = paths_arg(args, ctx)
        rev = args.get("rev")
        rev = check_rev(arg_str(args, "rev")) if rev is not None else None
        if action == "status":
            return ["status", "--short", "--branch", "--untracked-files=normal", "--", *paths]
        if action == "diff":
            staged = ["--cached"] if arg_bool(args, "staged", False) else []
            return ["diff", "--no-ext-diff", "--no-textconv", "--no-color", *staged, *([rev] if rev else []),
                    "--", *paths]
        if action == "log":
            n = arg_int(args, "max_count", 20, lo=1, hi=200)
            return ["log", f"--max-count={n}", "--no-color", "--no-ext-diff", "--no-textconv", "--date=short",
                    "--format=%h %ad %an: %s", *([rev] if rev else []), "--", *paths]
        if action == "show":
            return ["show", "--no-ext-diff", "--no-textconv", "--no-color", "--stat", "--patch", rev or "HEAD",
                    "--", *paths]
        if len(paths) != 1:
            raise ToolFailure.of(ErrorCode.VALIDATION, "blame needs exactly one file in paths",
                                 'Pass paths like ["src/app.py"].', argument="paths")
        lo = arg_int(args, "start_line", 1, lo=1)
        hi = arg_int(args, "end_line", None, lo=lo)
        span = [f"-L{lo},{hi}"] if hi else ([f"-L{lo},"] if lo > 1 else [])
        return ["blame", "--no-textconv", "-s", *span, *([rev] if rev else []), "--", paths[0]]

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.tools.gitsafe import open_repo, render

        argv = self.argv(args, ctx)
        repo = await open_repo(ctx.workspace.root)
        done = await repo.run(argv, keep=max(1024, ctx.budget))
        return render(done, ctx.budget, argv[0])


TOOL = Git()
