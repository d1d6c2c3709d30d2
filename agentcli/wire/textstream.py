"""Streaming detector for calls written into text: show prose at once, hold back what may be a call.

It only decides what is safe to show. The final calls come from `pipeline.finalize` on the whole
text, so a wrong guess here costs display latency, never correctness. Every byte is scanned a
bounded number of times (O(n) for the whole stream, whatever the chunking).
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from agentcli.core.events import StreamEvent, StreamKind
from agentcli.core.lazy import lazy_pattern
from agentcli.wire import dialects
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.pipeline import run_dialects
from agentcli.wire.types import Candidate, ParseContext

_NAME_RX = lazy_pattern(
    r'"(?:name|tool|tool_name|function)"\s*:\s*"([A-Za-z_][\w.\-:/]{0,127})"'
    r"|<function=([^>\s]{1,128})>"
    r"""|invoke name=["']([^"'\s]{1,128})["']"""
    r"|\[TOOL_CALLS\]\s*([A-Za-z_][\w.\-]{0,127})\s*(?:\[|\{)"
    # A pythonic name starts where a word starts: tried from inside a long word it would re-read up
    # to 128 characters at each position of the window, on every small delta.
    r"|([A-Za-z_](?<![\w.][A-Za-z_])[\w.]{0,127})\((?=[\w\s\"')\]]|$)"
)
_SCAN = lazy_pattern(r'[{}\[\]"]')
_IN_STRING = lazy_pattern(r'["\\]')
_TAG_CHARS = lazy_pattern(r"<[\w.\-:/|｜]{0,40}$")
_LEAD = lazy_pattern(r"[A-Za-z_][\w.\-]{0,63}")
_LOOKBACK = 256
_PIECE = 512  # the largest delta handled in one step; longer ones are split
# The current line's text already shown, kept while it is this short: a call id may stand before a
# marker on its line (Kimi `NAME:0<|tool_call_argument_begin|>`) and the final parse reads it.
_LINE_KEEP = 160
_REGIONS = frozenset(("held", "fence", "brace"))
_FENCE_LINE = lazy_pattern(r"[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*")  # name patterns are shorter than this; rescanning it keeps the cost linear


class _Brackets:
    """Incremental bracket balance over JSON-ish text; strings are skipped with escapes honoured."""

    __slots__ = ("depth", "in_str", "esc")

    def __init__(self) -> None:
        self.depth = 0
        self.in_str = False
        self.esc = False

    def feed(self, s: str) -> int | None:
        """Scan the next piece `s` of the text (state carries over from the previous pieces); index in
        `s` just past the balancing bracket, or None."""
        i, n = 0, len(s)
        while i < n:
            if self.in_str:
                if self.esc:
                    self.esc, i = False, i + 1
                    continue
                m = _IN_STRING.search(s, i)
                if not m:
                    i = n
                    break
                if m.group() == "\\":
                    if m.end() < n:
                        i = m.end() + 1
                    else:
                        self.esc, i = True, n
                    continue
                self.in_str, i = False, m.end()
                continue
            m = _SCAN.search(s, i)
            if not m:
                i = n
                break
            c, i = m.group(), m.end()
            if c == '"':
                self.in_str = True
            elif c in "{[":
                self.depth += 1
            else:
                self.depth -= 1
                if self.depth <= 0:
                    return i
        return None


class _Detector(NamedTuple):
    markerless: tuple[Any, ...]  # dialects with no marker (JSON in text): brackets and fences open regions
    markers: tuple[str, ...]  # every marker of the chain, longest first
    trigger: re.Pattern[str]  # where a region may open
    marker_rx: re.Pattern[str] | None
    prefixes: frozenset[str]  # the partial markers a chunk may end in (held back until the next one)
    maxlen: int
    think_close: dict[str, str]  # every family's reasoning opener -> its closer (_markup.collected)


@functools.lru_cache(maxsize=64)
def _detector(names: tuple[str, ...], tools: tuple[str, ...]) -> _Detector:
    """What a stream over these dialects looks for, built once per chain and offered tools: the
    same few come back every turn, and building it (about 300 markers and their prefixes) cost
    more than reading a short reply."""
    rows = []
    for n in names:
        try:
            rows.append((n, dialects.declared(n)))  # data: a dialect's module is imported only to read with it
        except Exception:  # noqa: BLE001 - a missing dialect module only narrows detection
            continue
    found: set[str] = set()
    markerless = []
    for n, d in rows:
        found.update(m for m in (*d.markers, *d.stream_markers) if m)
        if d.offered_only:
            found.update(f"<{t}>" for t in tools)
        elif not d.markers:  # offered-only forms need the tools
            try:
                markerless.append(dialects.get(n))
            except Exception:  # noqa: BLE001 - as above
                continue
    markers = tuple(sorted(found, key=len, reverse=True))
    think_close = _markup.collected().close_of
    triggers = [re.escape(m) for m in markers] + [re.escape(o) for o in think_close]
    holds = set(markers) | set(think_close)
    if markerless:
        triggers += [r"\{", r"\[", "```", "~~~"]
        holds |= {"```", "~~~"}
    return _Detector(
        tuple(markerless), markers, re.compile("|".join(triggers)),
        lazy_pattern("|".join(re.escape(m) for m in markers)) if markers else None,  # read in a held region only
        frozenset(m[:k] for m in holds for k in range(1, len(m))), max((len(m) for m in holds), default=1),
        think_close,
    )


_markup.on_change(_detector.cache_clear)


class TextStream:
    """Per-stream state over the text dialects in `parsers`: feed text deltas, then flush().
    `ctx` (the offered tools) lets it hold the forms only an offered tool's name marks (`<read_file>`)."""

    def __init__(self, parsers: tuple[str, ...], ctx: ParseContext | None = None) -> None:
        self._ctx = ctx
        self._names = [n for n in dict.fromkeys(parsers) if n in dialects.DIALECTS]
        det = _detector(tuple(self._names), tuple(ctx.tools) if ctx is not None else ())
        self._markerless, self._markers, self._trigger, self._marker_rx, self._prefixes, self._maxlen = det[:6]
        self._think_close_of = det.think_close
        self._buf = ""  # text / think modes: the undecided tail (small)
        self._mode = "text"  # text | think | held | fence | brace
        self._think_close = "</think>"  # the closer of the reasoning block being read
        self._prev = "\n"  # last character already consumed (line-start detection)
        self._started = False  # anything decided yet (the opening line is special)
        self._announced = 0
        self._shown_line: str | None = ""  # text shown since the last newline; None when longer than _LINE_KEEP
        self._lead = ""  # that line's text when the current region opened
        self._shown_any = False  # any visible text shown yet (a reply that is one broken call shows none)
        self._enter_text()

    # --- public ----------------------------------------------------------------------------

    def feed(self, delta: str) -> list[StreamEvent]:
        if len(delta) > _PIECE:
            # Each region and hold point works on what is buffered, so one huge delta is read as
            # many small ones (the result does not depend on the chunking): linear, not quadratic.
            events: list[StreamEvent] = []
            for i in range(0, len(delta), _PIECE):
                events += self._feed(delta[i:i + _PIECE])
            return events
        return self._feed(delta)

    def _feed(self, delta: str) -> list[StreamEvent]:
        if not delta:
            return []
        if self._mode in _REGIONS:
            events: list[StreamEvent] = []
            self._region_feed(events, delta)
            events += self._process(final=False)
            return events
        self._buf += delta
        return self._process(final=False)

    def flush(self) -> list[StreamEvent]:
        """End of the message: nothing can become a call any more; emit what is left."""
        events = self._process(final=True)
        if self._mode in _REGIONS:
            region = "".join(self._parts)
            lead = self._lead
            cands, rest = run_dialects(lead + region, self._names, self._ctx)
            if lead:  # the lead was shown already: drop what is left of it
                k = 0
                while k < len(lead) and k < len(rest) and lead[k] == rest[k]:
                    k += 1
                rest = rest[k:]
            for cand in cands[self._region_announced:]:
                events.append(self._start(cand.name))
            whole = self._whole_call(lead + rest) if not cands and not lead else None
            if whole is not None:
                if not self._region_announced:
                    events.append(self._start(whole))
            elif rest:
                events.append(StreamEvent(StreamKind.TEXT, text=rest))
        elif self._buf:
            kind = StreamKind.THINKING if self._mode == "think" else StreamKind.TEXT
            whole = self._whole_call(self._buf) if kind is StreamKind.TEXT else None
            if whole is not None:
                events.append(self._start(whole))
            else:
                events.append(StreamEvent(kind, text=self._buf))
        self._buf = ""
        self._enter_text()
        return events

    # --- internals -------------------------------------------------------------------------

    def _whole_call(self, text: str) -> str | None:
        """The tool named by `text` when, with nothing shown before it, it is a reply of one broken
        call object the final parse repairs into a call (pipeline: whole_call.whole_reply_call)."""
        ctx = self._ctx
        if self._shown_any or ctx is None or not ctx.tools or not ctx.repair or not text.strip():
            return None
        from agentcli.wire import repair, whole_call

        got = whole_call.whole_reply_call(text, ctx.tools, repair.RepairBudget())
        return got[0] if got is not None else None

    def _start(self, name: str) -> StreamEvent:
        ev = StreamEvent(StreamKind.TOOL_START, index=self._announced, name=name)
        self._announced += 1
        self._region_announced += 1
        return ev

    def _emit(self, events: list[StreamEvent], kind: StreamKind, upto: int) -> None:
        if upto <= 0:
            return
        chunk, self._buf = self._buf[:upto], self._buf[upto:]
        self._prev = chunk[-1]
        if kind is StreamKind.TEXT:
            self._shown_any = self._shown_any or bool(chunk.strip())
            nl = chunk.rfind("\n")
            line = chunk[nl + 1:] if nl >= 0 else (None if self._shown_line is None else self._shown_line + chunk)
            self._shown_line = line if line is not None and len(line) <= _LINE_KEEP else None
        if events and events[-1].kind == kind and kind in (StreamKind.TEXT, StreamKind.THINKING):
            events[-1].text += chunk
        else:
            events.append(StreamEvent(kind, text=chunk))

    def _drop(self, upto: int) -> None:
        self._prev = self._buf[upto - 1] if upto > 0 else self._prev
        self._buf = self._buf[upto:]

    def _process(self, final: bool) -> list[StreamEvent]:
        """Text and think modes work on self._buf; a region leaves self._buf empty."""
        events: list[StreamEvent] = []
        while self._buf and self._mode not in _REGIONS:
            if self._mode == "text":
                if not self._text(events, final):
                    break
            elif not self._think(events, final):
                break
        return events

    def _enter_text(self) -> None:
        self._mode = "text"
        self._parts: list[str] = []
        self._rlen = 0

    def _enter_region(self, events: list[StreamEvent], mode: str, start: int, scan_from: int = 0) -> None:
        """self._buf[start:] opens a region of `mode`; it is fed through the region scanners."""
        text, self._buf = self._buf[start:], ""
        self._mode = mode
        self._lead = (self._shown_line or "") if mode == "held" else ""
        self._parts = []
        self._rlen = 0
        self._region_announced = 0
        self._need_marker = False
        self._nwin = ""  # held: recent text for name patterns
        self._ncur = 0
        self._mwin = ""  # recent text for marker patterns
        self._brackets = _Brackets()
        self._fence_opened = False
        self._line = ""
        self._line_abs = 0
        self._line_long = False
        if scan_from:  # a name line before the brace (functionary): region text, not brace-scanned
            self._parts.append(text[:scan_from])
            self._rlen = scan_from
            self._mwin = text[:scan_from][-self._maxlen:]
            text = text[scan_from:]
        self._region_feed(events, text)

    def _region_feed(self, events: list[StreamEvent], new: str) -> None:
        """Scan only the new text of a region (plus a short overlap): linear over the stream."""
        if not new:
            return
        base = self._rlen
        self._parts.append(new)
        self._rlen += len(new)
        mode = self._mode
        if mode != "held" and self._marker_rx is not None:
            win = self._mwin + new
            if self._marker_rx.search(win):
                # A real marker inside a soft region: finalize will read it, so hold like a marker.
                self._mode = mode = "held"
                self._nwin, self._ncur = "".join(self._parts), 0
                self._held(events, "")
                return
            self._mwin = win[-self._maxlen:]
        if mode == "held":
            self._held(events, new)
        elif mode == "brace":
            end = self._brackets.feed(new)
            if end is not None:
                self._close_region(events, base + end)
        else:
            end = self._fence_feed(new, base)
            if end is not None:
                self._close_region(events, end)

    def _close_region(self, events: list[StreamEvent], end: int) -> None:
        """A soft region closed at `end`: drop it if a markerless dialect reads it as calls, else show it."""
        whole = "".join(self._parts)
        region, rest = whole[:end], whole[end:]
        cands: list[Candidate] = []
        # Every markerless form needs a brace (JSON) or a parenthesis (pythonic); past the call budget
        # the final parse leaves calls as text, so they are shown as text here too.
        readable = self._announced < MAX_CALLS and ("{" in region or "(" in region)
        for d in self._markerless if readable else ():
            try:
                cands, _ = d.parse(region)
            except Exception as exc:  # noqa: BLE001
                from agentcli.wire import failures

                failures.record(f"stream detector {d.name}", exc)
                cands = []
            if cands:
                break
        if cands:
            for cand in cands:
                events.append(self._start(cand.name))
        elif region and self._whole_call(region) is not None:
            # A broken call object that may be the whole reply: held to the end of the message,
            # where the final parse repairs it (or it is shown, if more text follows).
            self._mode = "held"
            self._lead, self._nwin, self._ncur, self._need_marker = "", "", 0, False
            return
        elif region:
            self._buf = region
            self._emit(events, StreamKind.TEXT, len(region))
        self._prev = region[-1] if region else self._prev
        self._enter_text()
        self._buf = rest  # the caller's _process loop goes on with it (no recursion: a run of
        # thousands of fences in one delta would otherwise nest one call per region)

    def _fence_feed(self, new: str, base: int) -> int | None:
        """Offset just past the closing fence line, or None; only whole short lines are examined."""
        text = self._line + new
        start = self._line_abs if self._line else base
        pos = 0
        while True:
            nl = text.find("\n", pos)
            if nl < 0:
                break
            if not self._fence_opened:
                self._fence_opened = True
            elif not self._line_long and _FENCE_LINE.fullmatch(text, pos, nl):
                return start + nl + 1
            self._line_long = False
            pos = nl + 1
        rest = text[pos:]
        if len(rest) > 64:  # a fence line is short: remember only that this line is not one
            self._line_long = True
            rest = ""
        self._line = rest
        self._line_abs = start + pos
        return None

    def _line_start(self, p: int) -> bool:
        j = p
        while j > 0 and self._buf[j - 1] in " \t" and p - j < 3:
            j -= 1
        return (self._buf[j - 1] if j > 0 else self._prev) == "\n"

    def _text(self, events: list[StreamEvent], final: bool) -> bool:
        """Emit text up to the first hold point; True when the mode changed and work remains."""
        buf = self._buf
        pos = 0
        if not self._started and self._markerless:
            # A message that opens with a bare name line may be `name\n{json}` (functionary v3.2).
            m = _LEAD.match(buf)
            if m and not final:
                end = m.end()
                if end == len(buf) or (buf[end] == "\n" and end + 1 == len(buf)):
                    return False  # still growing: wait for the next character
                if buf[end] == "\n" and buf[end + 1] == "{":
                    self._started = True
                    self._enter_region(events, "brace", 0, scan_from=end + 1)
                    return self._mode not in _REGIONS  # closed already: go on with the rest
            self._started = True
        while True:
            m = self._trigger.search(buf, pos)
            if not m:
                keep = 0 if final else self._unsafe_tail(buf)
                self._emit(events, StreamKind.TEXT, len(buf) - keep)
                return False
            tok, p = m.group(), m.start()
            if tok in self._think_close_of:
                self._emit(events, StreamKind.TEXT, p)
                self._drop(len(tok))
                self._think_close = self._think_close_of[tok]
                self._mode = "think"
                return True
            if tok in ("```", "~~~"):
                if not self._line_start(p):
                    pos = m.end()
                    continue
                self._emit(events, StreamKind.TEXT, p)
                self._enter_region(events, "fence", 0)
                return self._mode not in _REGIONS
            if tok in ("{", "["):
                begun = self._marker_begun(buf, p) if not final else -1
                if begun >= 0:
                    # the bracket is inside a marker still arriving (`]<]minimax[>[<tool_c`): the
                    # whole marker opens the region, not this bracket
                    self._emit(events, StreamKind.TEXT, begun)
                    return False
                if not final and buf[p:] in self._prefixes:
                    # `[TH` may still become `[THINK]` (or a `[`-token marker): wait for more
                    self._emit(events, StreamKind.TEXT, p)
                    return False
                self._emit(events, StreamKind.TEXT, p)
                self._enter_region(events, "brace", 0)
                return self._mode not in _REGIONS
            self._emit(events, StreamKind.TEXT, _tag_start(buf, p))
            self._enter_region(events, "held", 0)
            return self._mode not in _REGIONS

    def _marker_begun(self, buf: str, p: int) -> int:
        """Where a marker begun before `p` and still arriving starts (the tail of `buf` from there
        is one of its prefixes), or -1."""
        for k in range(min(self._maxlen - 1, p), 0, -1):
            if len(buf) - p + k < self._maxlen and buf[p - k:] in self._prefixes:
                return p - k
        return -1

    def _unsafe_tail(self, buf: str) -> int:
        """Length of the end of buf that may still grow into a marker or a tag."""
        keep = 0
        for k in range(min(self._maxlen - 1, len(buf)), 0, -1):
            if buf[-k:] in self._prefixes:
                keep = k
                break
        m = _TAG_CHARS.search(buf, max(0, len(buf) - 42))
        if m:
            keep = max(keep, len(buf) - m.start())
        if keep:
            keep = len(buf) - _tag_start(buf, len(buf) - keep)  # "<ns:" before a marker's prefix
        return keep

    def _think(self, events: list[StreamEvent], final: bool) -> bool:
        close = self._think_close
        e = self._buf.find(close)
        if e >= 0:
            self._emit(events, StreamKind.THINKING, e)
            self._drop(len(close))
            self._mode = "text"
            return True
        keep = 0
        if not final:
            for k in range(min(len(close) - 1, len(self._buf)), 0, -1):
                if self._buf.endswith(close[:k]):
                    keep = k
                    break
        self._emit(events, StreamKind.THINKING, len(self._buf) - keep)
        return False

    def _held(self, events: list[StreamEvent], new: str) -> None:
        """Inside a call region until flush: announce names as they appear, one per call marker."""
        win = self._nwin + new
        cur = self._ncur
        while True:
            if self._need_marker:
                m = self._marker_rx.search(win, cur) if self._marker_rx else None
                if not m:
                    cur = max(cur, len(win) - self._maxlen)
                    break
                self._need_marker = False
                cur = m.start()
            m = _NAME_RX.search(win, cur)
            if not m:
                cur = max(cur, len(win) - _LOOKBACK)
                break
            events.append(self._start(next(g for g in m.groups() if g)))
            cur = m.end()
            self._need_marker = True
        cut = max(0, min(cur, len(win) - _LOOKBACK))
        self._nwin, self._ncur = win[cut:], cur - cut


def _tag_start(buf: str, p: int) -> int:
    """Back up from a marker to the '<' that opens its tag (`<ns:invoke name=`, `<function_calls>`)."""
    j = p
    while j > 0 and p - j < 40 and (buf[j - 1].isalnum() or buf[j - 1] in "_.-:/|｜"):
        j -= 1
    if j > 0 and buf[j - 1] == "<":
        return j - 1
    return p
