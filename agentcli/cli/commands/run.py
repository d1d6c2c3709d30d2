"""`agent run`: one goal through the loop, rendered live; `--continue`/`--resume` continue a session."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.cli.profile_load import load, load_routed  # noqa: F401  (chat imports load from here)
from agentcli.core.errors import UsageError
from agentcli.core.events import StopReason

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentcli.agent.approval import Approver
    from agentcli.agent.session import Session
    from agentcli.agent.store import SavedSession
    from agentcli.core.events import Done

    Render = Callable[[object], None]  # a renderer: takes every event the run emits

APPROVE_MODES = ("ask", "edits", "all")
MAX_GOAL_BYTES = 1 << 20  # a goal read from stdin; more is a mistake (a file piped by accident)


def choose_approver(yes: bool, approve: str | None, unsandboxed: bool = False) -> tuple[Approver, str]:
    from agentcli.agent.approval import PolicyApprover

    mode = "all" if yes else (approve or "ask")
    if mode not in APPROVE_MODES:
        raise UsageError(f"--approve {mode!r} is not one of {', '.join(APPROVE_MODES)}")
    if unsandboxed and mode != "all":
        raise UsageError("--dangerously-run-unsandboxed only changes what --yes approves",
                         hint="add --yes, or leave the flag out and approve each command yourself")
    if mode == "all":
        return PolicyApprover(approve_all=True, allow_uncontained=unsandboxed), mode
    if sys.stdin.isatty():
        from agentcli.ui.approve import TerminalApprover

        return TerminalApprover(), mode
    return PolicyApprover(approve_all=False), mode


MAX_PIPED_BYTES = 200_000  # piped material sent with a goal; more is cut, and both sides are told


def _stdin_is_data() -> bool:
    """True when stdin is a pipe or a file someone gave us, not a terminal or an inherited socket or
    device (reading those could wait forever, or eat a terminal's keys)."""
    import os
    import stat

    if sys.stdin is None or sys.stdin.isatty():
        return False
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):  # no real file behind it (an embedding program's stream)
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISREG(mode)


def attach_piped(goal: str, data: str, size: int) -> str:
    """The goal first, then the piped text as a fenced block (a fence longer than any backtick run
    inside, so the text cannot close it), with a note when it was cut."""
    import re

    longest = max((len(m) for m in re.findall(r"`+", data)), default=0)
    fence = "`" * max(3, longest + 1)
    note = "" if size <= MAX_PIPED_BYTES else (
        f"\n[only the first {MAX_PIPED_BYTES} of {size} bytes were given; the rest was cut]")
    return f"{goal}\n\n{fence}\n{data.rstrip(chr(10))}\n{fence}{note}"


COUNT_LIMIT = 64 << 20  # past this, a pipe is not read further (`yes | agent run ...` must end)


def _drain(stream: Any) -> int:
    """Bytes left on `stream` (read and dropped in chunks, never held), up to COUNT_LIMIT: the size
    the warning quotes, and the writer is not left blocked on a full pipe."""
    total = 0
    while total < COUNT_LIMIT:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        total += len(chunk)
    return total


def _piped(goal: str) -> str:
    """`cat f.py | agent run "summarise this"`: the goal, then what came down the pipe."""
    raw = sys.stdin.buffer.read(MAX_PIPED_BYTES + 1) if hasattr(sys.stdin, "buffer") else \
        sys.stdin.read(MAX_PIPED_BYTES + 1).encode("utf-8", "surrogateescape")
    if not raw.strip():
        return goal
    size = len(raw)
    if size > MAX_PIPED_BYTES:
        size += _drain(sys.stdin.buffer) if hasattr(sys.stdin, "buffer") else 0
        raw = raw[:MAX_PIPED_BYTES]
        sys.stderr.write(f"agent: warning: piped input is {size} bytes; only the first {MAX_PIPED_BYTES} "
                         "are sent with the goal (put long material in a file and name it)\n")
    if b"\x00" in raw:
        raise UsageError("the piped input looks binary (it holds NUL bytes)",
                         hint="pipe text, or put the file in the workspace and name it in the goal")
    return attach_piped(goal, raw.decode("utf-8", "replace"), size)


def read_goal(goal: str | None, continuing: bool) -> str | None:
    """`-` reads the goal from stdin; so does no goal at all when stdin is a pipe (not when continuing).
    A goal given with a pipe gets the piped text appended."""
    if goal and goal != "-":
        return _piped(goal) if _stdin_is_data() else goal
    if goal != "-" and (continuing or sys.stdin.isatty()):
        return goal
    data = sys.stdin.read(MAX_GOAL_BYTES + 1)
    if len(data.encode("utf-8", "surrogateescape")) > MAX_GOAL_BYTES:
        raise UsageError(f"the goal read from stdin is over {MAX_GOAL_BYTES} bytes",
                         hint="put long material in a file in the workspace and name it in the goal")
    if not data.strip():
        raise UsageError("no goal given (stdin was empty)", hint='echo "what you want done" | agent run -')
    return data.strip()


async def drive(session: Session, approver: Approver, goal: str | None, render: Render, *,
                keep_open: bool = False) -> Done | None:
    """Run one exchange; returns the Done event. With `keep_open` the HTTP client and MCP servers
    stay up on the process's loop for the chat that follows (`run -i`)."""
    from agentcli.agent.loop import Agent
    from agentcli.core.events import Done

    done = None
    try:
        async with contextlib.aclosing(Agent(session, approver).run(goal)) as events:  # closed here, even on error
            async for event in events:
                render(event)
                if isinstance(event, Done):
                    done = event
    finally:
        if not keep_open:
            await session.aclose()  # the HTTP client and MCP servers live on this event loop: closed with it
    return done


def _on_loop(coro: Any) -> Any:
    """Run `coro` on the process's event loop, loaded here: after the header is on the screen."""
    from agentcli.core.heap import paused, settle

    with paused():
        from agentcli.core import aio
    settle()  # the event loop's modules
    return aio.run(coro)


class NothingToDo(UsageError):
    """`agent run -c` without a goal on a conversation that already has its answer (exit 2)."""

    def __init__(self, session_id: str, why: str = "already ended with an answer") -> None:
        super().__init__(f"nothing to do: session {session_id} {why}, and no new goal was given",
                         hint=f'agent run -c "what next"  (or open it: agent chat --resume {session_id})')


def _interrupted(session: Session, exc: BaseException) -> int:
    """Ctrl-C, SIGTERM or SIGHUP during a run: the spinner gone, the session ended and saved (the
    loop's own clean-up may have been cut short), how to resume said; 128 + the signal."""
    from agentcli.ui.progress import stop_active
    from agentcli.ui.signals import exit_code

    stop_active()  # no spinner frame left on the line
    if not session.ended:
        session.end(StopReason.INTERRUPTED, "interrupted")
    if session.transcript:
        session.transcript.close()
    why = "interrupted" if exit_code(exc) == 130 else f"ended by {exc}"
    with contextlib.suppress(OSError):  # after SIGHUP the terminal may be gone
        sys.stderr.write(f"\nagent: {why}; the transcript is saved. Continue with: agent run --resume {session.id}\n")
    return exit_code(exc)


def finished(saved: SavedSession) -> bool:
    """True when the conversation ends with the model's answer: continuing it without a new goal
    would only ask the model to answer again (a second, billed turn). A run cut short (last a user
    line or tool results, or stopped before its first request while its goal is saved) is not
    finished, and `--resume` picks it up."""
    from agentcli.core.types import Role

    history = saved.history
    if not history:
        return not saved.meta.get("goal")
    last = history[-1]
    return last.role is Role.ASSISTANT and not last.tool_calls


def _renderer(json_out: bool, quiet: bool) -> Render:
    if json_out and quiet:
        raise UsageError("--json and --quiet both choose the output", hint="use one of them")
    if json_out:
        from agentcli.ui.render import JsonRenderer

        return JsonRenderer()
    if quiet:
        from agentcli.ui.quiet import QuietRenderer

        return QuietRenderer()
    from agentcli.ui.render import TerminalRenderer

    return TerminalRenderer()


def _closed_pipe(session: Session) -> int:
    import os

    if session.transcript:
        session.transcript.close()
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush must not fail again
    os.close(devnull)
    return 141  # 128 + SIGPIPE, as a shell reports a pipeline member the reader left


def _close_answered(session: Session, render: Render) -> int:
    """A run stopped after its answer was saved and before it was closed (killed at the very end):
    resuming it closes it with that answer, asking the model nothing."""
    from agentcli.core.events import Done, StopReason

    answer = session.history[-1].text
    session.end(StopReason.ANSWERED, None, answer)
    render(Done(StopReason.ANSWERED, answer))
    if session.transcript:
        session.transcript.close()
    return 0


def _warn_unsandboxed() -> None:
    from agentcli.ui.render import make_console

    make_console(stderr=True).print("! --dangerously-run-unsandboxed: where the OS sandbox cannot "
                                    "start, shell commands run with your full permissions, unasked", style="bold red")


def _warn_torn(saved: SavedSession | None) -> None:
    """A word about transcript lines a crash tore (skipped when the session was rebuilt)."""
    if saved is not None and saved.skipped_lines:
        from agentcli.ui.render import make_console

        make_console(stderr=True).print(f"! skipped {saved.skipped_lines} torn line(s) in the transcript", style="yellow")


def _show_header(render: Render, start: dict[str, Any], quiet: bool) -> None:
    """The run's header (only its warning when quiet), drawn with collection paused, then settled."""
    from agentcli.core.events import SessionStarted
    from agentcli.core.heap import paused, settle

    with paused():
        if not quiet:
            render(SessionStarted(start))
        elif start["warning"]:
            sys.stderr.write(f"agent: warning: {start['warning']}\n")
    settle()  # the header's console


def execute(
    goal: str | None = None, profile: str | None = None, workspace: Path | None = None, tier: str | None = None,
    yes: bool = False, approve: str | None = None, json_out: bool = False, resume: str | None = None,
    interactive: bool = False, max_turns: int | None = None, model: str | None = None, unsandboxed: bool = False,
    continue_: bool = False, quiet: bool = False,
) -> int:
    from agentcli.core.heap import paused, settle

    # Start-up keeps what it allocates (modules, the profile, the session): no collection while it
    # loads each stage, and each is settled out of the collector's walks; the loop collects as usual.
    settle()  # the command line's modules
    with paused():
        from agentcli.agent.build import open_session
        from agentcli.cli.errors import EXIT_CODES
        from agentcli.ui.header import facts
        from agentcli.ui.progress import stop_active
        from agentcli.ui.signals import ending_signals

    render = _renderer(json_out, quiet)
    continuing = bool(resume or continue_)
    goal = read_goal(goal, continuing)
    chat_after = interactive and sys.stdin.isatty()
    approver, mode = choose_approver(yes, approve, unsandboxed)
    if unsandboxed:
        _warn_unsandboxed()
    saved = None
    if continuing:  # a new session (the usual run) never loads the resume machinery
        from agentcli.agent.resume import ResumeRequest, carried

        request = ResumeRequest.of(resume, continue_)
        saved = request.load(workspace) if request is not None else None
    if saved is not None:
        profile, workspace, model = carried(saved, profile, workspace, model)  # -m etc. still win
        if (not goal and finished(saved) and saved.end is not None
                and not (sys.stdin.isatty() and not json_out and not quiet)):
            raise NothingToDo(saved.id)
        if not goal and not saved.history and not saved.meta.get("goal"):  # killed before its first record
            raise NothingToDo(saved.id, "was stopped before it began")
    elif not goal:
        raise UsageError("no goal given", hint='agent run "what you want done" --profile NAME')
    with paused():
        prof, rule = load_routed(profile, workspace, model, max_turns)
        # --tier is the cap; the run starts at the profile's start_tier (a resumed one where it had
        # got to) and rises through the tier checkpoint, unasked up to what --approve edits (walk)
        # or --yes / --approve all (the cap) grant.
        session = open_session(prof, workspace, cap=tier, goal=goal or None, approve_mode=mode,
                               interactive=sys.stdin.isatty() and not yes, resume=saved)
        _warn_torn(saved)
        start = facts(session, resumed=saved is not None)
    settle()  # the profile, its models and the session
    start["provider_rule"] = rule
    if saved is not None and not goal and finished(saved) and saved.end is None:
        return _close_answered(session, render)
    if saved is not None and not goal and finished(saved):
        # `agent run -c` in a terminal on a conversation that has its answer: open it, ask nothing.
        from agentcli.ui.repl import run_repl

        return run_repl(session, approver)
    _show_header(render, start, quiet)
    try:
        with ending_signals():
            done = _on_loop(drive(session, approver, goal, render, keep_open=chat_after))
    except BrokenPipeError:  # `agent run --json | head -1`: the reader left; end quietly
        return _closed_pipe(session)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM / SIGHUP (ui.signals)
        return _interrupted(session, exc)
    finally:
        stop_active()
    code = EXIT_CODES.get(done.stop, 1) if done else 1
    if chat_after:
        from agentcli.ui.repl import run_repl

        # Same process, same loop: the chat goes on with the run's HTTP client and MCP servers;
        # the header is already on the screen.
        return run_repl(session, approver, header=False)
    if session.transcript:
        session.transcript.close()
    settle()  # the process ends here: what is left is freed on exit, not walked by a last collection
    return code
