"""The interactive session on prompt-toolkit: each line runs the same loop as `agent run`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from agentcli.core import aio
from agentcli.ui.render import TerminalRenderer, make_console
from agentcli.ui.slash import COMMANDS, Repl, dispatch

if TYPE_CHECKING:
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def _completer(session: Any) -> Completer:
    from prompt_toolkit.completion import Completer, Completion

    class SlashCompleter(Completer):
        """Slash commands, then profile names / known model ids / tiers as their argument."""

        def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterator[Completion]:
            text = document.text_before_cursor
            if not text.startswith("/"):
                return
            if " " not in text:
                for name in COMMANDS:
                    if name.startswith(text[1:]):
                        yield Completion("/" + name, start_position=-len(text))
                return
            cmd, _, arg = text[1:].partition(" ")
            for cand in _arguments(cmd):
                if cand.startswith(arg):
                    yield Completion(cand, start_position=-len(arg))

    return SlashCompleter()


def _arguments(cmd: str) -> list[str]:
    if cmd == "tier":
        return ["crawl", "walk", "run"]
    if cmd in ("model", "profile"):
        from agentcli.config import list_profiles

        names = [p.name for p in list_profiles()]
        if cmd == "model":
            from agentcli.models import known_model_ids

            names += known_model_ids()
        return names
    return []


def _key_bindings() -> KeyBindings:
    from prompt_toolkit.key_binding import KeyBindings

    kb = KeyBindings()

    @kb.add("escape", "enter")
    def _newline(event: KeyPressEvent) -> None:
        event.current_buffer.insert_text("\n")

    return kb


def run_repl(session: Any, approver: Any, *, transport: Any = None, header: bool = True,
             first: str | None = None) -> int:
    """The chat: `header` off when `run -i` already printed it; `first` is sent as the first line.
    Returns the exit code: 0, or 128 + the signal that ended it (SIGTERM, SIGHUP)."""
    from prompt_toolkit import PromptSession
    from prompt_toolkit.history import FileHistory

    from agentcli.agent.loop import Agent
    from agentcli.config.paths import data_dir, private_file
    from agentcli.ui.progress import stop_active
    from agentcli.ui.signals import Terminated, ending_signals, exit_code

    console = make_console(stderr=True)
    hist = private_file(data_dir() / "history")  # what you typed may hold secrets: 0600
    prompt: PromptSession[str] = PromptSession(history=FileHistory(str(hist)), completer=_completer(session),
                           key_bindings=_key_bindings(), complete_while_typing=False)
    state = Repl(session, console, transport)
    loop = aio.loop()  # the process's loop: after `run -i` it still holds the run's client and servers
    from rich.text import Text

    from agentcli.ui.header import facts, print_header

    if header:
        print_header(console, facts(session, resumed=bool(session.history)))  # profile, model, tier, workspace...
    console.print(Text("/help for commands · Ctrl-D to exit", style="dim"))

    async def turn(line: str) -> None:
        render = TerminalRenderer()
        try:
            async with contextlib.aclosing(Agent(session, approver).run(line)) as events:  # closed even when cancelled
                async for event in events:
                    render(event)
        finally:
            render.close()  # a cancelled turn's spinner must not keep drawing over the prompt

    code = 0
    pending = first
    task: asyncio.Task[None] | None = None
    try:
        with ending_signals():
            while state.running:
                stop_active()
                if pending is not None:
                    line, pending = pending, None
                else:
                    try:
                        line = prompt.prompt(f"{session.profile.model}> ")
                    except Terminated:
                        raise
                    except KeyboardInterrupt:
                        continue
                    except EOFError:
                        break
                if not line.strip():
                    continue
                if line.startswith("/"):
                    dispatch(state, line.strip())
                    for old in session.pending_close:
                        loop.run_until_complete(old.aclose())
                    session.pending_close.clear()
                    continue
                task = loop.create_task(turn(line))
                try:
                    loop.run_until_complete(task)
                except Terminated:
                    raise
                except KeyboardInterrupt:
                    task.cancel()
                    try:
                        loop.run_until_complete(task)
                    except (asyncio.CancelledError, KeyboardInterrupt):
                        pass
                    stop_active()
                    console.print("\nturn cancelled", style="yellow")
    except Terminated as exc:
        stop_active()
        code = exit_code(exc)
        with contextlib.suppress(OSError):  # a closed terminal (SIGHUP) cannot take the message
            console.print(Text(f"\nagent: ended by {exc}; the transcript is saved. "
                               f"Continue with: agent chat --resume {session.id}", style="yellow"))
    finally:
        stop_active()
        if task is not None and not task.done():  # a turn a signal cut short: cancel it, let it clean up
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
                loop.run_until_complete(task)
        loop.run_until_complete(session.provider.aclose())
        loop.run_until_complete(session.close_tool_sources())
        aio.close()  # cancels what cancelled turns left behind, as asyncio.run does on exit
        if not session.ended and code:
            from agentcli.core.events import StopReason

            session.end(StopReason.INTERRUPTED, "interrupted")
        if session.transcript:
            session.transcript.close()
    return code
