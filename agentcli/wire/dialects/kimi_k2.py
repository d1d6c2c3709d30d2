"""Kimi K2 tool calls: section tokens around `functions.NAME:IDX` ids and JSON arguments.

<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Beijing"}<|tool_call_end|><|tool_calls_section_end|>
The written id (`functions.get_weather:0`) is kept as the call id; the name is the part
between the `functions.` namespace and the `:IDX` counter.

An id of any other shape (a bare counter `5`, a client's `call_3` or `toolu_01...` copied from a
rewritten history) names no tool: the call is kept with `name_from_args`, and the tool is the one
offered whose schema alone fits the arguments (wire.name_inference), or the call is an error.
Every section or call wrapper token left outside a call is markup, never text (unless quoted in
backticks as prose).

Some routes drop the begin tokens and deliver `NAME:0<|tool_call_argument_begin|>{...}` (typeclaw#344):
such a call is read only when the id stands alone at a line start (or right after another Kimi
token) and its arguments are one complete JSON object.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import (
    ParseResult,
    decode_json_at,
    iter_blocks,
    json_object_complete,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import finder, holds_any
from agentcli.wire.types import Candidate

SECTION_BEGINS = ("<|tool_calls_section_begin|>", "<|tool_call_section_begin|>")
SECTION_ENDS = ("<|tool_calls_section_end|>", "<|tool_call_section_end|>")
CALL_BEGIN = "<|tool_call_begin|>"
CALL_END = "<|tool_call_end|>"
ARG_BEGIN = "<|tool_call_argument_begin|>"
# A begin-less call's id: `functions.NAME:N` or `NAME:N`, nothing else on its line before the token.
_BARE_ID = re.compile(r"[ \t]*((?:functions\.)?[A-Za-z_][\w.\-]{0,127}:\d{1,6})[ \t]*")
_ID_LOOKBACK = 160


# Wrapper tokens only ever written around calls. A lone argument token is left alone: prose quoting
# the layout (`name:0<|tool_call_argument_begin|>{...}`) must read as written.
_TOKENS = (*SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, CALL_END)
# The tokens only Kimi writes: <|tool_call_end|> alone is shared (LFM2 and openPangu close their
# <|tool_call_start|> blocks with it), so without one of these the text is not Kimi's to clean.
_KIMI_ONLY = (*SECTION_BEGINS, *SECTION_ENDS, CALL_BEGIN, ARG_BEGIN)


def _name_from_id(call_id: str) -> str | None:
    """`functions.get_weather:0` -> `get_weather`; an id without its `:N` counter names nothing by
    itself (`call_3`, `5`; `functions.f.0` is a garbled id, not a tool `f.0`)."""
    name = call_id
    prefixed = name.startswith("functions.")
    if prefixed:
        name = name[len("functions.") :]
    head, colon, idx = name.rpartition(":")
    if colon and idx.isdigit():
        name = head
    else:
        return None  # no counter: an id only (or garbled), not `NAME:N`
    if not name or name.isdigit() or any(c.isspace() or c in "<>{}" for c in name):
        return None
    return name


def _id_only(call_id: str) -> bool:
    """An id that is one token but no `NAME:N` (a counter, `call_3`, a UUID): the tool is inferred
    from the arguments. Ids holding spaces or markup are garbled text, not ids."""
    return 0 < len(call_id) <= 128 and not any(c.isspace() or c in "<>{}" for c in call_id)


def strip_tokens(text: str) -> str:
    """`text` without the Kimi wrapper tokens left in it, except tokens quoted in backticks (prose).
    On long text the tokens are looked for where their `|` stands (a memchr), not by plain searches."""
    find = finder(text)
    i = find("<|tool_call")
    if i == -1:
        return text
    out: list[str] = []
    pos = 0
    while i != -1:
        tok = next((t for t in _TOKENS if text.startswith(t, i)), None)
        if tok is None or text[i - 1 : i] == "`" or text[i + len(tok) : i + len(tok) + 1] == "`":
            i = find("<|tool_call", i + 1)
            continue
        out.append(text[pos:i])
        pos = i + len(tok)
        i = find("<|tool_call", pos)
    out.append(text[pos:])
    return "".join(out)


class _KimiK2(Dialect):
    name = "kimi_k2"
    markers = (*SECTION_BEGINS, CALL_BEGIN, ARG_BEGIN, *SECTION_ENDS, CALL_END)
    owns = markers
    reasoning_tags = (("◁think▷", "◁/think▷"),)  # Kimi-VL thinking
    # Kimi K2.5 calls a tool mid-thought without closing it: a section or call token ends the thought.
    section_openers = (*SECTION_BEGINS, CALL_BEGIN)
    call_wrappers = ((CALL_BEGIN, CALL_END),)

    @total
    def parse(self, text: str) -> ParseResult:
        if not holds_any(text, _KIMI_ONLY):  # a memchr per rare character, not a scan per token
            return [], text  # a lone <|tool_call_end|> closes LFM2's or openPangu's block, not Kimi's
        found: list[tuple[Candidate, tuple[int, int]]] = []
        blocks: list[tuple[int, int]] = []  # every begin..end region, read or not
        garbled: list[tuple[int, int]] = []  # whole call blocks whose id names no tool
        cut: int | None = None  # where a call cut off mid-way starts: it stays text as written
        for blk in iter_blocks(text, CALL_BEGIN, CALL_END):
            blocks.append((blk.start, blk.end))
            body = text[blk.body_start : blk.body_end]
            sep = body.find(ARG_BEGIN)
            if sep == -1:
                if not blk.closed:
                    cut = _section_start(text, blk.start) if cut is None else cut
                continue
            call_id = body[:sep].strip()
            name = _name_from_id(call_id)
            args = body[sep + len(ARG_BEGIN) :].strip()
            by_args = name is None and _id_only(call_id)
            if by_args:
                name = call_id
            if name is None:
                if blk.closed:
                    garbled.append((blk.start, blk.end))
                continue
            if not blk.closed:
                # Cut off: keep the call only if its arguments are whole, dropping
                # a section-end token that may follow them.
                for end in SECTION_ENDS:
                    if args.endswith(end):
                        args = args[: -len(end)].rstrip()
                if not json_object_complete(args):
                    cut = _section_start(text, blk.start) if cut is None else cut
                    continue
            found.append((Candidate(name=name, arguments=args or "{}", raw=text[blk.start : blk.end],
                                    dialect=self.name, id=call_id, name_from_args=by_args), (blk.start, blk.end)))
        # A plain count: CPython crosses a long reply for a token of 28 characters in long strides, for
        # less than a memchr for its `|` costs in a reply stored four bytes a character.
        if text.count(ARG_BEGIN) > len(blocks):  # an argument token outside every block
            found.extend(self._beginless(text, blocks))
            found.sort(key=lambda f: f[1][0])
        if not found:
            return [], _clean(text, text[cut:] if cut is not None else "")
        # A garbled call beside good ones is section markup, not prose: it goes with the section.
        spans = sorted([sp for _, sp in found] + garbled)
        spans.extend(_section_tokens(text, spans))
        return [c for c, _ in found], _clean(remove_spans(text, spans), text[cut:] if cut is not None else "")

    def _beginless(self, text: str, blocks: list[tuple[int, int]]) -> list[tuple[Candidate, tuple[int, int]]]:
        """Calls whose begin tokens are missing: `ID<|tool_call_argument_begin|>{json}` outside any block."""
        out: list[tuple[Candidate, tuple[int, int]]] = []
        bi = 0
        find = finder(text)
        pos = find(ARG_BEGIN)
        while pos != -1:
            while bi < len(blocks) and blocks[bi][1] <= pos:
                bi += 1
            if bi < len(blocks) and blocks[bi][0] <= pos:  # inside a block: already judged there
                pos = find(ARG_BEGIN, blocks[bi][1])
                continue
            hit = _beginless_call(text, pos)
            if hit is None:
                pos = find(ARG_BEGIN, pos + len(ARG_BEGIN))
                continue
            start, end, call_id, args = hit
            name = _name_from_id(call_id)
            if name is not None:
                cand = Candidate(name=name, arguments=args, raw=text[start:end], dialect=self.name, id=call_id)
                out.append((cand, (start, end)))
            pos = find(ARG_BEGIN, end)
        return out


def _section_start(text: str, start: int) -> int:
    """`start`, moved back over a section token that opens right before it."""
    head = text[:start].rstrip()
    for tok in SECTION_BEGINS:
        if head.endswith(tok):
            return len(head) - len(tok)
    return start


def _clean(rest: str, cut_off: str) -> str:
    """`rest` without stray Kimi tokens; a call cut off at the end (`cut_off`) stays as written,
    so the reader sees what was lost."""
    if cut_off and rest.endswith(cut_off):
        return strip_tokens(rest[: len(rest) - len(cut_off)]) + cut_off
    return strip_tokens(rest)


def _beginless_call(text: str, arg: int) -> tuple[int, int, str, str] | None:
    """(span start, span end, id, arguments) when an id stands alone before the argument token at
    `arg` and a whole JSON object follows it; None otherwise."""
    lo = max(0, arg - _ID_LOOKBACK)
    start = text.rfind("\n", lo, arg) + 1
    if start == 0 and lo > 0:
        return None  # no line start within reach: not an id on its own line
    tok = text.rfind("|>", start, arg)  # right after another Kimi token also counts as a line start
    if tok != -1:
        start = tok + 2
    m = _BARE_ID.fullmatch(text, start, arg)
    if m is None:
        return None
    got = decode_json_at(text, arg + len(ARG_BEGIN))
    if got is None or not isinstance(got[0], dict):
        return None  # cut off or not an object: a missed call beats a wrong one
    args = text[skip_ws(text, arg + len(ARG_BEGIN)) : got[1]]
    end = got[1]
    k = skip_ws(text, end)
    if text.startswith(CALL_END, k):
        end = k + len(CALL_END)
        k = skip_ws(text, end)
    for close in SECTION_ENDS:
        if text.startswith(close, k):
            end = k + len(close)
            break
    return m.start(1), end, m.group(1), args


def _section_tokens(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Spans for section tokens that wrap the found calls (with the whitespace between them).

    A token wraps the calls when only whitespace stands between it and them: it is looked for right
    there, past that whitespace, not by a search of the text before the first call or after the last
    (a token neither starts nor ends with whitespace, nor overlaps itself, so the last one before the
    calls is followed by only whitespace exactly when it ends where that whitespace begins)."""
    out: list[tuple[int, int]] = []
    first, last = spans[0][0], spans[-1][1]
    i = first
    while i > 0 and text[i - 1].isspace():
        i -= 1
    for tok in SECTION_BEGINS:
        if text.endswith(tok, 0, i):
            out.append((i - len(tok), first))
    j = last
    while j < len(text) and text[j].isspace():
        j += 1
    for tok in SECTION_ENDS:
        if text.startswith(tok, j):
            out.append((last, j + len(tok)))
    # whitespace between consecutive calls belongs to the section
    for (_, e1), (s2, _) in zip(spans, spans[1:]):
        if not text[e1:s2].strip():
            out.append((e1, s2))
    return out


KIMI_K2 = _KimiK2()
