"""Kimi K3 tool calls: XTML channels of `<|open|>NAME<|sep|> ... <|close|>NAME<|sep|>` tokens.

<|open|>response<|sep|>Let me run it.<|close|>response<|sep|><|open|>tools<|sep|>
<|open|>call tool="python" index="1"<|sep|>
<|open|>argument key="code" type="string"<|sep|>print(1)<|close|>argument<|sep|>
<|close|>call<|sep|><|close|>tools<|sep|><|close|>message<|sep|>

Attribute values are HTML-escaped (`tool="a&amp;b"` names `a&b`); argument values are raw text,
decoded as JSON unless their `type` is string (a value that does not decode stays text). The
reply is the response channel's content; the tools channel, the channel tokens and a control
token cut off at the very end never reach the screen. A call cut off before `<|close|>call` is
reported as truncated, never executed. The think channel is reasoning (the pipeline's to split).
"""

from __future__ import annotations

import json

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._scan import ParseResult, attr_value, total
from agentcli.wire.dialects._seen import finder
from agentcli.wire.types import Candidate

SEP = "<|sep|>"
RESPONSE_OPEN, RESPONSE_CLOSE = "<|open|>response<|sep|>", "<|close|>response<|sep|>"
TOOLS_OPEN, TOOLS_CLOSE = "<|open|>tools<|sep|>", "<|close|>tools<|sep|>"
MESSAGE_CLOSE = "<|close|>message<|sep|>"
CALL_OPEN, CALL_CLOSE = "<|open|>call", "<|close|>call<|sep|>"
ARG_OPEN, ARG_CLOSE = "<|open|>argument", "<|close|>argument<|sep|>"
_TOOLS_TAIL = "tools" + SEP  # how both of the tools channel's tokens end
_OPEN_HEAD, _CLOSE_HEAD = len(TOOLS_OPEN) - len(_TOOLS_TAIL), len(TOOLS_CLOSE) - len(_TOOLS_TAIL)
# Channel tokens that are markup wherever they stand (the response channel's content is the reply).
_WRAPPERS = (RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_CLOSE, TOOLS_CLOSE)
# Every control sequence: a generation stopped by max_tokens can end on a prefix of one.
_ALL = (*_WRAPPERS, TOOLS_OPEN, CALL_OPEN, CALL_CLOSE, ARG_OPEN, ARG_CLOSE, "<|open|>think<|sep|>", "<|close|>think<|sep|>")


class _KimiK3(Dialect):
    name = "kimi_k3"
    markers = (TOOLS_OPEN, CALL_OPEN, RESPONSE_OPEN, RESPONSE_CLOSE, MESSAGE_CLOSE, "<|open|>", "<|close|>")
    owns = markers
    reasoning_tags = (("<|open|>think<|sep|>", "<|close|>think<|sep|>"),)  # the think channel

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        find = finder(text)  # a long reply's tokens looked for where their '|' stands (see _seen.TWO_WAY)
        while len(cands) <= MAX_CALLS:
            start = find(TOOLS_OPEN, pos)
            if start == -1:
                break
            # the channel ends at its close token, or at the next channel's open token: both end
            # with _TOOLS_TAIL, so one search finds whichever comes first (a long argument is
            # crossed once, not by a search for each)
            end = nxt = -1
            at = find(_TOOLS_TAIL, start + len(TOOLS_OPEN))
            while at != -1:
                if text.startswith(TOOLS_CLOSE, at - _CLOSE_HEAD):
                    end = at - _CLOSE_HEAD
                    break
                if text.startswith(TOOLS_OPEN, at - _OPEN_HEAD):
                    nxt = at - _OPEN_HEAD
                    break
                at = find(_TOOLS_TAIL, at + 1)
            stop = (len(text) if nxt == -1 else nxt) if end == -1 else end
            found = self._calls(text, start + len(TOOLS_OPEN), stop)
            cands.extend(found)
            kept.append(text[pos:start])
            if not found:  # a tools channel with no call in it: its words stay, the token goes
                kept.append(text[start + len(TOOLS_OPEN) : stop])
            pos = stop if end == -1 else end + len(TOOLS_CLOSE)
        kept.append(text[pos:])
        rest = _strip_wrappers("".join(kept))
        return cands, rest

    def _calls(self, text: str, pos: int, stop: int) -> list[Candidate]:
        """The calls of one tools channel, in order; a call cut off at the end is an error."""
        out: list[Candidate] = []
        find = finder(text)
        while len(out) <= MAX_CALLS:
            start = find(CALL_OPEN, pos, stop)
            if start == -1:
                return out
            head_end = find(SEP, start, stop)
            close = find(CALL_CLOSE, start, stop)
            if head_end == -1 or close == -1 or close < head_end:
                name = _attr(text[start:head_end] if head_end != -1 else "", "tool")
                out.append(Candidate(name=name, arguments=None, raw=text[start:stop], dialect=self.name,
                                     error="truncated tool call (output ended inside it)"))
                return out
            name = _attr(text[start:head_end], "tool")
            args = _arguments(text, head_end + len(SEP), close)
            raw = text[start : close + len(CALL_CLOSE)]
            if name and args is not None:
                out.append(Candidate(name=name, arguments=args, raw=raw, dialect=self.name))
            else:
                out.append(Candidate(name=name, arguments=None, raw=raw, dialect=self.name,
                                     error="malformed tool call (an argument is never closed)"))
            pos = close + len(CALL_CLOSE)
        return out


def _attr(head: str, key: str) -> str:
    value = attr_value(head, key)
    if not value:
        return ""
    if "&" in value:  # an escape to undo: html loaded only then (an import statement per call costs)
        import html

        value = html.unescape(value)
    return value.strip()


def _arguments(text: str, pos: int, stop: int) -> dict[str, object] | None:
    """`key -> value` of the arguments in text[pos:stop]; None when one is never closed."""
    args: dict[str, object] = {}
    find = finder(text)
    while True:
        start = find(ARG_OPEN, pos, stop)
        if start == -1:
            return args
        head_end = find(SEP, start, stop)
        close = find(ARG_CLOSE, head_end, stop) if head_end != -1 else -1
        if close == -1:
            return None
        head = text[start:head_end]
        key = _attr(head, "key")
        value = text[head_end + len(SEP) : close]
        if key:
            args[key] = value if (attr_value(head, "type") or "string") == "string" else _decoded(value)
        pos = close + len(ARG_CLOSE)


def _decoded(value: str) -> object:
    try:
        return json.loads(value)
    except ValueError:
        return value


def _strip_wrappers(text: str) -> str:
    """The visible reply: channel tokens removed, and a control sequence cut off at the very end."""
    if "<|" not in text:
        return text
    for tok in _WRAPPERS:
        text = text.replace(tok, "")
    at = max(text.rfind("<|open|>"), text.rfind("<|close|>"))
    if at != -1 and any(m.startswith(text[at:]) for m in _ALL):
        return text[:at]  # a control sequence cut off at the very end
    return text


KIMI_K3 = _KimiK3()
