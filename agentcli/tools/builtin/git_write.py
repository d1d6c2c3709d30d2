"""git_write: change the repository (add, commit, branch, switch, stash), never push; safe by
construction like `git` (`tools/gitsafe`), and shown for approval first (a commit with its
message, author, branch and the staged files)."""

from __future__ import annotations

from typing import Any

from agentcli.core.errors import ErrorCode, ToolFailure
from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, Judgement, ToolContext, arg_bool, arg_str
from agentcli.tools.builtin.git import paths_arg

ACTIONS = ("add", "commit", "branch", "switch", "stash")
STASH = ("push", "pop", "list")
MAX_MESSAGE = 4000


class GitWrite(BuiltinTool):
    spec = Tool(
        name="git_write",
        description=(
            "Change the workspace's git repository: add (stage paths), commit (the staged changes, with a message), "
            "branch (create one), switch (to a branch, or create it with create=true) or stash (push, pop, list).\n"
            "Use it when: the task asks you to commit your work, or to work on a branch.\n"
            "Do not use it to read the repository (use git) or to push: nothing here talks to a remote. Edge cases: "
            "hooks and signing are off; commit shows the user the message and the staged files first; switch and "
            "stash change files in the workspace (agent undo can put them back).\n"
            'Example: {"action": "commit", "message": "Fix the greeting typo"}'
        ),
        parameters={
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": list(ACTIONS), "description": "Which git change to make."},
                "paths": {"type": "array", "items": {"type": "string"},
                          "description": "add: the workspace paths to stage (\".\" for everything)."},
                "message": {"type": "string", "description": "commit: the commit message; stash push: its name."},
                "name": {"type": "string", "description": "branch / switch: the branch name."},
                "create": {"type": "boolean", "description": "switch: create the branch and switch to it."},
                "stash": {"type": "string", "enum": list(STASH), "description": "stash: push (default), pop or list."},
            },
            "required": ["action"],
            "additionalProperties": False,
        },
        tier=Tier.WALK,
        read_only=False,
        needs_approval=True,
    )

    def argv(self, args: dict[str, Any], ctx: ToolContext) -> list[str]:
        from agentcli.tools.gitsafe import check_rev

        action = arg_str(args, "action", choices=ACTIONS)
        if action == "add":
            paths = paths_arg(args, ctx)
            if not paths:
                raise ToolFailure.of(ErrorCode.VALIDATION, "add needs paths", 'Pass paths like ["."] or ["src/a.py"].',
                                     argument="paths")
            return ["add", "--", *paths]
        if action == "commit":
            message = arg_str(args, "message").strip()
            if not message or len(message) > MAX_MESSAGE or "\x00" in message:
                raise ToolFailure.of(ErrorCode.VALIDATION, f"commit needs a message of 1 to {MAX_MESSAGE} characters",
                                     "Pass message, e.g. \"Fix the off-by-one in parse()\".", argument="message")
            return ["commit", "--no-verify", "--no-gpg-sign", "--cleanup=strip", "-m", message]
        if action == "stash":
            which = arg_str(args, "stash", "push", choices=STASH)
            if which == "push":
                message = arg_str(args, "message", "").strip()[:200]
                return ["stash", "push", "--include-untracked", *(["-m", message] if message else [])]
            return ["stash", which]
        name = check_rev(arg_str(args, "name"), "name")
        if action == "branch":
            return ["branch", "--", name]
        return ["switch", "--no-guess", *(["--create", name] if arg_bool(args, "create", False) else [name])]

    def judge(self, args: dict[str, Any], ctx: ToolContext) -> Judgement:
        argv = self.argv(args, ctx)  # bad arguments are refused before anyone is asked
        shown = " ".join(a if a.replace("-", "").replace("_", "").replace(".", "").replace("/", "").isalnum()
                         else repr(a) for a in argv)
        return Judgement.ask(f"$ git {shown}" + (self._commit_view(ctx) if argv[0] == "commit" else ""))

    def _commit_view(self, ctx: ToolContext) -> str:
        """What the commit would record: branch, author and the staged files (read with the same safe git)."""
        from agentcli.tools.gitsafe import open_repo_sync

        repo = open_repo_sync(ctx.workspace.root)
        if repo is None:
            return "\n(not a repository agentcli can read)"
        branch = repo.peek(["branch", "--show-current"], 400).strip() or "(detached HEAD)"
        author = " ".join(repo.peek(["var", "GIT_AUTHOR_IDENT"], 400).split()[:-2]) or "(no author set)"
        staged = repo.peek(["diff", "--cached", "--stat", "--no-color", "--no-ext-diff", "--no-textconv"], 6000)
        return (f"\nbranch: {branch}\nauthor: {author}\nstaged:\n"
                + (staged.rstrip() or "(nothing staged: the commit will fail)"))

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        from agentcli.tools.gitsafe import merge_drivers, open_repo, render

        argv = self.argv(args, ctx)
        repo = await open_repo(ctx.workspace.root)
        if argv[:2] == ["stash", "pop"] and merge_drivers(repo):
            raise ToolFailure.of(ErrorCode.PERMISSION, "this repository defines merge drivers (programs a stash pop "
                                 f"would run): {', '.join(merge_drivers(repo))}", "Ask the user to pop the stash.")
        if argv[0] == "commit":
            await self._identity(repo)
        done = await repo.run(argv, keep=max(1024, ctx.budget))
        out = render(done, ctx.budget, argv[0])
        if argv[0] == "commit":
            head = await repo.run(["log", "-1", "--format=%h %s", "--no-color"], keep=4096)
            return f"Committed {render(head, 400, 'log')}.\n{out}"
        return out

    async def _identity(self, repo: Any) -> None:
        from agentcli.tools.gitsafe import render

        got = await repo.run(["config", "user.email"], keep=1024, timeout=10)
        if got.code != 0 or not render(got, 200, "config").strip():
            raise ToolFailure.of(ErrorCode.EXECUTION, "git has no author identity here (user.email is not set)",
                                 "Ask the user to set git config user.name and user.email.")

    def changed_paths(self, args: dict[str, Any]) -> list[str]:
        return []  # switch and stash may change any file: the session snapshots the workspace around it


TOOL = GitWrite()
