"""Stuck detection (seed 001 §5.3), with thresholds like the most-used stuck detector's.

Triggers: 4 identical call+result pairs; 3 identical calls that each errored;
an A-B-A-B-A-B alternation of calls; 3 identical assistant messages.
Polling whose results change and the same tool with new arguments are not repeats.

One escalation ladder per repeated signature: the first trigger adds a note to the
result the model sees; the next identical call is denied without running; the one
after that is `stuck` (a checkpoint, or the end of a non-interactive run).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Literal

from agentcli.core.types import ToolCall, ToolResult

Verdict = Literal["run", "deny", "stuck"]

IDENTICAL_PAIRS = 4
IDENTICAL_ERRORS = 3
ALTERNATION_STEPS = 6
IDENTICAL_MESSAGES = 3


def call_signature(call: ToolCall) -> str:
    return call.name + "\x00" + json.dumps(call.arguments, sort_keys=True, default=str)


@dataclass
class RepeatGuard:
    steps: list[tuple[str, str, bool]] = field(default_factory=list)  # (call sig, result content, ok)
    messages: list[str] = field(default_factory=list)
    level: dict[str, int] = field(default_factory=dict)  # signature -> 1 noted, 2 denied

    def before(self, call: ToolCall) -> Verdict:
        """Decide before running: a signature already noted is denied, then stuck."""
        lvl = self.level.get(call_signature(call), 0)
        if lvl >= 2:
            return "stuck"
        if lvl == 1:
            self.level[call_signature(call)] = 2
            return "deny"
        return "run"

    def after(self, call: ToolCall, result: ToolResult) -> str | None:
        """Record a finished call; return a note for the model when a trigger fires."""
        sig = call_signature(call)
        self.steps.append((sig, result.content, result.ok))
        count, why = self._trigger(sig)
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

    def _trigger(self, sig: str) -> tuple[int, str]:
        same = [s for s in self.steps if s[0] == sig]
        last = same[-1]
        pairs = sum(1 for s in same if s[1] == last[1] and s[2] == last[2])
        if pairs >= IDENTICAL_PAIRS:
            return pairs, "same result each time"
        errors = 0
        for s in reversed(same):
            if s[2]:
                break
            errors += 1
        if errors >= IDENTICAL_ERRORS:
            return len(same), "it failed each time"
        tail = [s[0] for s in self.steps[-ALTERNATION_STEPS:]]
        if (
            len(tail) == ALTERNATION_STEPS
            and tail[0] != tail[1]
            and all(tail[i] == tail[i % 2] for i in range(ALTERNATION_STEPS))
        ):
            return len(same), "alternating between two calls without progress"
        return 0, ""

    def message(self, text: str) -> bool:
        """Record an assistant message without calls; True when it is stuck repeating itself."""
        self.messages.append(text.strip())
        tail = self.messages[-IDENTICAL_MESSAGES:]
        return len(tail) == IDENTICAL_MESSAGES and len(set(tail)) == 1
