"""`-q/--quiet`: nothing while the run works; the final answer alone on stdout at the end
(the reason on stderr when the run did not finish), for `$(agent run -q ...)` in scripts."""

from __future__ import annotations

import sys
from typing import Any

from agentcli.core.events import Done
from agentcli.core.redaction import redact


class QuietRenderer:
    def __init__(self, out: Any = None, err: Any = None) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr

    def __call__(self, event: Any) -> None:
        if not isinstance(event, Done):
            return
        if event.answer:
            answer = redact(event.answer)
            if getattr(self.out, "isatty", lambda: False)():
                from agentcli.core.escape import visible

                answer = visible(answer)  # a terminal must not receive the model's escape sequences
            self.out.write(answer if answer.endswith("\n") else answer + "\n")
            self.out.flush()
        if event.error:
            self.err.write(f"agent: {event.stop}: {redact(event.error)}\n")
