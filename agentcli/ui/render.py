"""Render agent events for people (rich) or as JSON lines (--json)."""

from __future__ import annotations

import sys
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.escape import short_args, styled, visible
from agentcli.core.events import (
    Checkpoint,
    Done,
    Notice,
    PlanUpdated,
    RetryScheduled,
    SessionStarted,
    StreamEvent,
    StreamKind,
    ToolFinished,
    ToolStarted,
    TurnStarted,
)
from agentcli.core.redaction import StreamScrubber, redact
from agentcli.ui.console import _safe_console_class, make_console  # noqa: F401  (re-exported)
from agentcli.ui.progress import Progress, retry_label, tools_label, waiting_label

# `--json` event names: snake_case, one per event class (stream events use their kind).
JSON_NAMES: dict[type, str] = {
    SessionStarted: "session_start", TurnStarted: "turn_start", ToolStarted: "tool_run", ToolFinished: "tool_result",
    RetryScheduled: "retry", Notice: "notice", Checkpoint: "checkpoint", Done: "done", PlanUpdated: "plan",
}
PLAN_MARKS = {"pending": ("○", "dim"), "in_progress": ("◐", "yellow"), "done": ("●", "green")}
STREAM_NAMES = {StreamKind.DONE: "response_end"}


# Characters str.splitlines() and some JSON-lines readers take as line ends; inside a JSON string
# (the only place they can be) their escapes mean the same: one record stays one line for everyone.
_LINE_BREAKS = {0x85: "\\u0085", 0x2028: "\\u2028", 0x2029: "\\u2029"}


class JsonRenderer:
    """One JSON object per event on stdout: the same events the terminal shows."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = stream or sys.stdout
        self._scrub = {StreamKind.TEXT: StreamScrubber(), StreamKind.THINKING: StreamScrubber()}

    def __call__(self, event: Any) -> None:
        from agentcli.agent.serialize import jsonable

        if isinstance(event, StreamEvent) and event.kind in self._scrub:
            text = self._scrub[event.kind].feed(event.text)
            if not text:
                return
            event = StreamEvent(event.kind, text)
        elif not isinstance(event, StreamEvent) or event.kind is StreamKind.DONE:
            for kind, scrubber in self._scrub.items():  # release held text before anything else
                rest = scrubber.flush()
                if rest:
                    self._write({"event": kind.value, "text": rest})
        if isinstance(event, SessionStarted):
            self._write({"event": "session_start", **jsonable(event.facts)})
            return
        record = {"event": JSON_NAMES.get(type(event), type(event).__name__.lower()), **jsonable(event)}
        if isinstance(event, StreamEvent):
            record["event"] = STREAM_NAMES.get(event.kind, event.kind.value)
            del record["kind"]
        self._write({k: v for k, v in record.items() if v not in (None, "")})

    def _write(self, record: dict[str, Any]) -> None:
        line = redact(jsonsafe.dumps(record, ensure_ascii=False, default=str)).translate(_LINE_BREAKS)
        self.stream.write(line + "\n")
        self.stream.flush()


SUMMARY_LINES = 4  # lines of a tool's result shown under its ✓ line (the first sits on that line)
SUMMARY_CHARS = 100  # each cut to this many characters


def summary_tail(content: str) -> list[str]:
    """The lines after the first of a result, bounded: enough to see what a command printed or
    what a search found, with a count of the rest instead of a wall of output."""
    lines = [redact(line)[:SUMMARY_CHARS] for line in content.strip().splitlines()[1:]]
    if len(lines) <= SUMMARY_LINES:
        return lines
    return [*lines[:SUMMARY_LINES - 1], f"… {len(lines) - SUMMARY_LINES + 1} more lines"]


class TerminalRenderer:
    """Streams text to stdout; tool lines, notices and the summary go to stderr."""

    def __init__(self, verbose: bool = False) -> None:
        self.out = make_console()
        self.err = make_console(stderr=True)
        self.verbose = verbose
        self._mid_line = False
        self._thinking = False
        self._streamed_text = ""
        self._status = Progress(self.err)  # spinner + seconds while waiting; silent when not a terminal
        self._running: dict[str, str] = {}
        self._text_scrub = StreamScrubber()
        self._think_scrub = StreamScrubber()

    def _release(self) -> None:
        """Write out text the scrubbers still hold (end of a turn, or before other output)."""
        rest = self._text_scrub.flush()
        if rest:
            self._write_text(rest)
        rest = self._think_scrub.flush()
        if rest:
            self.err.print(styled((rest, "dim italic")), end="")

    def _write_text(self, text: str) -> None:
        if self._thinking:
            self.err.file.write("\n")
            self._thinking = False
        self.out.file.write(visible(text))
        self.out.file.flush()
        self._streamed_text += text
        self._mid_line = not text.endswith("\n")

    def _newline(self) -> None:
        self._release()
        if self._mid_line:
            self.out.file.write("\n")
            self.out.file.flush()
            self._mid_line = False
        if self._thinking:
            self.err.file.write("\n")
            self._thinking = False

    def _stop_status(self) -> None:
        self._status.stop()

    def close(self) -> None:
        """End of this renderer's output (a finished or cancelled turn): the spinner stops and a
        half-written line is ended, so the next prompt starts clean."""
        self._stop_status()
        self._newline()

    def __call__(self, event: Any) -> None:
        if isinstance(event, StreamEvent):
            if event.kind in (StreamKind.TEXT, StreamKind.THINKING) and event.text:
                self._stop_status()  # text is about to be written: the spinner gives way
            self._stream(event)
        elif isinstance(event, SessionStarted):
            from agentcli.ui.header import print_header

            print_header(self.err, event.facts)
        elif isinstance(event, TurnStarted):
            self._release()
            self._streamed_text = ""
            self._newline()
            self._status.show(waiting_label(visible(event.model, keep_newlines=False)))
        elif isinstance(event, ToolStarted):
            self._newline()
            label = f"{event.call.name} {short_args(event.call.arguments)}"
            self._running[event.call.id] = label
            self._status.show(tools_label(list(self._running.values())))
        elif isinstance(event, ToolFinished):
            self._tool_done(event)
        elif isinstance(event, RetryScheduled):
            self._newline()
            if self._status.enabled:  # a live countdown in a terminal, one line otherwise
                self._status.show(retry_label(visible(event.reason), event.attempt), countdown_s=event.delay_s)
            else:
                self.err.print(styled(("↻ ", "yellow"), (event.reason, "yellow"),
                                      (f", retrying in {event.delay_s:.1f} s (attempt {event.attempt})", "yellow")))
        elif isinstance(event, Notice):
            self._stop_status()
            self._newline()
            style = {"warning": "yellow", "error": "red"}.get(event.level, "dim")
            mark = {"warning": "!", "error": "✗"}.get(event.level, "·")
            self.err.print(styled((f"{mark} ", style), (redact(event.message), style)))
        elif isinstance(event, PlanUpdated):
            self._stop_status()
            self._newline()
            self._plan(event)
        elif isinstance(event, Checkpoint):
            self._newline()
            self._stop_status()
        elif isinstance(event, Done):
            self._done(event)

    def _plan(self, ev: PlanUpdated) -> None:
        """The model's plan as a checklist (its text is untrusted: printed as text, never markup)."""
        done = sum(it.get("status") == "done" for it in ev.items)
        self.err.print(styled(("plan ", "bold"), (f"{done}/{len(ev.items)} done", "dim")))
        for it in ev.items:
            mark, style = PLAN_MARKS.get(it.get("status", ""), ("?", "dim"))
            text_style = "dim" if it.get("status") == "done" else ("bold" if it.get("status") == "in_progress" else "")
            self.err.print(styled(("  " + mark + " ", style), (redact(str(it.get("content", ""))), text_style)))

    def _stream(self, ev: StreamEvent) -> None:
        if ev.kind is StreamKind.TEXT and ev.text:
            text = self._text_scrub.feed(ev.text)
            if text:
                self._write_text(text)
        elif ev.kind is StreamKind.THINKING and ev.text:
            if not self._thinking:
                self._newline()
                self._thinking = True
            text = self._think_scrub.feed(ev.text)
            if text:
                self.err.print(styled((text, "dim italic")), end="")
        elif ev.kind is StreamKind.DONE:
            self._release()

    def _tool_done(self, ev: ToolFinished) -> None:
        label = self._running.pop(ev.call.id, f"{ev.call.name} {short_args(ev.call.arguments)}")
        self._stop_status()
        if self._running:
            self._status.show(tools_label(list(self._running.values())))
        first = (ev.result.content.strip().splitlines() or [""])[0]
        first = redact(first)[:100]
        if ev.result.ok:
            self.err.print(styled(("✓", "green"), " ", (label, "bold"), " ", (first, "dim")))
            for line in summary_tail(ev.result.content):
                self.err.print(styled("  ", (line, "dim")))
        else:
            code = getattr(ev.result.error, "code", None)
            code = getattr(code, "value", "error")
            msg = redact(str(getattr(ev.result.error, "message", first)))[:160]
            self.err.print(styled(("✗", "red"), " ", (label, "bold"), " ", (str(code), "red"), ": ", msg))

    def _done(self, d: Done) -> None:
        self._stop_status()
        self._newline()
        if d.answer and redact(d.answer).strip() != redact(self._streamed_text).strip():
            self.out.print(styled(redact(d.answer)))
        parts = [f"{d.turns} turn{'s' * (d.turns != 1)}", f"{d.tools_run} tool call{'s' * (d.tools_run != 1)}"]
        if d.usage.input_tokens or d.usage.output_tokens:
            parts.append(f"{d.usage.input_tokens}+{d.usage.output_tokens} tokens")
        parts.append(f"{d.elapsed_s:.1f} s")
        color = "green" if d.stop in ("answered", "submitted") else ("red" if d.stop == "error" else "yellow")
        self.err.print(styled((f"■ {d.stop}", color), " ", (f"· {' · '.join(parts)}", "dim")))
        if d.files_changed:
            self.err.print(styled(("files changed: ", "dim"), ", ".join(d.files_changed)))
        if d.hook_files:
            self.err.print(styled(("git runs these changed files (hooks, config) on your next git command; read them first: ", "yellow"),
                                  ", ".join(visible(p) for p in d.hook_files)))
        for line in d.background:
            self.err.print(styled(("background ", "dim"), line, (" · stopped when the session ends", "dim")))
        if d.error:
            self.err.print(styled((redact(d.error), color)))
