"""The interactive session on prompt-toolkit: each line runs the same loop as `agent run`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from agentcli.core import aio
from agentcli.ui.render import TerminalRenderer, make_console
from agentcli.ui.slash import COMMANDS, Repl, dispatch

if TYPE_CHECKING:
    import httpx
    from prompt_toolkit.completion import CompleteEvent, Completer, Completion
    from prompt_toolkit.document import Document
    from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

    from agentcli.agent.approval import Approver
    from agentcli.agent.session import Session


def _completer(session: Session) -> Completer:
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


def run_repl(session: Session, approver: Approver, *, transport: httpx.AsyncBaseTransport | None = None, header: bool = True,
             first: str | None = None) -> int:
    """The chat: `header` off when `run -i` already printed it; `first` is sent as the first line.
    Returns the exit code: 0, or 128 + the signal that ended it (SIGTERM, SIGHUP)."""
    from rich.text import Text

    from agentcli.ui.header import facts, print_header
    from agentcli.ui.progress import stop_active
    from agentcli.ui.signals import Terminated, ending_signals, exit_code

    chat = _Chat(session, approver, transport)
    if header:
        print_header(chat.console, facts(session, resumed=bool(session.history)))  # profile, model, tier...
    chat.console.print(Text("/help for commands · Ctrl-D to exit", style="dim"))
    code = 0
    try:
        with ending_signals():
            chat.lines(first)
    except Terminated as exc:
        stop_active()
        code = exit_code(exc)
        with contextlib.suppress(OSError):  # a closed terminal (SIGHUP) cannot take the message
            chat.console.print(Text(f"\nagent: ended by {exc}; the transcript is saved. "
                                    f"Continue with: agent chat --resume {session.id}", style="yellow"))
    finally:
        chat.close(interrupted=bool(code))
    return code


class _Chat:
    """One chat's prompt, loop and current turn; `lines()` reads until Ctrl-D or /exit."""

    def __init__(self, session: Session, approver: Approver, transport: httpx.AsyncBaseTransport | None) -> None:
        from prompt_toolkit import PromptSession
        from prompt_toolkit.history import FileHistory

        from agentcli.config.paths import data_dir, private_file

        self.session, self.approver = session, approver
        self.console = make_console(stderr=True)
        hist = private_file(data_dir() / "history")  # what you typed may hold secrets: 0600
        self.prompt: PromptSession[str] = PromptSession(
            history=FileHistory(str(hist)), completer=_completer(session), key_bindings=_key_bindings(),
            complete_while_typing=False)
        self.state = Repl(session, self.console, transport)
        self.loop = aio.loop()  # the process's loop: after `run -i` it still holds the run's client and servers
        self.task: asyncio.Task[None] | None = None

    async def turn(self, line: str) -> None:
        from agentcli.agent.loop import Agent

        render = TerminalRenderer()
        try:
            async with contextlib.aclosing(Agent(self.session, self.approver).run(line)) as events:  # closed even when cancelled
                async for event in events:
                    render(event)
        finally:
            render.close()  # a cancelled turn's spinner must not keep drawing over the prompt

    def lines(self, first: str | None) -> None:
        from agentcli.ui.progress import stop_active
        from agentcli.ui.signals import Terminated

        pending = first
        while self.state.running:
            stop_active()
            if pending is not None:
                line, pending = pending, None
            else:
                try:
                    line = self.prompt.prompt(f"{self.session.profile.model}> ")
                except Terminated:
                    raise
                except KeyboardInterrupt:
                    continue
                except EOFError:
                    break
            if line.strip():
                self.one(line)

    def one(self, line: str) -> None:
        """A slash command, or a turn of the loop (Ctrl-C cancels the turn, not the chat)."""
        from agentcli.ui.progress import stop_active
        from agentcli.ui.signals import Terminated

        if line.startswith("/"):
            dispatch(self.state, line.strip())
            for old in self.session.pending_close:
                self.loop.run_until_complete(old.aclose())
            self.session.pending_close.clear()
            return
        self.task = task = self.loop.create_task(self.turn(line))
        try:
            self.loop.run_until_complete(task)
        except Terminated:
            raise
        except KeyboardInterrupt:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
                self.loop.run_until_complete(task)
            stop_active()
            self.console.print("\nturn cancelled", style="yellow")

    def close(self, *, interrupted: bool) -> None:
        """Stop the spinner and a turn a signal cut short, then the provider and MCP servers, then the loop."""
        from agentcli.ui.progress import stop_active

        stop_active()
        s, loop = self.session, self.loop
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, KeyboardInterrupt):
                loop.run_until_complete(self.task)
        loop.run_until_complete(s.aclose())
        aio.close()  # cancels what cancelled turns left behind, as asyncio.run does on exit
        if interrupted and not s.ended:
            from agentcli.core.events import StopReason

            s.end(StopReason.INTERRUPTED, "interrupted")
        if s.transcript:
            s.transcript.close()
