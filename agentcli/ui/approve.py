"""Checkpoints in the terminal: show exactly what will run, then ask."""

from __future__ import annotations

import json
import signal
import sys
import threading

from agentcli.agent.approval import Decision
from agentcli.core.events import Checkpoint, CheckpointKind
from agentcli.ui.escape import visible
from agentcli.ui.render import make_console

_KEYS = {
    "yes": ("y", "yes"), "no": ("n", "no"), "always": ("a", "always for this tool"),
    "edit": ("e", "edit the arguments"), "abort": ("q", "abort the run"), "retry": ("r", "retry"),
    "skip": ("s", "skip"), "guidance": ("g", "give guidance"),
}


def _ask_stderr(prompt: str) -> str:
    """Prompt on stderr (stdout may be JSON lines or a pipe), read a line from stdin.

    While the event loop waits here, Python's asyncio runner would swallow the first Ctrl-C
    (it cancels the task, which cannot run until input returns). So Ctrl-C raises here at once."""
    sys.stderr.write(prompt)
    sys.stderr.flush()
    if threading.current_thread() is not threading.main_thread():
        line = sys.stdin.readline()
    else:
        previous = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            line = sys.stdin.readline()
        finally:
            signal.signal(signal.SIGINT, previous)
    if not line:
        raise EOFError
    return line.rstrip("\n")


class TerminalApprover:
    """Asks on the controlling terminal; prompts go to stderr, never between stdout's lines.
    Ctrl-C at a prompt aborts the run (exit 3)."""

    def __init__(self, input_fn=_ask_stderr) -> None:  # type: ignore[no-untyped-def]
        self.console = make_console(stderr=True)
        self.input = input_fn

    async def decide(self, cp: Checkpoint) -> Decision:
        try:
            return self._decide(cp)
        except KeyboardInterrupt:
            self.console.print()
            return Decision("abort", text="interrupted at the approval prompt (Ctrl-C)")

    def _decide(self, cp: Checkpoint) -> Decision:
        c = self.console
        c.print()
        c.rule(f"[bold yellow]checkpoint: {cp.kind.value.replace('_', ' ')}[/]", style="yellow")
        c.print(visible(cp.message), markup=False)
        if cp.call is not None:
            args = json.dumps(cp.call.arguments, ensure_ascii=False, indent=2)
            c.print(f"[bold]{visible(cp.call.name)}[/] ", end="")
            c.print(visible(args), markup=False)
        if cp.preview:
            from rich.syntax import Syntax

            is_diff = cp.preview.startswith(("---", "@@", "diff"))
            c.print(Syntax(visible(cp.preview), "diff" if is_diff else "bash", theme="ansi_dark", word_wrap=True))
        if cp.kind is CheckpointKind.ASK_USER:
            answer = self._ask("your answer (empty to abort): ")
            return Decision("guidance", text=answer) if answer.strip() else Decision("abort")
        options = [o for o in cp.options if o in _KEYS] or ["yes", "no", "abort"]
        menu = "  ".join(f"[bold]{_KEYS[o][0]}[/] {_KEYS[o][1]}" for o in options)
        while True:
            c.print(menu)
            key = self._ask("> ").strip().lower()
            chosen = next((o for o in options if key in (_KEYS[o][0], o)), None)
            if chosen is None:
                c.print("[red]please choose one of the letters above[/]")
                continue
            if chosen == "edit":
                raw = self._ask("new arguments as JSON: ")
                try:
                    new = json.loads(raw)
                    if not isinstance(new, dict):
                        raise ValueError("not an object")
                except ValueError as exc:
                    c.print(f"[red]not a JSON object ({exc}); try again[/]")
                    continue
                c.print("will run: " + visible(json.dumps(new, ensure_ascii=False)), markup=False)
                return Decision("edit", arguments=new)
            if chosen == "guidance":
                return Decision("guidance", text=self._ask("guidance for the model: "))
            return Decision(chosen)  # type: ignore[arg-type]

    def _ask(self, prompt: str) -> str:
        try:
            return self.input(prompt)
        except EOFError:
            return ""
