"""Gemma 4 tool calls: FunctionGemma's `call:NAME{key:value}` body between Gemma 4's own tokens.

<|tool_call>call:get_weather{location:<|"|>Paris<|"|>,days:3}<tool_call|>
Strings sit between <|"|> tokens and are taken verbatim (quotes and backslashes inside are the
model's text, not escapes); a JSON "string" in their place is decoded; numbers, booleans, null and
nested {..}/[..] are bare. A call cut off before its close token still counts once its braces closed.
A string whose opening <|"|> the model left out but whose closing one it wrote (`query:Paris, France<|"|>`)
is still that string: a bare value that is not a number or literal runs to the next <|"|> when that
token closes a value (a separator or the end follows it) and no `,key:` comes before it.

A block closed by the end-of-turn token (`<turn|>`) instead of its own, or opened with a stray colon
(`<|tool_call>:call:..`), is still that call. When the model drops the open token, a bare
`call:NAME{..}` at the start of a line (or of the answer after the reasoning channel) or after the
`<call>` fragment is read as an embedded call: with tools offered, only one naming an offered tool.

The turn's own tokens never belong on screen: a repeated close token or the tool-response opener the
model writes after a call (it expects the result next) are dropped from the visible text.
"""

from __future__ import annotations

import re
from typing import Any

from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._callbody import LITERALS, NUMBER, VALUE_END, WS, Reader, parse_call
from agentcli.wire.dialects._scan import Block, ParseResult, remove_spans, total
from agentcli.wire.types import Candidate

BEGIN, END = "<|tool_call>", "<tool_call|>"
TURN_END = "<turn|>"
ESC = '<|"|>'
# Where a call written without its open token starts: a line's (or the answer's) first word, the end
# of the reasoning channel, or the `<call>` fragment of the open token.
_BARE = re.compile(r"(?:^|\n)[ \t]*call:|<channel\|>call:|<call>")
# Turn tokens a model writes after its calls; markup, never text.
_STRAY = (END, "<|tool_response>", "<tool_response|>")
# The start of the next key (`,key:`): a bare value never runs past one to reach a closing <|"|>.
_NEXT_KEY = re.compile(r",[ \t\r\n]*[^\s,{}\[\]<>:]+[ \t\r\n]*:")


def _call_name(body: str) -> str | None:
    """NAME of a block that starts `call:NAME{`, or None."""
    body = body.strip()
    brace = body.find("{")
    name = body[5:brace].strip() if body.startswith("call:") and brace > 5 else ""
    return name if name and not any(c.isspace() or c in "<>:{}" for c in name) else None


class _Gemma4(BlockDialect):
    name = "gemma4"
    markers = (BEGIN, "call:", "<call>")
    owns = (BEGIN,)
    call_wrappers = ((BEGIN, END),)  # a reasoning tag in a value is the value's text
    reasoning_tags = (("<|channel>", "<channel|>"),)  # the channel opens with its name, `thought`
    begin, end = BEGIN, END

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        body, end = text[blk.body_start : blk.body_end], blk.end
        if not blk.closed and (t := body.find(TURN_END)) != -1:
            body, end = body[:t], blk.body_start + t + len(TURN_END)  # closed by the turn's end
        if body.startswith(":call:"):
            body = body[1:]
        raw = text[blk.start : end]
        got = _parse_call(body)
        several = _calls_in_block(body) if got is None else None
        if got is not None:
            return [Candidate(name=got[0], arguments=got[1], raw=raw, dialect=self.name, text_values=True)], end
        if several:
            return [Candidate(name=n, arguments=a, raw=raw, dialect=self.name, text_values=True) for n, a in several], end
        if blk.closed and (name := _call_name(body)):
            # A whole block whose arguments do not read: reported as a broken call, not shown as text.
            return [Candidate(name=name, arguments={}, raw=raw, dialect=self.name,
                              error="the call's arguments are not valid Gemma 4 syntax")], end
        return None

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = self.blocks(text)
        rest = remove_spans(text, spans) if spans else text
        if "call" in rest:
            bare, rest = _bare_calls(rest, self.name)
            cands.extend(bare)
        if not cands:
            return [], text
        for token in _STRAY:
            rest = rest.replace(token, "")
        return cands, rest


class _Reader4(Reader):
    """The FunctionGemma reader, plus strings whose opening <|"|> was left out (see the module doc)."""

    def __init__(self, s: str, esc: str = ESC) -> None:
        super().__init__(s, esc)
        # The next <|"|> and the next `,key:` at or after the read position, each found once and
        # reused until passed (-1: none left), so reading stays linear.
        self._esc_at = -2
        self._key_at = -2

    def value(self, depth: int) -> Any:
        self.ws()
        s, i = self.s, self.i
        if s.startswith(ESC, i) or s[i : i + 1] in ('"', "{", "["):
            return super().value(depth)
        if self._esc_at != -1 and self._esc_at < i:
            self._esc_at = s.find(ESC, i)
        k = self._esc_at
        if k > i and self._key_at != -1 and self._key_at < i:
            m = _NEXT_KEY.search(s, i)
            self._key_at = m.start() if m else -1
        if k > i and not (i <= self._key_at < k):
            m = VALUE_END.search(s, i)
            plain = s[i : m.start() if m else len(s)].strip()
            after = WS.match(s, k + len(ESC))
            nxt = after.end() if after else k + len(ESC)
            closes = nxt >= len(s) or s[nxt] in ",}]"
            if closes and plain not in LITERALS and not NUMBER.fullmatch(plain):
                self.i = k + len(ESC)
                return s[i:k]
        return super().value(depth)


def _parse_call(body: str) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) of `call:NAME{...}`, or None when the body is not one whole call."""
    return parse_call(body, ESC, _Reader4)


_MAX_IN_BLOCK = 64  # calls read from one block; a longer run is no call list a model writes


def _calls_in_block(body: str) -> list[tuple[str, dict[str, Any]]] | None:
    """Several `call:NAME{..}` entries written one after another in one block (the model put its
    parallel calls under one token: `call:a{..}call:b{..}`, maybe with a comma or a line between);
    None unless the whole body is such a run of at least two calls."""
    calls: list[tuple[str, dict[str, Any]]] = []
    i = _WS_OR_SEP.match(body).end()  # type: ignore[union-attr]  # the pattern matches the empty string
    while i < len(body) and len(calls) < _MAX_IN_BLOCK:
        got = _bare_call(body[i:]) if body.startswith("call:", i) else None
        if got is None:
            return None
        calls.append((got[0], got[1]))
        i += got[2]
        i = _WS_OR_SEP.match(body, i).end()  # type: ignore[union-attr]
    return calls if len(calls) >= 2 and i >= len(body) else None


_WS_OR_SEP = re.compile(r"[\s,;]*")


def _bare_call(body: str) -> tuple[str, dict[str, Any], int] | None:
    """(name, arguments, end) of the `call:NAME{..}` that `body` starts with, or None."""
    brace = body.find("{")
    name = _call_name(body[: brace + 1]) if brace != -1 else None
    if name is None:
        return None
    reader = _Reader4(body)
    reader.i = brace
    try:
        args = reader.obj()
    except (ValueError, RecursionError):
        return None
    return name, args, reader.i


def _bare_calls(text: str, dialect: str) -> tuple[list[Candidate], str]:
    """Calls written without their open token, each read within the text up to the next such start."""
    starts = [(m.start(), m.end()) for m in _BARE.finditer(text)]
    cands: list[Candidate] = []
    spans: list[tuple[int, int]] = []
    for i, (at, after) in enumerate(starts):
        stop = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        # `call:NAME{` is read from its `call:`; the `<call>` fragment is followed by NAME{ alone.
        fragment = text.startswith("<call>", after - 6)
        begin = after if fragment else after - len("call:")
        got = _bare_call(("call:" if fragment else "") + text[begin:stop])
        if got is None:
            continue
        name, args, end = got
        end = begin + end - (len("call:") if fragment else 0)
        cands.append(Candidate(name=name, arguments=args, raw=text[at:end], dialect=dialect,
                               text_values=True, embedded=True))
        spans.append((at, end))
    if not cands:
        return [], text
    return cands, remove_spans(text, spans)


GEMMA4 = _Gemma4()
