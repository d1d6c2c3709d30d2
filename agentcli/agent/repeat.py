"""Stuck detection (seed 001 §5.3), with thresholds like the most-used stuck detector's.

Triggers: 4 identical call+result pairs; 3 identical calls that each errored;
an A-B-A-B-A-B alternation of calls; 3 identical assistant messages.
Polling whose results change and the same tool with new arguments are not repeats.

Counts cover one user request (`new_request()` starts them over).
One escalation ladder per repeated signature: the first trigger adds a note to the
result the model sees; the next identical call is denied without running; the one
after that is `stuck` (a checkpoint, or the end of a non-interactive run).
"""

from __future__ import annotations

import hashlib
import json
from collections import deque
from dataclasses import field
from typing import Literal

from agentcli.core.record import record
from agentcli.core.types import ToolCall, ToolResult

Verdict = Literal["run", "deny", "stuck"]

IDENTICAL_PAIRS = 4
IDENTICAL_ERRORS = 3
ALTERNATION_STEPS = 6
IDENTICAL_MESSAGES = 3


def call_signature(call: ToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=12).digest()


@record(slots=False)
class RepeatGuard:
    """Counts per signature, so each call costs the same however long the session has run
    (scanning every past call per call made a long session quadratic)."""

    enabled: bool = True  # `agent eval` turns the guard off to measure what it contributes
    calls: dict[str, int] = field(default_factory=dict)  # signature -> calls made
    pairs: dict[tuple[str, bytes, bool], int] = field(default_factory=dict)  # (sig, result digest, ok) -> count
    errors: dict[str, int] = field(default_factory=dict)  # signature -> failures in a row
    recent: deque[str] = field(default_factory=lambda: deque(maxlen=ALTERNATION_STEPS))
    messages: deque[str] = field(default_factory=lambda: deque(maxlen=IDENTICAL_MESSAGES))
    level: dict[str, int] = field(default_factory=dict)  # signature -> 1 noted, 2 denied

    def reset(self) -> None:
        """Forget every call and message (/undo, /clear); the on/off switch stays."""
        for table in (self.calls, self.pairs, self.errors, self.recent, self.messages, self.level):
            table.clear()

    def new_request(self) -> None:
        """A new user request: counting starts over. "Stuck" means one request going round in
        circles; three questions in a chat that each got the same short reply ("Done.") are not."""
        self.reset()

    def before(self, call: ToolCall) -> Verdict:
        """Decide before running: a signature already noted is denied, then stuck."""
        if not self.enabled:
            return "run"
        sig = call_signature(call)
        lvl = self.level.get(sig, 0)
        if lvl >= 2:
            return "stuck"
        if lvl == 1:
            self.level[sig] = 2
            return "deny"
        return "run"

    def after(self, call: ToolCall, result: ToolResult) -> str | None:
        """Record a finished call; return a note for the model when a trigger fires."""
        if not self.enabled:
            return None
        sig = call_signature(call)
        count, why = self._record(sig, result)
        if not count:
            return None
        self.level.setdefault(sig, 1)
        preview = result.content if len(result.content) <= 200 else result.content[:200] + "..."
        return (
            f"[repeat guard] This is identical call #{count} to {call.name} with the same arguments "
            f"({why}). Its result was: {preview!r}. Repeating it will not change the outcome: "
            "use the result you have, change the arguments, or give your final answer. "
            "The next identical call will be refused."
        )

    def _record(self, sig: str, result: ToolResult) -> tuple[int, str]:
        made = self.calls[sig] = self.calls.get(sig, 0) + 1
        key = (sig, _digest(result.content), result.ok)
        pairs = self.pairs[key] = self.pairs.get(key, 0) + 1
        errors = self.errors[sig] = 0 if result.ok else self.errors.get(sig, 0) + 1
        self.recent.append(sig)
        if pairs >= IDENTICAL_PAIRS:
            return pairs, "same result each time"
        if errors >= IDENTICAL_ERRORS:
            return made, "it failed each time"
        tail = list(self.recent)
        if (
            len(tail) == ALTERNATION_STEPS
            and tail[0] != tail[1]
            and all(tail[i] == tail[i % 2] for i in range(ALTERNATION_STEPS))
        ):
            return made, "alternating between two calls without progress"
        return 0, ""

    def message(self, text: str) -> bool:
        """Record an assistant message without calls; True when it is stuck repeating itself."""
        if not self.enabled:
            return False
        self.messages.append(text.strip())
        return len(self.messages) == IDENTICAL_MESSAGES and len(set(self.messages)) == 1
