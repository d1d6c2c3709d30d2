"""Upstage Solar Open 2 tool calls: a name line, then key/value pairs between sentinel tokens.

<|tool_call:start|>get_weather
<|tool_arg:start|>city<|tool_arg:value|>Seoul<|tool_arg:end|>
<|tool_call:end|>
Values are text (the schema types them). A call ends at its end token, or at the next call's start
token when the model drops it; a value ends at its end token, the next key or the end of its call.
A call cut off by the end of the output is not a call and stays text; one whose name line runs into
the next boundary is no call either, and its sentinels leave the text with it (markup, not prose). A key written twice keeps its first value. Only a whole sentinel is a boundary: a value
may quote a prefix of one (`<|tool_call:`).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, find_cached, find_first, remove_spans, total
from agentcli.wire.types import Candidate

CALL_START, CALL_END = "<|tool_call:start|>", "<|tool_call:end|>"
ARG_START, ARG_VALUE, ARG_END = "<|tool_arg:start|>", "<|tool_arg:value|>", "<|tool_arg:end|>"
_BAD_NAME = frozenset("<>{}\"'=")


def _pairs(body: str) -> dict[str, str]:
    """The key/value pairs of a call body; a key that runs into the next key (no value tag) is skipped."""
    args: dict[str, str] = {}
    cache: dict[str, int] = {}
    pos = 0
    while True:
        a = find_cached(body, ARG_START, pos, cache)
        if a == -1:
            return args
        k = a + len(ARG_START)
        v = find_cached(body, ARG_VALUE, k, cache)
        if v == -1:
            return args
        nxt = find_cached(body, ARG_START, k, cache)
        if nxt != -1 and nxt < v:
            pos = nxt  # this key never got its value
            continue
        key = body[k:v].strip()
        vs = v + len(ARG_VALUE)
        end, which = find_first(body, (ARG_END, ARG_START), vs, cache)
        stop = len(body) if end == -1 else end
        if key and key not in args:
            args[key] = body[vs:stop]
        pos = stop + (len(ARG_END) if which == ARG_END else 0)


class _SolarOpen2(Dialect):
    name = "solar_open2"
    markers = (CALL_START,)
    owns = (CALL_START, ARG_START)
    call_wrappers = ((CALL_START, CALL_END),)  # a reasoning tag in a value is the value's text
    reasoning_tags = (("<|think:start|>", "<|think:end|>"),)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        cache: dict[str, int] = {}
        pos = 0
        while True:
            s = find_cached(text, CALL_START, pos, cache)
            if s == -1:
                break
            body_start = s + len(CALL_START)
            at, which = find_first(text, (CALL_END, CALL_START), body_start, cache)
            if at == -1:
                break  # cut off by the end of the output: not a call
            end = at + len(CALL_END) if which == CALL_END else at
            pos = end
            body = text[body_start:at]
            nl = body.find("\n")
            name = body[:nl].strip() if nl != -1 else ""
            if not name or any(c.isspace() or c in _BAD_NAME for c in name):
                spans.append((s, end))  # the name line never ended: no call, and not prose either
                continue
            cands.append(Candidate(name=name, arguments=_pairs(body[nl + 1 :]), raw=text[s:end],
                                   dialect=self.name, text_values=True))
            spans.append((s, end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


SOLAR_OPEN2 = _SolarOpen2()
