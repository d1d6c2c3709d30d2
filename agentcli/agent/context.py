"""Context-window management: estimate tokens per turn; near the limit, fold the
oldest exchanges into a short extractive summary. The system prompt and an
unanswered tool call are never touched."""

from __future__ import annotations

from agentcli.core.types import Message, Role

THRESHOLD = 0.8  # fraction of the context window that triggers compaction
KEEP_RECENT = 4  # messages always kept verbatim at the end


def message_tokens(m: Message) -> int:
    """About 4 characters a token, plus a little per message and call (good enough to act early)."""
    total = 4 + (len(m.text) + len(m.thinking)) // 4
    for c in m.tool_calls:
        total += 8 + len(str(c.arguments)) // 4
    for r in m.tool_results:
        total += 8 + len(r.content) // 4
    return total


def estimate_tokens(messages: list[Message]) -> int:
    return sum(message_tokens(m) for m in messages)


class TokenTally:
    """A running estimate over a history that grows at its end: each turn counts only the
    messages added since the last one, instead of the whole conversation again. A history
    that was cut or rewritten (undo, compaction) is counted afresh."""

    def __init__(self) -> None:
        self._count = 0
        self._last: Message | None = None
        self._total = 0

    def estimate(self, history: list[Message], start: int = 0) -> int:
        """Tokens of history[start:] (`start` skips a head that changes each turn, like the system prompt)."""
        n = self._count
        if n <= start or len(history) < n or history[n - 1] is not self._last:
            n, self._total = start, 0
        for i in range(n, len(history)):
            self._total += message_tokens(history[i])
        self._count = len(history)
        self._last = history[-1] if len(history) > start else None
        return self._total


def _cut_point(history: list[Message], keep: int) -> int:
    """Index before which messages may be folded: never split a call from its results."""
    cut = max(0, len(history) - keep)
    while 0 < cut < len(history) and history[cut].role is Role.TOOL:
        cut -= 1  # results belong with the assistant message before them
    while cut > 0 and history[cut - 1].role is Role.ASSISTANT and history[cut - 1].tool_calls:
        cut -= 1
    return cut


def summarise(messages: list[Message]) -> str:
    lines = []
    for m in messages:
        if m.role is Role.USER and m.text:
            lines.append("user: " + m.text.strip().splitlines()[0][:200])
        elif m.role is Role.ASSISTANT:
            if m.text.strip():
                lines.append("assistant: " + m.text.strip().splitlines()[0][:200])
            for c in m.tool_calls:
                lines.append(f"assistant called {c.name}({', '.join(f'{k}=' + repr(v)[:40] for k, v in c.arguments.items())})")
        elif m.role is Role.TOOL:
            for r in m.tool_results:
                first = (r.content.strip().splitlines() or [""])[0][:120]
                lines.append(f"  {r.tool_name} -> {'ok' if r.ok else 'error'}: {first}")
    return "Summary of the earlier conversation (older turns were folded to save context):\n" + "\n".join(lines)


def compact(history: list[Message], keep: int = KEEP_RECENT) -> tuple[list[Message], int]:
    """Return (new history, number of messages folded)."""
    cut = _cut_point(history, keep)
    if cut <= 1:
        return history, 0
    folded = history[:cut]
    return [Message.user(summarise(folded)), Message(Role.ASSISTANT, "Understood; continuing from that summary."),
            *history[cut:]], len(folded)


def over_threshold(system: Message, history: list[Message], context_window: int, tally: TokenTally) -> bool:
    """The check a session makes each turn: the system prompt counted afresh, the history through the
    tally. Nothing is copied: building [system, *history] only to estimate it was a pass over the
    whole conversation every turn."""
    return message_tokens(system) + tally.estimate(history) > THRESHOLD * context_window


def needs_compaction(messages: list[Message], context_window: int, tally: TokenTally | None = None) -> bool:
    """`messages` is the system prompt then the history; with a tally, the history is counted incrementally."""
    if tally is None or not messages:
        return estimate_tokens(messages) > THRESHOLD * context_window
    return message_tokens(messages[0]) + tally.estimate(messages, start=1) > THRESHOLD * context_window
