"""The `agent` command line as a typer app (`agentcli.cli.main` is the process entry that loads it).

Only option declarations live here. Each command body imports its implementation
module on call, so `agent --help` never loads httpx, pydantic or prompt-toolkit. Options are
declared as defaults (`x: str = _option(...)`), not as `Annotated[str, _option(...)]`:
every start builds every command's declarations, and an `Annotated` alias costs about twice the
option it carries, for the same parameters and help. No `from __future__ import annotations`
either: typer would eval each annotation string of the command it builds (a compile per parameter).
"""

import importlib
from pathlib import Path
from typing import Any, Optional

import typer
from typer.models import ArgumentInfo, OptionInfo

from agentcli import __version__

# typer.Option and typer.Argument pass some 45 keywords through three calls to set as many
# attributes: about 60,000 instructions each, and every start declares some 60 of them (1.4 % of
# `agent run --help`). `_option` and `_argument` build the same objects from one default object's
# attributes and the few a declaration names (tests compare each with what typer builds).
_OPTION_DEFAULTS = vars(typer.Option(None))
_ARGUMENT_DEFAULTS = vars(typer.Argument(None))
_CUSTOM_TYPES = frozenset({"parser", "click_type"})  # typer checks these against each other: its own call


def _declared(cls: type, defaults: dict[str, Any], given: dict[str, Any]) -> Any:
    if not given.keys() <= defaults.keys() or given.keys() & _CUSTOM_TYPES:
        return None
    info: Any = object.__new__(cls)
    vars(info).update(defaults, **given)
    return info


def _option(default: Any, *param_decls: str, **given: Any) -> Any:
    """`typer.Option(default, *param_decls, **given)`, built cheaply (see above)."""
    return _declared(OptionInfo, _OPTION_DEFAULTS, {**given, "default": default, "param_decls": param_decls}) or (
        typer.Option(default, *param_decls, **given))


def _argument(default: Any, **given: Any) -> Any:
    """`typer.Argument(default, **given)`, built cheaply (see above)."""
    return _declared(ArgumentInfo, _ARGUMENT_DEFAULTS, {**given, "default": default}) or typer.Argument(
        default, **given)


app = typer.Typer(
    name="agent",
    help="Run an agent loop against any LLM, with tool calling that works.",
    no_args_is_help=False,  # bare `agent` opens the chat, as `claude`, `codex` and `aider` do
    invoke_without_command=True,
    add_completion=True,  # --install-completion / --show-completion for bash, zsh, fish, PowerShell
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
profiles_app = typer.Typer(help="List, show and create profiles.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(profiles_app, name="profiles")
mcp_app = typer.Typer(help="List, add and remove shared MCP servers (config.toml).", no_args_is_help=True,
                      rich_markup_mode=None)
app.add_typer(mcp_app, name="mcp")

def _complete_profile(incomplete: str) -> list[str]:
    """Shell completion for --profile: the names `agent profiles list` shows (a broken file is skipped)."""
    try:
        from agentcli.config import list_profiles

        names = sorted({p.name for p in list_profiles()})
    except Exception:  # completion must never print a traceback into the shell
        return []
    return [n for n in names if n.startswith(incomplete)]


# Shared option aliases.
ProfileOpt = _option(None, "--profile", "-p", help="Profile name, or path/to/file.toml[#name].",
                          autocompletion=_complete_profile)
WorkspaceOpt = _option(None, "--workspace", "-w",
                            help="Directory the agent may work in (default: current directory).")
JsonOpt = _option(False, "--json", help="Machine-readable JSON output.")


def _dispatch(command: str, **options: object) -> None:
    """Import `agentcli.cli.commands.<command>` and run it under the error table."""
    from agentcli.cli.errors import run_guarded

    module = importlib.import_module(f"agentcli.cli.commands.{command}")
    code = run_guarded(module.execute, **options)
    raise typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"agent {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: bool = _option(False, "--version", "-V", callback=_version, is_eager=True,
                                 help="Show the version and exit."),
) -> None:
    """Run an agent loop against any LLM, with tool calling that works. With no command, opens a chat."""
    if ctx.invoked_subcommand is not None:
        return
    import sys

    if not sys.stdin.isatty():  # `agent` in a script or pipe: there is no one to chat with
        typer.echo(ctx.get_help())
        raise typer.Exit(0)
    _dispatch("chat")


@app.command()
def run(
    goal: Optional[str] = _argument(
        None, help="What the agent should do; '-' (or no goal with a pipe) reads it from stdin."),
    profile: Optional[str] = ProfileOpt,
    workspace: Optional[Path] = WorkspaceOpt,
    tier: Optional[str] = _option(
        None, help="Highest tier this run may reach: crawl, walk or run (default: the profile's max_tier). The run "
                   "starts at the profile's start_tier and rises only through an approved tier request."),
    yes: bool = _option(False, "--yes", "-y", help="Approve every checkpoint, tier requests up to the cap "
                                                        "included (same as --approve all)."),
    approve: Optional[str] = _option(
        None, help="Approval policy: ask; edits (pre-approves the walk tier and file changes); all (same as --yes)."),
    json_out: bool = JsonOpt,
    resume: Optional[str] = _option(
        None, "--resume", help="Continue a session by id (any unique prefix); 'last' = this folder's latest.",
        show_default=False),
    continue_: bool = _option(False, "--continue", "-c", help="Continue this workspace's latest session."),
    quiet: bool = _option(False, "--quiet", "-q", help="Print only the final answer."),
    interactive: bool = _option(False, "--interactive", "-i", help="Stay in a chat session afterwards."),
    max_turns: Optional[int] = _option(None, help="Override the profile's max_turns."),
    model: Optional[str] = _option(None, "--model", "-m", help="Override the profile's model id."),
    unsandboxed: bool = _option(
        False, "--dangerously-run-unsandboxed",
        help="With --yes, run shell commands even where the OS sandbox cannot start (with your full permissions).",
    ),
) -> None:
    """Run the agent on GOAL until it answers, or a guard or checkpoint stops it."""
    _dispatch(
        "run", goal=goal, profile=profile, workspace=workspace, tier=tier, yes=yes, approve=approve,
        json_out=json_out, resume=resume, interactive=interactive, max_turns=max_turns, model=model,
        continue_=continue_, quiet=quiet, unsandboxed=unsandboxed,
    )


@app.command()
def chat(
    message: Optional[str] = _argument(None, help="A first message to send (then the chat goes on)."),
    profile: Optional[str] = ProfileOpt,
    workspace: Optional[Path] = WorkspaceOpt,
    tier: Optional[str] = _option(None, help="Starting tier."),
    model: Optional[str] = _option(None, "--model", "-m", help="Override the profile's model id."),
    resume: Optional[str] = _option(
        None, "--resume", help="Open a session by id (any unique prefix); 'last' = this folder's latest.",
        show_default=False),
    continue_: bool = _option(False, "--continue", "-c", help="Open this workspace's latest session."),
) -> None:
    """Open an interactive session (bare `agent` does the same; /model switches model or provider mid-session)."""
    _dispatch("chat", message=message, profile=profile, workspace=workspace, tier=tier, model=model, resume=resume,
              continue_=continue_)


@app.command()
def doctor(
    profile: Optional[str] = ProfileOpt,
    model: Optional[str] = _option(None, "--model", "-m", help="Check a model id instead of a profile."),
    json_out: bool = JsonOpt,
    offline: bool = _option(False, "--offline", help="Skip the endpoint checks."),
    probe: bool = _option(False, "--probe", help="Send one tiny tool-call request and learn what works."),
    forget: bool = _option(False, "--forget", help="Clear learned facts for this model and endpoint."),
) -> None:
    """Show the parsed model, its capabilities, the wire plan and endpoint health."""
    _dispatch("doctor", profile=profile, model=model, json_out=json_out, offline=offline, probe=probe, forget=forget)


@app.command()
def parse(
    file: Optional[str] = _argument(None, help="A raw response body or assistant text; '-' for stdin."),
    provider: Optional[str] = _option(
        None, help="Response shape: openai, anthropic, ollama, gemini, openai_responses, text."),
    tools: Optional[str] = _option(None, help="Comma-separated tool names that were offered."),
    json_out: bool = JsonOpt,
    jsonl: Optional[str] = _option(None, "--jsonl", help="Batch mode: one request per line; '-' for stdin."),
    debug: bool = _option(False, "--debug", help="Also report parser failures that were caught (stderr)."),
    model: Optional[str] = _option(None, "--model", "-m", help="Read calls as a run with this model would."),
) -> None:
    """Show the tool calls, text and repairs agentcli finds in a model's output."""
    _dispatch("parse", file=file, provider=provider, tools=tools, json_out=json_out, jsonl=jsonl, debug=debug,
              model=model)


@app.command()
def tools(
    profile: Optional[str] = ProfileOpt,
    tier: Optional[str] = _option(None, help="Show what is visible at this tier."),
    json_out: bool = JsonOpt,
) -> None:
    """List the built-in tools by tier, and the profile's MCP tools with server, tier and state."""
    _dispatch("tools", profile=profile, tier=tier, json_out=json_out)


@app.command()
def sessions(
    json_out: bool = JsonOpt,
    all_: bool = _option(False, "--all", "-a", help="Every workspace, not only this one."),
    workspace: Optional[Path] = WorkspaceOpt,
) -> None:
    """List this workspace's saved sessions, newest first (continue with `agent run -c` or `--resume ID`)."""
    _dispatch("sessions", json_out=json_out, all_=all_, workspace=workspace)


SessionArg = _argument(None, help="Session id (any unique prefix); default: this workspace's latest.")


@app.command()
def diff(
    session: Optional[str] = SessionArg,
    workspace: Optional[Path] = WorkspaceOpt,
    last: bool = _option(False, "--last", help="Only the last request's changes."),
    files: bool = _option(False, "--files", help="Only the changed paths, one a line (A/M/D/?)."),
) -> None:
    """Show every file change a session made, as a unified diff (default: this folder's latest change)."""
    _dispatch("diff", session=session, workspace=workspace, last=last, files=files)


@app.command()
def undo(
    session: Optional[str] = SessionArg,
    workspace: Optional[Path] = WorkspaceOpt,
    list_: bool = _option(False, "--list", "-l", help="List the points to go back to, newest (1) first."),
    to: Optional[int] = _option(None, "--to", help="Go back to before point N of --list."),
) -> None:
    """Undo this folder's latest change (across sessions), or go back to a point; drops those requests."""
    _dispatch("undo", session=session, workspace=workspace, list_=list_, to=to)


@app.command()
def trust(
    target: Optional[Path] = _argument(None, help="A profile file to trust by its content, or a folder."),
    workspace: Optional[Path] = WorkspaceOpt,
    revoke: bool = _option(False, "--revoke", help="Withdraw trust."),
) -> None:
    """Trust this workspace's .agent/ profiles, or one profile FILE (they may then set URLs, keys, tiers, servers)."""
    _dispatch("trust", workspace=workspace, revoke=revoke, target=target)


@app.command(name="eval")
def eval_(
    profile: Optional[list[str]] = _option(None, "--profile", "-p", help="Profiles to evaluate (repeatable)."),
    scenarios: str = _option("all", help="Comma-separated scenario names, or 'all'."),
    trials: Optional[int] = _option(None, help="Trials per scenario (default 1; 3 with --layers all)."),
    jobs: int = _option(1, help="Parallel workers."),
    json_out: bool = JsonOpt,
    live: bool = _option(False, "--live", help="Use the real endpoints of the profiles (needs keys)."),
    matrix: bool = _option(False, "--matrix", help="Show the family x dialect x provider matrix."),
    layers: Optional[str] = _option(None, help="Layer variants: all (each layer off on its own), or on,off (the default) and layer names (repair,names,coercion,messages,fallback,repeat_guard)."),
) -> None:
    """Measure tool-calling reliability over scripted (or live) scenarios, and what each layer contributes."""
    _dispatch("eval", profiles=profile or [], scenarios=scenarios, trials=trials, jobs=jobs, json_out=json_out, live=live, matrix=matrix, layers=layers)


@profiles_app.command("list")
def profiles_list(json_out: bool = JsonOpt) -> None:
    """List every profile that can be found, and where."""
    _dispatch("profiles", action="list", json_out=json_out)


@profiles_app.command("show")
def profiles_show(name: str, json_out: bool = JsonOpt) -> None:
    """Show a profile's resolved values and where each came from."""
    _dispatch("profiles", action="show", name=name, json_out=json_out)


@profiles_app.command("new")
def profiles_new(
    name: str,
    provider: str = _option(..., help="openai, anthropic, ollama, gemini, openrouter or scripted."),
    model: str = _option(..., help="Model id as the provider names it."),
    url: Optional[str] = _option(None, help="Base URL (default: the provider's)."),
    api_key_env: Optional[str] = _option(None, help="Environment variable that holds the key."),
    force: bool = _option(False, "--force", help="Overwrite an existing file."),
) -> None:
    """Write a new profile into the user config dir."""
    _dispatch("profiles", action="new", name=name, provider=provider, model=model, url=url, api_key_env=api_key_env, force=force)


@mcp_app.command("list")
def mcp_list(json_out: bool = JsonOpt) -> None:
    """List the shared MCP servers."""
    _dispatch("mcp", action="list", json_out=json_out)


@mcp_app.command("add")
def mcp_add(
    name: str,
    command: Optional[list[str]] = _argument(None, help="Program and arguments (after --) for a stdio server."),
    url: Optional[str] = _option(None, help="Streamable HTTP endpoint instead of a command."),
    env: Optional[list[str]] = _option(None, help="NAME=VALUE for the server (repeatable; no secrets)."),
    env_from: Optional[list[str]] = _option(None, help="Pass this variable through by name (repeatable)."),
    cwd: Optional[str] = _option(None, help="Working directory (relative to the workspace)."),
    tier: Optional[str] = _option(None, help="Tier for all its tools: crawl, walk or run."),
    startup_timeout: Optional[float] = _option(None, help="Seconds to wait for it to start."),
    tool_timeout: Optional[float] = _option(None, help="Seconds to wait for one tool call."),
    force: bool = _option(False, "--force", help="Replace a server of the same name."),
    enable: Optional[list[str]] = _option(
        None, "--enable", help="Enable it in this profile (repeatable; a shipped profile is copied to your profiles dir first).",
        autocompletion=_complete_profile),
    all_: bool = _option(False, "--all", help="Enable it in every profile of yours and in the default profile."),
) -> None:
    """Add a shared MCP server: agent mcp add NAME [--enable PROFILE | --all] -- COMMAND [ARGS...], or --url URL."""
    _dispatch("mcp", action="add", name=name, argv=command or [], url=url, env=env or [], env_from=env_from or [],
              cwd=cwd, tier=tier, startup_timeout=startup_timeout, tool_timeout=tool_timeout, force=force,
              enable=enable or [], all_=all_)


@mcp_app.command("remove")
def mcp_remove(
    name: str,
    keep_profiles: bool = _option(
        False, "--keep-profiles", help="Leave the profiles that name it alone (they fail to load until edited)."),
) -> None:
    """Remove a shared MCP server, and drop it from the mcp lists of your profiles that name it."""
    _dispatch("mcp", action="remove", name=name, keep_profiles=keep_profiles)


def _names(info: typer.models.CommandInfo) -> str:
    return info.name or typer.main.get_command_name(info.callback.__name__ if info.callback else "")


def _no_parameters() -> None:
    pass  # (no docstring: the summary's help is its command's)


def listing(typer_app: typer.Typer) -> typer.Typer:
    """`typer_app` as its help page needs it: every command and group under its name, with its help
    text and flags, and no parameters. The page lists each command by name and first line of help;
    typer would otherwise build every parameter of every command (most of `agent --help`'s own cost)
    to print none of them. The root's own options (its callback, completion) are kept."""
    import copy

    def summary(info: typer.models.CommandInfo) -> typer.models.CommandInfo:
        short = copy.copy(info)
        short.name = _names(info)
        if short.help is None and info.callback is not None:
            short.help = info.callback.__doc__
        short.callback = _no_parameters
        return short

    def group(info: typer.models.TyperInfo) -> typer.models.TyperInfo:
        short = copy.copy(info)
        if info.typer_instance is not None:
            short.typer_instance = listing(info.typer_instance)
        return short

    slim = copy.copy(typer_app)
    slim.registered_commands = [summary(c) for c in typer_app.registered_commands]
    slim.registered_groups = [group(g) for g in typer_app.registered_groups]
    return slim


def app_for(argv: list[str], environ: dict[str, str] | None = None) -> typer.Typer:
    """The app to run for `argv`. Typer builds a click command, with every parameter, for each
    command it holds, on every start; only the one that runs matters. When the first argument
    names a command, the app with that command alone (with --version first, no command at all).
    A start that runs no command (bare `agent`, which opens the chat or, in a pipe, prints the
    help page; `agent --help` alone) gets the `listing` of the whole app, which reads the same.
    Anything else (root options, an unknown name, shell completion) gets the whole app, so every
    suggestion stays as it was."""
    import os

    env = os.environ if environ is None else environ
    if any(k.endswith("_COMPLETE") for k in env):
        return app
    if argv[1:] in ([], ["--help"], ["-h"]):
        return listing(app)
    name = argv[1]
    if name in ("--version", "-V"):  # eager: answered before any command is looked up
        commands, groups = [], []
    else:
        commands = [c for c in app.registered_commands if _names(c) == name]
        groups = [g for g in app.registered_groups if g.name == name]
        if len(commands) + len(groups) != 1:
            return app
    import copy

    slim = copy.copy(app)
    slim.registered_commands, slim.registered_groups = commands, groups
    # --install-completion and --show-completion are the root's options, read before a command's
    # name: after one they are that command's unknown options either way, so they go unbuilt.
    slim._add_completion = slim._add_completion and not (commands or groups)
    return slim
