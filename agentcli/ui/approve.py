"""Checkpoints in the terminal: show exactly what will run, then ask."""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Callable

from agentcli.agent.approval import Decision
from agentcli.core import jsonsafe
from agentcli.core.escape import styled, visible
from agentcli.core.events import Checkpoint, CheckpointKind
from agentcli.ui.approval_view import Block, blocks_for, render_block, screen_rows
from agentcli.ui.render import make_console

_KEYS = {
    "yes": ("y", "yes"), "no": ("n", "no"), "always": ("a", "always for this tool"),
    "edit": ("e", "edit the arguments"), "abort": ("q", "abort the run"), "retry": ("r", "retry"),
    "skip": ("s", "skip"), "guidance": ("g", "give guidance"), "view": ("v", "view all lines"),
}


def _ask_stderr(prompt: str) -> str:
    """Prompt on stderr (stdout may be JSON lines or a pipe), read a line from stdin.

    While the event loop waits here, Python's asyncio runner would swallow the first Ctrl-C
    (it cancels the task, which cannot run until input returns). So Ctrl-C raises here at once."""
    if threading.current_thread() is not threading.main_thread():
        sys.stderr.write(prompt)
        sys.stderr.flush()
        line = sys.stdin.readline()
    else:
        # The handler goes in before the prompt is shown: a Ctrl-C that came between the two went to
        # the runner, which only cancels the task, and the read below waited for a key forever.
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            sys.stderr.write(prompt)
            sys.stderr.flush()
            line = sys.stdin.readline()
        finally:
            signal.signal(signal.SIGINT, previous)
    if not line:
        raise EOFError
    return line.rstrip("\n")


def _key_stderr(prompt: str) -> str:
    """One key press, no Enter: the terminal goes to cbreak mode (keys arrive one by one, Ctrl-C
    still interrupts) for the read and back after. Enter and stray newlines are skipped (a person
    used to typing `y` Enter must not answer the next prompt with the Enter). Off a terminal, a line."""
    if not sys.stdin.isatty() or threading.current_thread() is not threading.main_thread():
        return _ask_stderr(prompt)
    try:
        import termios
        import tty
    except ImportError:  # no POSIX terminal control here: a line, as before
        return _ask_stderr(prompt)

    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # before the prompt: see _ask_stderr
    try:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        tty.setcbreak(fd)
        while True:
            key = os.read(fd, 4).decode("utf-8", "replace")
            if not key:
                raise EOFError
            if key == "\x04":
                raise EOFError
            if key in ("\r", "\n"):
                continue
            break
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        signal.signal(signal.SIGINT, previous)
    sys.stderr.write(visible(key[:1], keep_newlines=False) + "\n")
    return key[:1]


class TerminalApprover:
    """Asks on the controlling terminal; prompts go to stderr, never between stdout's lines.
    A menu takes one key; Ctrl-C at any prompt interrupts the run (exit 130), as it does anywhere."""

    def __init__(self, input_fn: Callable[[str], str] = _ask_stderr,
                 key_fn: Callable[[str], str] | None = None) -> None:
        self.console = make_console(stderr=True)
        self.input = input_fn
        # A custom line reader (tests) answers the menu too; the terminal default reads one key.
        self.key = key_fn or (_key_stderr if input_fn is _ask_stderr else input_fn)
        self._summarised = False

    async def decide(self, cp: Checkpoint) -> Decision:
        from agentcli.ui.progress import stop_active

        stop_active()  # no spinner drawn over the question
        try:
            return self._decide(cp)
        except KeyboardInterrupt:
            self.console.print()
            raise  # the run ends as any Ctrl-C ends it: interrupted, resumable, exit 130

    def _decide(self, cp: Checkpoint) -> Decision:
        c = self.console
        c.print()
        c.rule(styled((f"checkpoint: {cp.kind.value.replace('_', ' ')}", "bold yellow")), style="yellow")
        self._show(cp, expanded=False)
        if cp.kind is CheckpointKind.ASK_USER:
            answer = self._ask("your answer (empty to abort): ")
            return Decision("guidance", text=answer) if answer.strip() else Decision("abort")
        options = [o for o in cp.options if o in _KEYS] or ["yes", "no", "abort"]
        if self._summarised:
            options = [*options, "view"]
        menu = styled(*[p for o in options for p in ((_KEYS[o][0], "bold"), f" {_KEYS[o][1]}  ")])
        while True:
            c.print(menu)
            try:
                key = self.key("> ").strip().lower()
            except EOFError:  # Ctrl-D, or the terminal closed: no answer will ever come
                return Decision("abort", text="no answer at the approval prompt (input closed)")
            chosen = next((o for o in options if key in (_KEYS[o][0], o)), None)
            if chosen is None:
                c.print(styled(("please choose one of the letters above", "red")))
                continue
            if chosen == "view":
                self._show(cp, expanded=True)
                continue
            if chosen == "edit":
                raw = self._ask("new arguments as JSON: ")
                try:
                    new = jsonsafe.loads(raw)
                    if not isinstance(new, dict):
                        raise ValueError("not an object")
                except ValueError as exc:
                    c.print(styled(("not a JSON object (", "red"), (str(exc), "red"), ("); try again", "red")))
                    continue
                c.print(styled("will run: ", json.dumps(new, ensure_ascii=False)))
                return Decision("edit", arguments=new)
            if chosen == "guidance":
                return Decision("guidance", text=self._ask("guidance for the model: "))
            return Decision(chosen)  # type: ignore[arg-type]

    def _show(self, cp: Checkpoint, *, expanded: bool) -> None:
        """The message, the call and its preview: every block counted, nothing cut silently."""
        c = self.console
        c.print(styled(cp.message))
        blocks: list[Block] = []
        if cp.call is not None:
            c.print(styled(("tool ", "dim"), (cp.call.name, "bold")))
            blocks = blocks_for(cp.call.arguments, cp.preview)
        elif cp.preview:
            blocks = [Block("preview", cp.preview)]
        rows = screen_rows(c)
        self._summarised = False
        for block in blocks:
            lines = render_block(block, max_rows=rows, expanded=expanded)
            self._summarised |= any("press v to view all" in line.plain for line in lines)
            for line in lines:
                c.print(line)

    def _ask(self, prompt: str) -> str:
        try:
            return self.input(prompt)
        except EOFError:
            return ""
