"""JSON calls wrapped in an XML-ish tag, `<tag>{"name": .., "arguments": ..}</tag>`: the frame every
tagged-JSON family shares (generic_tags' <tool_use>, <function_call>, <tools>, <TOOLCALL>; Hermes'
<tool_call>; LongCat's <longcat_tool_call>), each dialect adding what its own bodies hold.

The tag is the explicit signal, so inside it a malformed object is salvaged for the repair layer;
a tag left open at the end of the text with unfinished JSON is a truncated call (reported, never run).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import (
    SCAN_ONCE,
    calls_from_value,
    close_call,
    complete_json,
    decode_at,
    json_end,
    salvage_call,
    skip_ws,
)
from agentcli.wire.dialects._seen import SHORT, finder, locate
from agentcli.wire.types import Candidate


def _may_open_json(text: str, start: int, end: int) -> bool:
    """The body text[start:end] may strip to a JSON object or list: its first character past plain
    whitespace is a bracket, or other whitespace `str.strip` would also drop. Asked before the body
    and the raw call are cut out of a long reply only to be turned down."""
    at = skip_ws(text, start)
    return at < end and (text[at] in "{[" or text[at].isspace())


def _json_close(text: str, body_start: int, open_tag: str, close_tag: str, close_at: int, nxt: int) -> int | None:
    """Where the close tag after a JSON body stands when a tag written inside one of its strings
    came first (`{"text": "a </tool_call> b"}`); None when the first close tag is the body's own.
    The scan stops at the next opening tag after the first close (or the end), so each body is
    read once whatever its strings hold."""
    j = skip_ws(text, body_start)
    if j >= len(text) or text[j] not in "{[":
        return None
    if close_at >= 0:
        before = close_at
        while before > j and text[before - 1] in " \t\r\n":
            before -= 1
        if text[before - 1] in "}]":
            return None  # the body ends its JSON right there: the first close tag is its own
    stop = len(text)
    if close_at >= 0:
        after = locate(text, open_tag, close_at + len(close_tag))
        stop = after if after >= 0 else len(text)
    elif nxt >= 0:
        return None
    end = json_end(text, j, stop)
    if end is None:
        return None
    k = skip_ws(text, end)
    if k == close_at or not text.startswith(close_tag, k):
        return None
    return k


def frame_lane(text: str, open_tag: str, close_tag: str,
               read: Callable[[Any, str], list[Candidate]]) -> tuple[list[Candidate], str] | None:
    """(calls, text left) of a reply whose calls are each one JSON value in a tag (Dialect.lane):
    from the first open tag, the value decoded in place past whitespace, its close tag right after
    it (past whitespace again), and the next tag, if any, after whitespace alone; `read(value, raw
    tag)` gives the value's calls (none: not the usual reply). The decoder reads each value once,
    so a tag quoted in one of its strings is read as text, where the full path's searches need the
    mask. None for any other reply (the full path reads it)."""
    start = text.find(open_tag)
    if start < 0:
        return None
    olen, clen = len(open_tag), len(close_tag)
    starts = text.startswith
    cands: list[Candidate] = []
    kept = [text[:start]]
    pos = start
    while True:
        body = skip_ws(text, pos + olen)
        if not (starts("{", body) or starts("[", body)):
            return None
        try:
            value, end = SCAN_ONCE(text, body)
        except (ValueError, RecursionError, StopIteration):
            return None
        end = skip_ws(text, end)
        if not starts(close_tag, end):
            return None
        stop = end + clen
        found = read(value, text[pos:stop])
        if not found:
            return None
        cands.extend(found)
        if len(cands) >= MAX_CALLS:
            return None  # a flood: the full path keeps the first MAX_CALLS
        nxt = skip_ws(text, stop)
        if not starts(open_tag, nxt):
            kept.append(text[stop:])
            return cands, "".join(kept)
        kept.append(text[stop:nxt])
        pos = nxt


class TaggedJsonDialect(Dialect):
    """<tag>{"name": .., "arguments": ..}</tag>; several objects (or an array) per tag are allowed."""

    # Whether every body this dialect reads strips to a JSON object or list (its _parse_body turns
    # anything else down): such a body is checked in place (_may_open_json) before the body and the
    # raw call are cut out of the reply, a copy of a long argument's text each, only to be turned
    # down (another family's markup in the same tag: `<tool_call>\n<function=f>`).
    json_bodies = False

    def __init__(self, name: str, tag: str) -> None:
        self.name = name
        self.open = f"<{tag}>"
        self.close = f"</{tag}>"
        self.markers = (self.open,)
        self.empty_lists = ((self.open, self.close),)
        # the lane's frame (frame_lane): outside its JSON strings, every `<` of a reply it takes opens one
        self.lane_tokens = (self.open, self.close)

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        open_tag, close_tag = self.open, self.close
        # tags looked for where their rare character stands; in a short reply, plainly (no Python
        # call between: the search of a few hundred characters costs less than the call)
        find = finder(text, SHORT)
        start = find(open_tag)
        if start < 0:
            return [], text
        out: list[Candidate] = []
        kept: list[str] = []
        keep_from = 0  # the start of the text kept since the last call taken (cut out when the parse took one)
        olen, clen = len(open_tag), len(close_tag)
        close_at = -2  # the next closing tag, found once and reused until passed (-1: none left)
        taken = False
        # this class's own body reader reads JSON alone; a dialect that reads its bodies otherwise
        # (argument pairs) gets every body
        json_only = self.json_bodies or type(self)._parse_body is TaggedJsonDialect._parse_body
        while start >= 0:
            body_start = start + olen
            if close_at != -1 and close_at < body_start:
                close_at = find(close_tag, body_start)
            end = close_at
            # An unclosed tag ends at the next opening tag or at the end of the text.
            nxt = find(open_tag, body_start)
            # a body ending with its bracket right before the close tag: that tag is its own
            # (_json_close's first answer, asked here without a call)
            before = end
            while before > body_start and text[before - 1] in " \t\r\n":
                before -= 1
            past = None if end >= 0 and before > body_start and text[before - 1] in "}]" else \
                _json_close(text, body_start, open_tag, close_tag, end, nxt)
            if past is not None:  # the tags written inside the JSON's strings are its text
                end, nxt = past, find(open_tag, past)
                close_at = end
            closed = end >= 0 and (nxt < 0 or end < nxt)
            if not closed:
                end = nxt if nxt >= 0 else len(text)
            stop = end + clen if closed else end
            cands = self._parse_body(text[body_start:end], text[start:stop], closed) \
                if not json_only or _may_open_json(text, body_start, end) else None
            if cands is not None:  # else not a JSON call: its text stays for other dialects
                taken = True
                kept.append(text[keep_from:start])
                keep_from = stop
                out.extend(cands)
            start = nxt if nxt < 0 or nxt >= stop else find(open_tag, stop)
        if not taken:  # every tag left as it stood: the text itself
            return out, text
        kept.append(text[keep_from:])
        return out, "".join(kept)

    def lane(self, text: str) -> tuple[list[Candidate], str] | None:
        """The usual reply read from the raw text (Dialect.lane, frame_lane): what the full path's
        bodies read besides (several values in one tag, salvaged JSON, another body form) is left
        to it."""
        name = self.name
        return frame_lane(text, self.open, self.close, lambda value, raw: [
            Candidate(n, args, raw, name, id=cid) for n, args, cid in calls_from_value(value, need_args=False) or ()])

    def _parse_body(self, body: str, raw: str, closed: bool) -> list[Candidate] | None:
        src = body.strip()
        if not src or src[0] not in "{[":
            return None
        found: list[Candidate] = []
        i, n = 0, len(src)
        while True:
            hit = decode_at(src, i)
            if hit is None:
                break
            calls = calls_from_value(hit[0], need_args=False)
            if calls is None and isinstance(hit[0], list):
                # Inside the call tag, a stray non-object entry beside call objects is junk, not a
                # reason to lose the calls: [{call}, "junk"] holds the one call.
                calls = calls_from_value([v for v in hit[0] if isinstance(v, dict)], need_args=False)
            if calls is None:
                return found or None
            for name, args, cid in calls:
                found.append(Candidate(name, args, raw, self.name, id=cid))
            i = hit[1]
            if i == n:  # the usual case: the body is exactly one call
                return found
            i = skip_ws(src, i)
            if i < n and src[i] in ",;":
                i = skip_ws(src, i + 1)
            if i >= n or src[i] not in "{[":
                break
        rest = src[i:].strip()
        if not rest:
            return found
        # Malformed JSON inside the tag: salvage the name, let the repair layer fix the arguments.
        salvaged = salvage_call(rest)
        if salvaged is None:
            return found or None
        name, args = salvaged
        if not closed and not complete_json(rest):
            shut = close_call(rest) if rest[0] == "{" else None
            if shut is not None:  # only the object's own brace is missing at the end of the output
                fix = ("close_brackets", f"the {shut[0]} call object was missing {len(shut[3])} closing brace(s) at the end")
                found.append(Candidate(shut[0], shut[1], raw, self.name, id=shut[2], fixes=(fix,)))
                return found
            found.append(Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)"))
        else:
            found.append(Candidate(name, args, raw, self.name))
        return found
