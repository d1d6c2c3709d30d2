"""Thinking Machines' Inkling (TML): typed content frames, a call being a JSON frame.

<|message_model|>get_weather<|content_invoke_tool_json|>{"name":"get_weather","args":{"city":"SF"}}<|end_message|>

Every frame marker is a special token; a server that drops the others leaves only the call's
(`NAME<|content_invoke_tool_json|>{..}`, nothing between one call and the next). The name before
the marker is a header, as the payload names the tool: it is taken out with the call when it is that
name, also when prose runs straight into it ("Let me checkget_weather"). A payload that is not a call
object (malformed, cut off, no name) is a reported broken call, never text and never run. The
frame tokens around text (`<|content_text|>`, `<|end_message|>`...) are markup, never visible.
"""

from __future__ import annotations

from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import decode_at, json_end, salvage_call, skip_ws
from agentcli.wire.dialects._scan import ParseResult, total
from agentcli.wire.types import Candidate

MARKER = "<|content_invoke_tool_json|>"
MESSAGE = "<|message_model|>"
# Frame tokens that close a call or wrap visible text: markup wherever a call frame stands.
FRAMES = ("<|end_message|>", "<|content_model_end_sampling|>", "<|content_text|>", MESSAGE)
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:/")
_MAX_NAME = 128


class _Inkling(Dialect):
    name = "inkling"
    markers = (MARKER,)
    owns = (MARKER,)
    stream_markers = (MESSAGE,)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        at = text.find(MARKER)
        while at != -1 and len(cands) <= MAX_CALLS:
            nxt = text.find(MARKER, at + len(MARKER))
            stop = len(text) if nxt == -1 else nxt
            got = self._call(text, at, stop)
            start = self._header_start(text, pos, at, got[0] if got else None)
            if got is None:
                at = nxt
                continue
            name, args, end, error = got
            kept.append(text[pos:start])
            cands.append(Candidate(name, args, text[start:end], self.name, error=error))
            pos = end
            at = text.find(MARKER, end) if end > at else nxt
        if not cands:
            return [], text
        kept.append(text[pos:])
        rest = "".join(kept)
        if "|" in rest:  # every frame token holds a `|`: absent, one memchr spares four walks of the prose
            for token in FRAMES:
                rest = rest.replace(token, "")
        return cands, rest

    def _call(self, text: str, at: int, stop: int) -> tuple[str, Any, int, str | None] | None:
        """(name, arguments, end, error) of the payload after the marker at `at`; None when there is
        no payload at all (a marker with prose after it)."""
        j = skip_ws(text, at + len(MARKER))
        if j >= stop or text[j] != "{":
            return None
        hit = decode_at(text, j)
        if hit is not None and hit[1] <= stop and isinstance(hit[0], dict):
            obj, end = hit
            name = obj.get("name")
            args = obj.get("args", obj.get("arguments", {}))
            if not isinstance(name, str) or not name.strip():
                return None
            error = None if isinstance(args, dict) else "malformed tool call (its args are not an object)"
            return name.strip(), args if isinstance(args, dict) else None, _past_frames(text, end), error
        closed = json_end(text, j, stop)
        salvaged = salvage_call(text[j:closed if closed is not None else stop])
        if salvaged is None:
            return None
        if closed is None:
            return salvaged[0], None, stop, "truncated tool call (output ended inside it)"
        return salvaged[0], None, _past_frames(text, closed), "malformed tool call (its payload is not valid JSON)"

    @staticmethod
    def _header_start(text: str, pos: int, at: int, name: str | None) -> int:
        """Where the call's frame begins: its `<|message_model|>` and a header that is its name."""
        i = at
        while i > pos and at - i < _MAX_NAME and text[i - 1] in _NAME_CHARS:
            i -= 1
        header = text[i:at]
        if name and header.endswith(name):
            i = at - len(name)
        elif header:
            i = at  # another word glued to the marker: prose, left where it is
        if text.startswith(MESSAGE, i - len(MESSAGE)) and i - len(MESSAGE) >= pos:
            i -= len(MESSAGE)
        return i


def _past_frames(text: str, end: int) -> int:
    """`end` moved past the frame tokens that close a call (`<|end_message|>`, end of sampling)."""
    while True:
        k = skip_ws(text, end)
        for token in FRAMES[:2]:
            if text.startswith(token, k):
                end = k + len(token)
                break
        else:
            return end


INKLING = _Inkling()
