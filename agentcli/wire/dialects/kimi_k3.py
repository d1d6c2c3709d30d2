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
The usual reply (the channels in their order, each value plain) is read from the raw text too
(`lane`): the pipeline's mask, reasoning split and chain have nothing to find in it.
"""

from __future__ import annotations

import json

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import SCAN_ONCE
from agentcli.wire.dialects._scan import ParseResult, attr_value, skip_ws, total
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
    call_wrappers = ((CALL_OPEN, CALL_CLOSE),)  # a reasoning tag in a value is the value's text
    reasoning_tags = (("<|open|>think<|sep|>", "<|close|>think<|sep|>"),)  # the think channel
    # every `<` of a reply the lane takes opens one of these (see _lane): it may answer in a chain
    lane_tokens = (RESPONSE_OPEN, RESPONSE_CLOSE, TOOLS_OPEN, TOOLS_CLOSE, MESSAGE_CLOSE, CALL_OPEN, CALL_CLOSE,
                   ARG_OPEN, ARG_CLOSE, SEP)

    @total
    def parse(self, text: str) -> ParseResult:
        # A long usual reply: its tokens walked once, each found at the next `<` (the searches below
        # cross a long value once per token looked for); on any text the walk answers what they
        # would. A short reply costs the searches less than the walk's steps.
        if len(text) >= _WALK_FROM:
            usual = _lane(text, self.name)
            if usual is not None:
                return usual
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

    def lane(self, text: str) -> ParseResult | None:
        """The usual reply read from the raw text (Dialect.lane; see _lane for what it takes)."""
        return _lane(text, self.name)

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


_WALK_FROM = 2048  # characters from which the parse walks a usual reply's tokens first
# A token's attributes as the usual reply writes them: ` name="value"` pairs, each value plain (no
# quote, bracket or line break: a string the mask reads as one, holding no markup).
_PLAIN_HEAD = lazy_pattern(r'(?:[ \t]+[A-Za-z_][\w-]*="[^"<>\[\]\'\n]*")*[ \t]*')
# What a string value must not hold, besides `<` (its first `<` is its close token): the other
# characters markup the mask or the reasoning split acts on opens with (`[THINK]`, `]<]minimax`),
# and quotes (a string opened in a value and closed in the next token's attributes would hide the
# tokens between from the full path's reading).
_BARRED = ("[", "]", '"', "'")


def _lane(text: str, dialect: str) -> ParseResult | None:
    """The usual reply read from the raw text (Dialect.lane): prose, or a response channel, then one
    tools channel of calls, each of arguments, then prose (the message's close token allowed), with
    whitespace (JSON's four kinds) between the channel's tokens and nothing else. Its tokens are the
    only markup in it: the prose and every value hold no `<` (each piece ends at the first `<` past
    it, which must be the token expected there), a string value no bracket or quote (_BARRED), a
    typed value is one JSON value decoded where it stands whose strings hold no bracket either. The
    full path's mask then hides nothing (no markup stands in a string), its reasoning split finds
    no tag (each would open with `<` or `[`; `◁` is the pipeline's to ask), and its parse finds
    these very tokens: the calls and text left are the parse's. None for anything else, or for a
    call the parse reports broken (no name), or a typed value it keeps as text (no JSON)."""
    find, starts = text.find, text.startswith
    kept: list[str] = []
    lt = find("<")
    pos = 0
    if lt != -1 and starts(RESPONSE_OPEN, lt):  # the reply's words in their channel
        kept.append(text[:lt])
        pos = lt + len(RESPONSE_OPEN)
        lt = find("<", pos)
        if lt == -1 or not starts(RESPONSE_CLOSE, lt):
            return None
        kept.append(text[pos:lt])
        pos = lt + len(RESPONSE_CLOSE)
        lt = find("<", pos)
    if lt == -1 or not starts(TOOLS_OPEN, lt):
        return None
    kept.append(text[pos:lt])
    pos = skip_ws(text, lt + len(TOOLS_OPEN))
    cands: list[Candidate] = []
    while starts(CALL_OPEN, pos):
        at = pos
        sep = find("<", pos + len(CALL_OPEN))
        if sep == -1 or not starts(SEP, sep) or _PLAIN_HEAD.fullmatch(text, pos + len(CALL_OPEN), sep) is None:
            return None
        name = _attr(text[at:sep], "tool")  # the parse's own slice, its token and all
        args: dict[str, object] = {}
        pos = skip_ws(text, sep + len(SEP))
        while starts(ARG_OPEN, pos):
            pos = _argument_at(text, pos, args)
            if pos == -1:
                return None
        if not starts(CALL_CLOSE, pos) or not name:
            return None
        pos += len(CALL_CLOSE)
        cands.append(Candidate(name=name, arguments=args, raw=text[at:pos], dialect=dialect))
        if len(cands) >= MAX_CALLS:
            return None  # a flood: the full path caps it
        pos = skip_ws(text, pos)
    if not cands or not starts(TOOLS_CLOSE, pos):
        return None
    pos += len(TOOLS_CLOSE)
    lt = find("<", pos)
    if lt != -1:  # the message's close token, and words after it
        if not starts(MESSAGE_CLOSE, lt):
            return None
        kept.append(text[pos:lt])
        pos = lt + len(MESSAGE_CLOSE)
        if find("<", pos) != -1:
            return None
    kept.append(text[pos:])
    return cands, "".join(kept)


def _argument_at(text: str, pos: int, args: dict[str, object]) -> int:
    """The argument token at `pos` read into `args` as the parse reads it (see _lane for what it
    takes); where the next token stands (after whitespace), or -1 for anything unusual."""
    find = text.find
    sep = find("<", pos + len(ARG_OPEN))
    if sep == -1 or not text.startswith(SEP, sep) or _PLAIN_HEAD.fullmatch(text, pos + len(ARG_OPEN), sep) is None:
        return -1
    v = sep + len(SEP)
    close = find("<", v)
    if close == -1 or not text.startswith(ARG_CLOSE, close):
        return -1
    attrs = text[pos:sep]  # the parse's own slice, its token and all
    if (attr_value(attrs, "type") or "string") == "string":
        for ch in _BARRED:
            if find(ch, v, close) != -1:
                return -1
        value: object = text[v:close]
    else:
        got = _json_at(text, v, close)
        if got is None:
            return -1
        value = got[0]
    key = _attr(attrs, "key")
    if key:
        args[key] = value
    return skip_ws(text, close + len(ARG_CLOSE))


def _json_at(text: str, a: int, b: int) -> tuple[object] | None:
    """(the JSON value text[a:b] holds,) decoded where it stands, as json.loads of the slice decodes
    it (whitespace around it, the same scanner); None when it is no one JSON value (the parse keeps
    such a value as text) or holds a string with a bracket in it (see _lane). The slice holds no
    `<` (the caller's search), so a string in it holds no other markup."""
    a = skip_ws(text, a, b)
    try:
        value, end = SCAN_ONCE(text, a)
    except (ValueError, RecursionError, StopIteration):
        return None
    if skip_ws(text, end, b) != b:
        return None
    if (find := text.find)("[", a, b) != -1 or find("]", a, b) != -1:
        if _bracket_in_strings(value):
            return None
    return (value,)


def _bracket_in_strings(value: object) -> bool:
    """Whether a decoded JSON value holds a string (a key or a value) with `[` or `]` in it."""
    todo = [value]
    while todo:
        v = todo.pop()
        if isinstance(v, str):
            if "[" in v or "]" in v:
                return True
        elif isinstance(v, dict):
            todo.extend(v)
            todo.extend(v.values())
        elif isinstance(v, list):
            todo.extend(v)
    return False


KIMI_K3 = _KimiK3()
