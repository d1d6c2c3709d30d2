"""The composite parse: native candidates + text dialects + repair -> one ParsedResponse.

    reasoning split (<think>) -> dialect chain over the remaining text -> merge with native
    candidates -> resolve names -> decode / repair / coerce arguments -> ToolCalls

Pure and total: any text in, a ParsedResponse out. Text inside reasoning is never read for calls.
"""

from __future__ import annotations

import bisect
import dataclasses
import functools
import json
import re
import sys
from typing import Any, NamedTuple

from agentcli.core.lazy import lazy_pattern
from agentcli.core.types import ParsedResponse, Repair, ToolCall
from agentcli.wire import dialects, failures, repair, whole_call
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._opaque import MASK_OFF, MASKED_FIRSTS, hides, mask, quotes_clear
from agentcli.wire.dialects._seen import (
    SHORT,
    Seen,
    count_char,
    find_long,
    finder,
    grouped,
    holds,
    holds_any,
    locate,
    near,
    rank,
)
from agentcli.wire.dialects._seen import key as rare_key
from agentcli.wire.dialects._seen import lend as _lend
from agentcli.wire.types import Candidate, NativeParse, ParseContext


class _CallSpans:
    """The [start, end) regions of `text` inside call wrappers (an unclosed one runs to the end),
    merged; found in one pass per wrapper and asked by position with a binary search.

    An unclosed wrapper covers the text from its opener to the end, so every later wrapper is read
    only up to there (`cover`): a region starting inside the cover adds nothing to the merged
    regions, and a close at or past it ends a region where the cover goes on anyway. A reply dense
    in wrappers' openers with their closes absent (each close looked for over the whole reply, ten
    times) pays that walk once."""

    def __init__(self, text: str, seen: Seen | None = None, extra: tuple[tuple[str, str], ...] = ()) -> None:
        """`seen`: the text's marker index, when the caller holds one (it answers each wrapper from
        the places it already found); `extra`: wrappers of this reply's own (_tool_tags)."""
        spans: list[tuple[int, int]] = []
        wrappers = _markup.collected().call_wrappers
        if seen is None and len(text) < SHORT and _wrapper_opens().search(text) is None:
            wrappers = ()  # a short reply with no wrapper at all (one regex pass, not a scan per wrapper)
        if extra:
            wrappers = (*wrappers, *extra)
        cover = len(text) + 1  # from here on lies within an unclosed wrapper's region (past the end: none yet)
        for open_tag, close_tag in wrappers:
            # most wrappers are absent: a memchr on a rare character says so
            if not (open_tag in seen if seen is not None else holds(text, open_tag)):
                continue
            pos = 0
            # an opener whose region would start at the cover or past it adds nothing
            while (o := text.find(open_tag, pos, cover - 1)) != -1:
                start = o + len(open_tag)
                # a close starting at the cover or past it ends the region within the cover: as none
                c = text.find(close_tag, start, cover - 1 + len(close_tag))
                if c == -1:
                    spans.append((start, len(text)))
                    cover = start
                    break
                spans.append((start, c))
                pos = c + len(close_tag)
        merged: list[tuple[int, int]] = []
        for a, b in sorted(spans):
            if merged and a <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], b))
            else:
                merged.append((a, b))
        self.starts = [a for a, _ in merged]
        self.spans = merged

    def inside(self, at: int) -> bool:
        i = bisect.bisect_right(self.starts, at) - 1
        return i >= 0 and at < self.spans[i][1]


@functools.cache
def _wrapper_opens() -> re.Pattern[str]:
    """Every call wrapper's opening tag as one pattern: it finds none in a text exactly when no
    wrapper opens there (it is tried at every place)."""
    tags = sorted({o for o, _ in _markup.collected().call_wrappers}, key=lambda t: (-len(t), t))
    return re.compile("|".join(re.escape(t) for t in tags) or "(?!)")


def split_thinking(text: str, seen: Seen | None = None, extra: tuple[tuple[str, str], ...] = ()) -> tuple[str, str]:
    """(text without reasoning, reasoning). Handles <think>..</think>, an unclosed <think> at the end,
    and a leading reasoning that only ends with </think> (Qwen3 / DeepSeek-R1 templates open it);
    likewise every reasoning pair and split the dialects declare (_markup.collected). `extra`: the
    reply's own call wrappers besides the declared ones (_tool_tags)."""
    if not _holds_markup(text, seen):
        return text, ""
    usual = _one_leading_pair(text, seen if seen is not None and seen.text is text else None)
    if usual is not None:
        return usual
    markup = _markup.collected()
    thoughts: list[str] = []
    live = seen if seen is not None and seen.text is text else None  # the index, while the text is its text

    def has(tag: str) -> bool:
        return tag in live if live is not None and live.text is text else holds(text, tag)

    for splitter in markup.reasoning_splits:
        if has(splitter.trigger):
            text, more = splitter.split(text)
            thoughts.extend(more)
    probed: tuple[str, frozenset[str]] | None = None  # a short text and the probes it holds
    for (open_tag, close_tag), probes in _pair_probes():  # each pair's tags looked for where their rare characters stand
        if len(text) < SHORT and probes:  # a pair's tags both hold one of its probes: none there, neither tag
            if probed is None or probed[0] is not text:  # asked again of a text a split changed
                probed = (text, _probes_in(text))
            if probed[1].isdisjoint(probes):
                continue
        elif probes and (live is None or live.text is not text) and not any(holds(text, p) for p in probes):
            continue  # a long text a split changed (no index answers for it): one scan for both tags
        if not has(close_tag) and not has(open_tag):
            continue
        calls = _CallSpans(text, live if live is not None and live.text is text else None, extra)
        start = 0
        orphan = _orphan_close(text, open_tag, close_tag, start, calls)
        while orphan >= 0:  # reasoning runs to the last close tag that has no opener
            thoughts.append(text[start:orphan])
            start = orphan + len(close_tag)
            orphan = _orphan_close(text, open_tag, close_tag, start, calls)
        if start:
            text = text[start:]
            calls = _CallSpans(text, None, extra)
        kept: list[str] = []
        pos = 0
        find = finder(text, SHORT)
        while True:  # tags looked for where their rare character stands (locate)
            s = find(open_tag, pos)
            while s >= 0 and calls.inside(s):  # a tag written in a call's arguments is their text
                s = find(open_tag, s + len(open_tag))
            if s < 0:
                kept.append(text[pos:])
                break
            kept.append(text[pos:s])
            e = find(close_tag, s + len(open_tag))
            if e < 0:
                cut = _calls_opened(text, s + len(open_tag))
                thoughts.append(text[s + len(open_tag):cut])
                kept.append(text[cut:])
                break
            thoughts.append(text[s + len(open_tag):e])
            pos = e + len(close_tag)
        text = "".join(kept)
        if holds(text, close_tag):  # a close tag left with no opener and nothing after it: markup, never text
            text = _drop_outside_calls(text, close_tag, extra)
    return text, "\n\n".join(t.strip() for t in thoughts if t.strip())


def _one_leading_pair(text: str, seen: Seen | None) -> tuple[str, str] | None:
    """split_thinking's answer for the usual reply of a reasoning model, or None for any other: one
    reasoning pair opening the reply (after whitespace), its open and close tag each once, and no
    other reasoning markup anywhere (no other pair's tag, no split's trigger). There the full split
    comes down to cutting that block out: each other pair holds no tag and is passed over; this
    pair's one close has its one opener before it, so no call's arguments change the answer (the
    close is paired whether or not a call wrapper opened before it covers it, and the opener, with
    only whitespace before it, lies in no call); and what is left holds no tag of any pair, none of
    which opens with whitespace, so none can form where the whitespace before the block meets the
    answer (see _leading_openers).

    The close is found from the block's text on (a search as long as the reasoning). The rest is
    asked per markup character, by memchr: where the character stands only inside the pair's two
    tags, no other tag keyed by it can stand anywhere (none can overlap those tags there, see
    _overlaps), nor the pair's tags a second time; where it stands elsewhere too, the tags keyed
    by it are looked for around its places (`near`). No scan of the whole reply per tag."""
    i = 0
    if text[:1].isspace():
        first = _SHOWN.search(text)
        if first is None:
            return None
        i = first.start()
    for lead in _leading_openers().get(text[i : i + 1], ()):
        if text.startswith(lead[0], i):
            break
    else:
        return None
    open_tag, close_tag, groups = lead
    body = i + len(open_tag)
    close = locate(text, close_tag, body)
    if close < 0:
        return None
    for ch, mine, reach, once, never in groups:
        at = text.find(ch)
        if at < 0:  # none of the group (not the pair's own tags: they stand, so their character does)
            continue
        left = mine  # the places of `ch` in the pair's two tags (standing at `i` and `close`): any more?
        while left and at >= 0:
            at = text.find(ch, at + 1)
            left -= 1
        if mine and at < 0:
            continue
        around = near(seen if seen is not None else text, ch, reach, reach)
        where = text if around is None else around  # `ch` stands too often: the text itself is asked
        for tag in once:  # this pair's own tags: each exactly once (the opener at `i`, the close found)
            at = where.find(tag)
            if at < 0 or where.find(tag, at + 1) >= 0:
                return None
        for tag in never:
            if tag in where:
                return None
    return text[:i] + text[close + len(close_tag) :], text[body:close].strip()


_SHOWN = lazy_pattern(r"\S")  # the first character str.isspace() calls no space
# Per markup character (a group of tags keyed by it, see `grouped`): the character; how many times
# the pair's two tags hold it (0 where a tag keyed by it could overlap the pair's tags at one of
# those places: then its places prove nothing); how far around its places a tag of the group
# reaches; the pair's own tags in the group (they stand once); every other tag and trigger in it
# (they stand nowhere).
_Group = tuple[str, int, int, tuple[str, ...], tuple[str, ...]]
_Leading = tuple[str, str, tuple[_Group, ...]]


@functools.cache
def _leading_openers() -> dict[str, tuple[_Leading, ...]]:
    """First character -> (open tag, close tag, the markup groups) for each reasoning pair
    _one_leading_pair may cut out (not one sharing a tag with another pair or a trigger). None
    when a reasoning tag or a trigger opens with whitespace (one could then form where the
    whitespace before a block meets the answer after it) or a call wrapper's opener is all
    whitespace (it could open in the whitespace before a block, and hold the block)."""
    markup = _markup.collected()
    pairs = markup.reasoning_tags
    triggers = tuple(s.trigger for s in markup.reasoning_splits)
    if any(not t or t[0].isspace() for t in (*(t for pair in pairs for t in pair), *triggers)) or \
            any(not o or o.isspace() for o, _ in markup.call_wrappers):
        return {}
    out: dict[str, list[_Leading]] = {}
    for k, (open_tag, close_tag) in enumerate(pairs):
        others = {*(t for j, pair in enumerate(pairs) if j != k for t in pair), *triggers}
        if open_tag == close_tag or open_tag in others or close_tag in others:
            continue
        own = (open_tag, close_tag)
        groups: list[_Group] = []
        for ch, group in grouped(tuple(sorted({*own, *others}))):
            mine = 0 if any(_overlaps(t, own, ch) for t in group) else open_tag.count(ch) + close_tag.count(ch)
            groups.append((ch, mine, max(len(t) for t in group), tuple(t for t in group if t in own),
                           tuple(t for t in group if t not in own)))
        out.setdefault(open_tag[0], []).append((open_tag, close_tag, tuple(groups)))
    return {c: tuple(v) for c, v in out.items()}


@functools.cache
def _leading_tags() -> dict[str, tuple[str, ...]]:
    """First character -> the open tags of _leading_openers: what a reply opening with a block
    _one_leading_pair may cut out opens with (one startswith of a reply)."""
    return {c: tuple(lead[0] for lead in leads) for c, leads in _leading_openers().items()}


def _overlaps(tag: str, own: tuple[str, str], ch: str) -> bool:
    """Whether `tag` can stand with one of its `ch` on a `ch` of one of the pair's tags (`own`)
    written out, other than as that very tag: the characters they would share agree."""
    for mine in own:
        for b, c in enumerate(mine):
            if c != ch:
                continue
            for a, d in enumerate(tag):
                if d != ch or (tag == mine and a == b):
                    continue
                shift = b - a  # where `tag` starts, from the start of `mine`
                if all(tag[k] == mine[shift + k] for k in range(max(0, -shift), min(len(tag), len(mine) - shift))):
                    return True
    return False


def _holds_markup(text: str, seen: Seen | None = None) -> bool:
    """split_thinking's gate: whether `text` holds reasoning markup, asked where each rare character
    stands (holds_any). The markup, not the probes: a probe in letters only (`channel`) has a common
    rarest character and would be looked for in nearly every reply, where its tags hold a `|`."""
    return holds_any(text, _reasoning_markup(), seen)


def _probes_in(text: str) -> frozenset[str]:
    """The reasoning probes `text` holds, each looked for only when its rarest character stands
    in it (a memchr; a scan per probe costs some 0.3 us a KB)."""
    return frozenset(p for ch, group in _probe_groups() if ch in text for p in group if p in text)


@functools.cache
def _pair_probes() -> tuple[tuple[tuple[str, str], frozenset[str]], ...]:
    """Each reasoning pair with the probes its two tags share (a text holding neither holds
    neither tag): a short reply holding one pair's markup asks the other pairs nothing more."""
    markup = _markup.collected()
    return tuple(((o, c), frozenset(p for p in markup.probes if p in o and p in c)) for o, c in markup.reasoning_tags)


@functools.cache
def _probe_groups() -> tuple[tuple[str, tuple[str, ...]], ...]:
    return grouped(_markup.collected().probes)


@functools.cache
def _reasoning_markup() -> tuple[str, ...]:
    """What a long reply holding reasoning markup holds one of: the probes (a part common to a pair's
    two tags, each split's trigger) that hold a markup character, and, for a probe in letters only
    (`channel`, which prose holds as often as its letters), the whole tags holding it. Each is
    looked for where its rarest character stands (Seen), so prose pays a memchr per character."""
    markup = _markup.collected()
    tags = [t for pair in markup.reasoning_tags for t in pair]
    out: list[str] = []
    for probe in markup.probes:
        out.extend([probe] if not probe.isalnum() else [t for t in tags if probe in t])
    return tuple(dict.fromkeys(out))


def _calls_opened(text: str, start: int) -> int:
    """Where reasoning left open at `start` ends: at the first tool-call section token (the model
    called a tool mid-thought without closing it, as Kimi K2.5 does), else at the end of the text."""
    hits = [i for i in (text.find(t, start) for t in _markup.collected().section_openers) if i >= 0]
    return min(hits, default=len(text))


def _drop_outside_calls(text: str, tag: str, extra: tuple[tuple[str, str], ...] = ()) -> str:
    """`text` without `tag` wherever it stands outside a call's arguments."""
    calls = _CallSpans(text, None, extra)
    out: list[str] = []
    pos = 0
    while (at := text.find(tag, pos)) != -1:
        out.append(text[pos:at] if not calls.inside(at) else text[pos : at + len(tag)])
        pos = at + len(tag)
    out.append(text[pos:])
    return "".join(out)


def _orphan_close(text: str, open_tag: str, close_tag: str, start: int = 0, calls: _CallSpans | None = None) -> int:
    """Where the first close tag with no opener before it is (the template opened the reasoning),
    skipping whole pairs quoted inside it and tags inside a call's arguments; -1 when every close has
    its opener, or when the orphan follows a whole pair and ends the text (a stray close after the
    answer, not a reasoning's end)."""
    depth, pos, paired = 0, start, False
    find = finder(text, SHORT)
    c = -1  # the first close from `pos` on outside calls: still it after an opener before it
    while True:
        if c < pos:
            c = find(close_tag, pos)
            while c >= 0 and calls is not None and calls.inside(c):
                c = find(close_tag, c + len(close_tag))
            if c < 0:
                return -1
        o = find(open_tag, pos, c)
        if o >= 0:
            depth += 1
            pos = o + len(open_tag)
            continue
        if depth == 0:
            return -1 if paired and not text[c + len(close_tag):].strip() else c
        depth -= 1
        paired = True
        pos = c + len(close_tag)


def chain(ctx: ParseContext, parsers: tuple[str, ...]) -> list[str]:
    """Dialect names to try, preferred first, each once, unknown names skipped."""
    return list(_chain(tuple(ctx.prefer), tuple(parsers)))


@functools.lru_cache(maxsize=256)
def _chain(prefer: tuple[str, ...], parsers: tuple[str, ...]) -> tuple[str, ...]:
    # The same few (prefer, parsers) pairs come back every turn: decided once.
    return tuple(n for n in dict.fromkeys((*prefer, *parsers)) if n in dialects.DIALECTS)


# Marker occurrences per call a dialect is first given room for: most write one or two (a call
# token, a section token); one that writes more gets a wider look (see _parse_within).
_MARKS_PER_CALL = 4

_Prepared = tuple[dialects.Dialect, tuple[str, ...], bool, "re.Pattern[str] | None"]
# name -> (dialect, markers, name-strict, marker pattern); filled on first use, like the dialect table's own cache.
_PREPARED: dict[str, _Prepared] = {}


def _prepared(name: str) -> _Prepared | None:
    got = _PREPARED.get(name)
    if got is None or name not in dialects.DIALECTS:
        try:
            d = dialects.deferred(name)  # its module is imported when the chain first parses with it
        except (KeyError, ImportError, AttributeError):
            return None
        markers = tuple(m for m in d.markers if m)
        rx = lazy_pattern("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True))) if markers else None
        strict = d.name_strict
        got = _PREPARED[name] = (d, markers, strict, rx)
    return got


@functools.lru_cache(maxsize=256)
def _shortest(markers: tuple[str, ...]) -> int:
    return min(len(m) for m in markers)


@functools.lru_cache(maxsize=256)
def _all_tags(markers: tuple[str, ...]) -> bool:
    return bool(markers) and all("<" in m for m in markers)


# Places of `<` looked at one by one to bound a reply's markers: a marker's rarest character may
# stand in every token of its family (DeepSeek's `▁`), where a count walks the whole reply.
_FEW_TAGS = 16


def _reach(text: str, markers: tuple[str, ...], rx: re.Pattern[str] | None, limit: int,
           seen: str | Seen | None = None) -> int:
    """Where the marker occurrence past the first `limit` starts (the end of the text when there are
    no more than that many). `seen`: the text's index when the chain holds one (the characters it
    looked for already are not looked for again, nor counted when their places are known)."""
    if rx is None or len(text) <= limit * _shortest(markers):
        return len(text)
    index = seen if isinstance(seen, Seen) and seen.wide and seen.text is text else None
    if _all_tags(markers):  # each occurrence of a marker opens at a `<` of its own: a few `<` bound them
        n, i = 0, text.find("<") if index is None else index.first("<")
        while i >= 0 and n < _FEW_TAGS:
            n += 1
            i = text.find("<", i + 1)
        if i < 0 and n * len(markers) <= limit:
            return len(text)
    bound = 0  # each occurrence of a marker holds its rarest character: a count of those bounds them
    for ch, group in grouped(markers):
        if (ch in text) if index is None else index.has(ch):
            bound += (count_char(text, ch) if index is None else index.count(ch)) * len(group)
            if bound > limit:
                break
    else:
        return len(text)
    total = 0
    for marker in markers:
        total += text.count(marker)
        if total > limit:
            break
    else:
        return len(text)
    for k, m in enumerate(rx.finditer(text)):
        if k == limit:
            return m.start()
    return len(text)


def run_dialects(text: str, names: list[str], ctx: ParseContext | None = None) -> tuple[list[Candidate], str]:
    """Each dialect on the text the previous ones left; a dialect that raises is skipped (degrade to text).

    With offered tools, calls from name-strict dialects (JSON in prose) whose name resolves to no
    tool are not calls: their text stays in place; so are embedded calls (in prose, or bare) from
    any dialect, calls in another family's form than the model's own (prose naming `<tool_call>`
    tags), calls inside a fenced code block (a Markdown example of a format), and broken calls
    with no good sibling.
    At most MAX_CALLS calls are read.
    """
    masked = mask(text)
    found, rest, _ = _run_dialects(masked.text, names, ctx, MAX_CALLS)
    return masked.restore_candidates(found), masked.restore(rest)


def _run_dialects(text: str, names: list[str] | tuple[str, ...], ctx: ParseContext | None, limit: int,
                  seen: str | Seen | None = None) -> tuple[list[Candidate], str, bool]:
    """run_dialects reading at most `limit` calls; the flag says calls past the limit were left out.
    `seen`: the text's marker index when the caller already built it (`_seen(text)`)."""
    found: list[Candidate] = []
    capped = False
    if not text:
        return found, text, capped  # a native-call turn's empty text: nothing to read
    whole = text
    index = _chain_index(names if type(names) is tuple else tuple(names))
    if seen is None:
        seen = _seen(text)
    lending = isinstance(seen, Seen) and seen.wide  # the dialects' own token searches consult it (_seen.lend)
    lent = _lend(seen) if lending else None
    try:
        if len(index.names) == 1:
            return _run_one(text, names, index, ctx, limit, seen)
        owning, runnable, turns = index.asked(seen)  # the owners read first (see _ChainIndex.asked)
        readers = 0  # the dialects that read calls: more than one, and the calls are put in text order
        stale = False  # the text changed since `runnable` was asked: asked again only if a dialect is left to try
        lazy = isinstance(owning, _Asked)  # the rest is asked as the reply was (see _ChainIndex.asked)
        # the names that may be runnable, asked first: a set (runnable itself, or _Asked.gate), so a
        # dialect of none of the reply's markers is passed over without a call
        gate = runnable.gate() if isinstance(runnable, _Asked) else runnable
        for name, own_turn in turns:
            if stale:
                if len(found) >= limit:
                    break  # a flood of calls: what is left stays text (and is not asked about again)
                seen = _seen(text)
                if lending:
                    _lend(seen)  # (a stale one lent before answers only for its own text)
                runnable = index.runnable_in(seen, lazy)
                gate = runnable.gate() if isinstance(runnable, _Asked) else runnable
                stale = False
            if own_turn:  # an owner of the reply, with a marker still in the text
                if name not in gate or name not in runnable or name not in owning:
                    continue
            elif name not in gate or name not in runnable or name in owning:
                continue  # no marker of it in the text, or it had its turn among the owners
            budget = limit - len(found)
            if budget <= 0:
                break  # a flood of calls: what is left stays text
            got = _turn(name, index.prepared[name], text, names, ctx, budget, seen)
            if got is None:
                continue
            cands, rest = got
            if len(cands) > budget:
                cands, capped = cands[:budget], True
            found.extend(cands)
            readers += bool(cands)
            if rest is not text and rest != text:  # a copy of the same text (a join, a strip of nothing) changes nothing
                text, stale = rest, True  # a dialect may also drop its own no-op directives (a lone token, "directly answer")
                if not text:
                    break  # the call was the whole reply: no dialect reads anything from nothing
        if readers > 1:
            found = _in_text_order(found, whole)
        return found, (_without_empty_lists(index, text, seen, stale) if text else text), capped
    finally:
        if lending:
            _lend(lent)


def _in_text_order(found: list[Candidate], text: str) -> list[Candidate]:
    """The calls several dialects read, in the order the reply wrote them: an owner of markup a
    model's form shares reads first (GLM-4's `<arg_key>`, which Laguna writes too), and the calls it
    leaves are read by a later dialect, so the chain's list would put a later call first where the
    form forced lists them in order. Each call's place is found after the last of its own reader's
    (a dialect's calls stand in order); a call not found as written keeps its place in the list."""
    last: dict[str, int] = {}
    keyed: list[tuple[int, int, Candidate]] = []
    for k, c in enumerate(found):
        at = find_long(text, c.raw, last.get(c.dialect, 0)) if c.raw else -1
        if at >= 0:
            last[c.dialect] = at + 1
        keyed.append((at if at >= 0 else keyed[-1][0] if keyed else 0, k, c))
    return [c for _, _, c in sorted(keyed, key=lambda t: (t[0], t[1]))]


def _run_one(text: str, names: list[str] | tuple[str, ...], index: _ChainIndex, ctx: ParseContext | None, limit: int,
             seen: str | Seen) -> tuple[list[Candidate], str, bool]:
    """_run_dialects for a chain of one dialect (a forced one): it has no one to order, so the
    chain's bookkeeping (owners, turns, every marker of the chain asked up front, asked again after
    a cut) comes down to one question, whether one of its markers stands in the text, which is
    what the chain's own answer for it says (`present` answers `in`; a dialect with no markers
    looks anywhere). The same turn and the same empty-list cleanup as the chain's."""
    name = index.names[0]
    prep = index.prepared[name]
    markers = prep[1]
    capped = stale = False
    found: list[Candidate] = []
    if limit > 0 and (not markers or _present(seen, markers)):
        got = _turn(name, prep, text, names, ctx, limit, seen)
        if got is not None:
            found, rest = got
            if len(found) > limit:
                found, capped = found[:limit], True
            if rest is not text and rest != text:
                text, stale = rest, True
    return found, _without_empty_lists(index, text, seen, stale), capped


def _present(seen: str | Seen, markers: tuple[str, ...]) -> bool:
    """Whether one of `markers` stands in the text: in a long one asked first of its head (where a
    reply's markup opens, a few hundred characters), then of the index (Seen), which finds every
    place of a marker's rarest character in the whole text."""
    if isinstance(seen, Seen):
        head = seen.text[:_HEAD]
        for m in markers:
            if m in head:
                return True
    for m in markers:
        if m in seen:
            return True
    return False


_HEAD = 512


def _turn(name: str, prep: _Prepared, text: str, names: list[str] | tuple[str, ...], ctx: ParseContext | None,
          budget: int, seen: str | Seen) -> tuple[list[Candidate], str] | None:
    """One dialect's turn in the chain: (its calls kept, the text left), or None when it reads
    nothing here (no tag of an offered tool, a parse that raised, prose about its markup)."""
    d, markers, strict, rx = prep
    if d.offered_only and not (ctx is not None and (
            _names_a_tag(text, ctx, seen) if type(seen) is Seen and seen.wide
            else any(holds(text, f"<{t}>") for t in ctx.tools))):
        return None  # its calls are tags named after offered tools: none of those tags, nothing to read
    got = _parse_within(d, text, markers, rx, budget, seen)
    if got is None:
        return None
    cands, rest, head, tail = got
    if not cands and rest is not text and (_drops_tags(name, text, rest) or _changes_calls(text, rest, ctx)):
        return None  # markup the parse removes is the markup of a call it reports: none here
    if cands and not markers and len(names) > 1:
        wrapped = _inside_wrappers(head, cands, seen if isinstance(seen, Seen) and seen.text is head else None)
        if wrapped:  # another family's call wrapper: that family reads the call, wrapper and all
            cands = [c for c in cands if all(c is not w for w in wrapped)]
            rest = _without(head, cands) + tail
    weak = strict and ctx is not None and name != ctx.prompted
    if cands and d.offered_only:
        offered = ctx.tools if ctx is not None else {}
        kept = [c for c in cands if c.name in offered]
        if len(kept) < len(cands):
            rest = _without(head, kept) + tail
            cands = kept
    elif cands and ctx is not None and ctx.tools:
        stray = weak or (bool(ctx.prefer) and name not in ctx.prefer)  # not the model's own form
        fences = _fence_index(head, seen) if name != ctx.prompted else None  # a prompted fenced form is the call itself
        if stray or fences is not None or any(c.embedded for c in cands):
            kept = [c for c in cands
                    if not (stray or c.embedded or _in_fence(head, c.raw, fences, cands)) or _offered(c.name, ctx)]
        else:
            kept = cands  # none stray, embedded or fenced: every call kept (no call per candidate to say so)
        for c in kept:
            if not c.error:
                break
        else:  # only broken calls to no offered tool: prose naming the markup
            kept = [c for c in kept if _offered(c.name, ctx)]
        if len(kept) < len(cands):
            rest = _without(head, kept) + tail
            cands = kept
    return cands, rest


def _changes_calls(text: str, rest: str, ctx: ParseContext | None) -> bool:
    """Whether `rest`, what a dialect that read no call left of `text`, differs from it inside a
    call wrapper: a family's own tokens it drops (a stray section token, a result token) standing
    in another family's call (a raw parameter value, which the mask does not hide) are that
    call's text, not markup to drop. Asked only of a text changed with no call read."""
    if rest == text:
        return False
    extra = _tool_tags(ctx)
    before = _CallSpans(text, None, extra)
    if not before.spans:
        return False
    after = _CallSpans(rest, None, extra)
    return [text[a:b] for a, b in before.spans] != [rest[a:b] for a, b in after.spans]


def _tool_tags(ctx: ParseContext | None) -> tuple[tuple[str, str], ...]:
    """Each offered tool's tag pair (`<read_file>`, `</read_file>`): the call wrappers of the forms
    whose calls are tags named after offered tools (Dialect.offered_only), which no declaration can
    list. A reasoning tag or a token inside one is the call's text, as in any declared wrapper."""
    if ctx is None or not ctx.tools:
        return ()
    return tuple((f"<{t}>", f"</{t}>") for t in ctx.tools)


@functools.lru_cache(maxsize=64)
def _reads_tool_tags(chain: tuple[str, ...]) -> bool:
    """Whether a dialect of `chain` reads calls written as tags named after offered tools."""
    for name in chain:
        try:
            if dialects.declared(name).offered_only:
                return True
        except (KeyError, ImportError, AttributeError):
            continue
    return False


def _names_a_tag(text: str, ctx: ParseContext, seen: str | Seen) -> bool:
    """Whether `text` holds the tag of an offered tool (`<read_file>`): asked of the text's index
    when it has one (no `<` there, answered already; else around the places of `<` it found)."""
    if isinstance(seen, Seen) and seen.text is text:
        return seen.has("<") and any(f"<{t}>" in seen for t in ctx.tools)
    return any(holds(text, f"<{t}>") for t in ctx.tools)


def _without_empty_lists(index: _ChainIndex, text: str, seen: str | Seen, stale: bool) -> str:
    """`text` without the chain's first kind of empty call list found in it (`<TOOLCALL>[]</TOOLCALL>`
    calls no tool); `seen` answers for the text unless `stale`."""
    empty = index.empty
    if empty is not None:
        if stale:
            seen = _seen(text)
        for o in empty[0]:
            if o in seen:
                return empty[1].sub("", text)  # a list of no calls (`<TOOLCALL>[]</TOOLCALL>`): calls no tool
    return text


_NEAR_GROUP = 4  # markers sharing a character from which they are asked of its neighbourhoods


class _ChainIndex:
    """One parser chain, prepared once: each dialect's markers as a set, every distinct marker of
    the chain, and which dialects own a wrapper. Per reply each distinct marker is asked once
    (`present`), instead of each dialect asking about its own, twice (about 300 checks)."""

    __slots__ = ("names", "prepared", "marker_sets", "markers", "owns", "groups", "_spans", "_by_marker",
                 "_markerless", "_owner_of", "empty", "tags", "_tag_reach", "_tag_spans", "bare_markers",
                 "bare_owns", "_bare_owners", "_plain_turns", "bare_spans", "bare_need", "owns_need", "tag_set",
                 "wide_spans", "wide_need", "wide_owns_need",
                 "_wrapper_tags",
                 "_position", "_lazy_turns")

    # Bytes (of the reply as CPython stores it, sys.getsizeof) from which a reply's markers are
    # asked dialect by dialect whatever dialects its tags name: a scan of the reply per character
    # saved outweighs the Python of asking by turns. Bytes, not characters: a reply holding one
    # emoji is stored four bytes a character, and each scan of it reads four times its length.
    LAZY_FROM = 32768

    def __init__(self, names: tuple[str, ...]) -> None:
        self.prepared: dict[str, _Prepared] = {}
        for name in names:
            prep = _prepared(name)
            if prep is not None:
                self.prepared[name] = prep
        self.names = tuple(self.prepared)
        self.marker_sets = {n: frozenset(p[1]) for n, p in self.prepared.items()}
        owns = {n: tuple(p[0].owns) for n, p in self.prepared.items()}
        self.owns = {n: frozenset(o) for n, o in owns.items() if o}
        self.markers = tuple(dict.fromkeys(m for n in self.names for m in (*self.prepared[n][1], *owns[n])))
        self.groups = grouped(self.markers)
        # Per group: how far before and after its character its markers reach (see near), or
        # None where a marker holds a NUL (the separator of the joined neighbourhoods).
        self._spans = tuple(
            (ch, group, (max(rare_key(m)[1] for m in group), max(len(m) - rare_key(m)[1] for m in group))
             if ch and len(group) > 1 and not any("\0" in m for m in group) else None)
            for ch, group in self.groups)
        by_marker: dict[str, list[str]] = {}
        owner_of: dict[str, list[str]] = {}
        for n in self.names:
            for m in self.marker_sets[n]:
                by_marker.setdefault(m, []).append(n)
            for m in self.owns.get(n, ()):
                owner_of.setdefault(m, []).append(n)
        self._by_marker = {m: tuple(ns) for m, ns in by_marker.items()}
        self._owner_of = {m: tuple(ns) for m, ns in owner_of.items()}
        self._markerless = frozenset(n for n in self.names if not self.prepared[n][1])
        self.empty = _empty_lists(names)  # the chain's empty call lists (asked after its dialects ran)
        # For a long reply (_Asked): the markers holding a `<` (tags and special tokens, some 70),
        # asked at once from the places of that one character; each dialect's other markers and
        # wrappers (`functools`, `Action:`, "```tool_code"), asked when the chain comes to it.
        self.tags = tuple(m for m in self.markers if "<" in m and "\0" not in m)
        # The call wrappers' opening tags that are no marker of the chain (`<invoke`), answered with
        # the tags (`_inside_wrappers` asks them of a generic dialect's call); both learned by the
        # text's index (Seen.learn).
        self._wrapper_tags = tuple(sorted({o for o, _ in _markup.collected().call_wrappers
                                           if "<" in o and "\0" not in o and o not in self.markers}))
        self.tag_set = frozenset((*self.tags, *self._wrapper_tags))
        self._tag_reach = (max((m.index("<") for m in self.tag_set), default=0),
                           max((len(m) - m.index("<") for m in self.tag_set), default=0))
        tags = frozenset(self.tags)
        self._tag_spans = tuple((ch, tuple(m for m in group if m in tags), reach) for ch, group, reach in self._spans
                                if any(m in tags for m in group))
        self.bare_markers = {n: tuple(m for m in self.prepared[n][1] if m not in tags) for n in self.names}
        self.bare_owns = {n: tuple(m for m in owns[n] if m not in tags) for n in self.names}
        self._bare_owners = frozenset(n for n, o in self.bare_owns.items() if o)
        self._plain_turns = tuple((n, False) for n in self.names)
        # The markers holding no `<` grouped by their rarest character, as `present` groups the
        # chain's (see _Asked): per dialect, (group, its markers in that group) for its markers and
        # for its own wrappers, so a dialect's question is a memchr per group not yet asked.
        bare = tuple(dict.fromkeys(m for n in self.names for m in (*self.bare_markers[n], *self.bare_owns[n])))
        # Each group with how far before and after its character its markers reach (see near), or
        # None where a marker holds a NUL.
        self.bare_spans = tuple(
            (ch, group, (max(rare_key(m)[1] for m in group), max(len(m) - rare_key(m)[1] for m in group))
             if ch and not any("\0" in m for m in group) else None)
            for ch, group in grouped(bare))
        at = {m: i for i, (_, group, _) in enumerate(self.bare_spans) for m in group}

        def need(markers: tuple[str, ...]) -> tuple[tuple[int, frozenset[str]], ...]:
            by: dict[int, set[str]] = {}
            for m in markers:
                by.setdefault(at[m], set()).add(m)
            return tuple((g, frozenset(ms)) for g, ms in by.items())

        self.bare_need = {n: got for n in self.names if (got := need(self.bare_markers[n]))}
        self.owns_need = {n: got for n in self.names if (got := need(self.bare_owns[n]))}
        self._index_wide(bare)
        self._position = {n: i for i, n in enumerate(self.names)}
        self._lazy_turns: dict[frozenset[str], tuple[tuple[str, bool], ...]] = {}

    def _index_wide(self, bare: tuple[str, ...]) -> None:
        """The markers holding no `<` for a wide reply (_WideAsked), grouped by as few characters
        as they allow, and each dialect's groups of them."""
        self.wide_spans = tuple(
            (ch, group, (max(m.index(ch) for m in group), max(len(m) - m.index(ch) for m in group))
             if ch and not any("\0" in m for m in group) else None)
            for ch, group in _covering(bare))
        wide_at = {m: i for i, (_, group, _) in enumerate(self.wide_spans) for m in group}

        def wide_need(markers: tuple[str, ...]) -> tuple[tuple[int, tuple[str, ...]], ...]:
            by: dict[int, set[str]] = {}
            for m in markers:
                by.setdefault(wide_at[m], set()).add(m)
            return tuple((g, tuple(m for m in self.wide_spans[g][1] if m in ms)) for g, ms in by.items())

        self.wide_need = {n: wide for n in self.names if (wide := wide_need(self.bare_markers[n]))}
        self.wide_owns_need = {n: wide for n in self.names if (wide := wide_need(self.bare_owns[n]))}

    def present(self, seen: str | Seen) -> frozenset[str]:
        """The chain's markers that stand in the text. Markers are grouped by their rarest character
        (dialects/_seen.py): where that character is absent (one memchr), none of its group is asked;
        where it stands in a few places, the group's markers are asked of the text around those
        places only (`near`: a few dozen characters instead of the reply, once per group)."""
        text = seen.text if isinstance(seen, Seen) else seen
        if not isinstance(text, str):  # any other container answering `in` (asked marker by marker)
            return frozenset(m for ch, group in self.groups if ch in text for m in group if m in seen)
        found: list[str] = []
        for ch, group, reach in self._spans:
            if ch not in text:
                continue
            hay = None
            # Worth it for a group of several markers whose character stands in a few places (on a
            # short reply: under a quarter as many as the markers, a place costing about what four
            # scans of a KB do).
            if reach is not None and len(group) >= _NEAR_GROUP and (
                    isinstance(seen, Seen) or 4 * text.count(ch) < len(group)):
                hay = near(seen, ch, reach[0], reach[1])
            if hay is None:
                found.extend(m for m in group if m in seen)
            else:
                found.extend(m for m in group if m in hay)
        return frozenset(found)

    def runnable(self, present: frozenset[str]) -> frozenset[str] | set[str]:
        """The dialects that can match a text holding `present`: those with one of their markers
        there, and those with no markers (they look anywhere)."""
        if not present:
            return self._markerless
        out = set(self._markerless)
        for m in present:
            out.update(self._by_marker.get(m, ()))
        return out

    def asked(self, seen: str | Seen) -> tuple[frozenset[str] | _Asked, set[str] | frozenset[str] | _Asked,
                                               tuple[tuple[str, bool], ...]]:
        """(the owners, the runnable dialects, the turns) of a text: the reply's owners (whose
        wrapper stands in it) read first, the others after, each in chain order; a dialect reads
        only when one of its markers stands in the text as it is then. On a long reply the markers
        holding `<` are asked at once (`present_tags`) and the others lazily, dialect by dialect,
        group by group (see _Asked): the first to read a call leaves a short rest, and what the later
        ones ask is asked of that rest. That pays when the reader is likely early (an owner's tag
        stands there, or a tag of a dialect in the chain's first half) or when a scan of the reply
        costs more than the Python of asking by turns (LAZY_FROM, in the bytes a pass reads); else,
        and on a short reply, every marker asked at once costs less."""
        if isinstance(seen, Seen):
            text = seen.text
            wide = seen.wide
            tagged = self.present_tags(seen) if (seen.has("<") if wide else "<" in text) else _Asked.NONE
            owners = self.owning(tagged) if tagged else _Asked.NONE
            if owners or (self.bare_spans and (sys.getsizeof(text) >= self.LAZY_FROM
                                               or (tagged and self._early(tagged)))):
                if wide:  # each character asked once, of the index (see _WideAsked)
                    return (_WideAsked(seen, owners, self.wide_owns_need, self.wide_spans, {}),
                            _WideAsked(seen, self.runnable_by(tagged), self.wide_need, self.wide_spans, {}),
                            self.lazy_turns(owners))
                groups: dict[int, frozenset[str]] = {}  # the groups asked so far, shared by the two questions
                return (_Asked(seen, owners, self.owns_need, self.bare_spans, groups),
                        _Asked(seen, self.runnable_by(tagged), self.bare_need, self.bare_spans, groups),
                        self.lazy_turns(owners))
            present = self._long_present(seen, tagged) if tagged else self.present(seen)
        else:
            present = self.present(seen)
        owning = self.owning(present)
        return owning, self.runnable(present), self.turns_of(owning)

    def _early(self, tagged: frozenset[str]) -> bool:
        """Whether a dialect with one of `tagged` among its markers stands in the first half of the
        chain: the reply's reader is likely early, and the later dialects ask of its short rest."""
        half = len(self.names) // 2
        return any(self._position[n] < half for m in tagged for n in self._by_marker.get(m, ()))

    def _long_present(self, seen: Seen, tagged: frozenset[str]) -> frozenset[str]:
        """`present(seen)` from the tags found (`present_tags`) and each group of the other markers."""
        found = set(tagged)
        if seen.wide:
            for ch, group, reach in self.wide_spans:
                if seen.has(ch):  # one memchr per text: none of the group when absent (most are)
                    found.update(_WideAsked.asked_group(seen, ch, group, reach))
            return frozenset(found)
        text = seen.text
        for ch, group, reach in self.bare_spans:
            if ch in text:  # one memchr: none of the group when absent (most are)
                found.update(_Asked.asked_group(seen, ch, group, reach))
        return frozenset(found)

    def runnable_in(self, seen: str | Seen, lazy: bool) -> set[str] | frozenset[str] | _Asked:
        """`asked(seen)`'s runnable dialects alone (the text changed; its owners did not), asked
        lazily when the reply was (`lazy`) and the rest is still long."""
        if isinstance(seen, Seen):
            wide = seen.wide
            tagged = self.present_tags(seen) if (seen.has("<") if wide else "<" in seen.text) else _Asked.NONE
            if lazy:
                if wide:
                    return _WideAsked(seen, self.runnable_by(tagged), self.wide_need, self.wide_spans, {})
                return _Asked(seen, self.runnable_by(tagged), self.bare_need, self.bare_spans, {})
            return self.runnable(self._long_present(seen, tagged) if tagged else self.present(seen))
        return self.runnable(self.present(seen))

    def present_tags(self, seen: Seen) -> frozenset[str]:
        """The chain's markers holding a `<` that stand in a long text: asked of the text around
        the places of `<` (one scan of the text for them all, `near`), or, when `<` stands densely
        (code, HTML), group by group as `present` asks them."""
        hay = near(seen, "<", *self._tag_reach)
        if hay is not None:
            tagged = frozenset(m for m in self.tags if m in hay)
            # exact answers (every tag is asked of the text around every `<`): learned by the index
            seen.learn(self.tag_set, tagged.union([m for m in self._wrapper_tags if m in hay]))
            return tagged
        found: list[str] = []
        wide, text = seen.wide, seen.text
        for ch, group, reach in self._tag_spans:
            if not (seen.has(ch) if wide else ch in text):
                continue
            got = near(seen, ch, reach[0], reach[1]) if reach is not None and len(group) >= _NEAR_GROUP else None
            found.extend(m for m in group if m in (seen if got is None else got))
        return frozenset(found)

    def runnable_by(self, present: frozenset[str]) -> set[str]:
        """`runnable` as a set to add to: the dialects with one of `present` among their markers,
        and the markerless."""
        out = set(self._markerless)
        for m in present:
            out.update(self._by_marker.get(m, ()))
        return out

    def owning(self, present: frozenset[str]) -> frozenset[str]:
        """The dialects whose own markup (Dialect.owns) is among `present`."""
        return frozenset(n for m in present for n in self._owner_of.get(m, ()))

    def turns_of(self, owning: frozenset[str]) -> tuple[tuple[str, bool], ...]:
        """`turns` for a reply whose owners are known: (name, whether it is an owner's turn) in
        the order of `ordered`."""
        if not owning:
            return self._plain_turns
        return (*((n, True) for n in self.names if n in owning), *((n, False) for n in self.names if n not in owning))

    def lazy_turns(self, owners: frozenset[str]) -> tuple[tuple[str, bool], ...]:
        """The turns of a long reply whose owners by tag are `owners`: theirs, and those of the few
        dialects whose wrapper holds no `<` (asked at their turn), then every dialect's own."""
        got = self._lazy_turns.get(owners)  # the same few owner sets come back reply after reply
        if got is None:
            bare = self._bare_owners
            got = (*((n, True) for n in self.names if n in owners or n in bare), *self._plain_turns)
            if len(self._lazy_turns) < 64:
                self._lazy_turns[owners] = got
        return got

    def ordered(self, present: frozenset[str]) -> tuple[str, ...]:
        """The chain with the dialects whose own markup (Dialect.owns) is in the text moved to the
        front, in chain order: the family that wrote the wrapper reads it whole, so no generic
        dialect takes the inner call and leaves the wrapper on screen (the order of `turns_of`)."""
        return tuple(n for n, _ in self.turns_of(self.owning(present)))


class _Asked:
    """`name in ...` on a long text: the dialect is among `known` (found by its markers holding a
    `<`), or one of its other markers stands in the text of `seen`. Those are asked as the chain
    comes to the dialect, where `present` asks every marker up front: each absent marker's
    character costs a scan of the whole reply, and the dialects after the one that reads the call
    ask theirs of the short rest instead (a dialect with no markers at all looks anywhere: it is
    among `known`). They are asked group by group as `present` asks them (`need[name]`: the groups
    of the chain's markers holding no `<` that hold the dialect's, each a memchr on its rarest
    character, then its markers where that character stands), each group once per text. The
    answers are `present`'s."""

    __slots__ = ("seen", "known", "need", "spans", "groups")

    NONE: frozenset[str] = frozenset()  # a group none of whose markers stands in the text

    def __init__(self, seen: Seen, known: frozenset[str] | set[str], need: dict[str, Any],
                 spans: tuple[tuple[str, tuple[str, ...], tuple[int, int] | None], ...],
                 groups: dict[int, frozenset[str]]) -> None:
        self.seen, self.known, self.need, self.spans, self.groups = seen, known, need, spans, groups

    def gate(self) -> set[str]:
        """The dialects known to be in and those with markers to ask: a name in neither is not in,
        which the chain's loop tells by a set lookup instead of a call per dialect."""
        return set(self.known).union(self.need)

    def __contains__(self, name: object) -> bool:
        if name in self.known:
            return True
        need = self.need.get(name)  # type: ignore[call-overload]
        if need is None:
            return False
        for g, markers in need:
            if self._stands(g, markers):
                return True
        return False

    def _stands(self, g: int, markers: frozenset[str]) -> bool:
        """Whether one of `markers` (the dialect's, of group `g`) stands in the text: the whole
        group asked once per text (`groups`, shared by the owners' and the runnables' questions)."""
        found = self.groups.get(g)
        if found is None:
            ch, group, reach = self.spans[g]
            seen = self.seen
            found = self.groups[g] = self.NONE if ch not in seen.text else self.asked_group(seen, ch, group, reach)
        return bool(found) and not markers.isdisjoint(found)

    @staticmethod
    def asked_group(seen: Seen, ch: str, group: tuple[str, ...], reach: tuple[int, int] | None) -> frozenset[str]:
        """The markers of `group` (sharing the rare character `ch`, which stands in the text) that
        stand in the text. One or two markers are each looked for where `ch` stands (`holds`: a
        marker standing near the start is found at its first place, one absent costs a memchr pass);
        more are asked of the text around the places of `ch` (`near`: one pass over the reply for
        the group, then a search of a few dozen characters per marker), or, where `ch` stands
        densely, of the index marker by marker."""
        if len(group) < 3:
            text = seen.text
            return frozenset(m for m in group if holds(text, m))
        hay = near(seen, ch, reach[0], reach[1]) if reach is not None else None
        return frozenset(m for m in group if m in (seen if hay is None else hay))


class _WideAsked(_Asked):
    """_Asked on a wide reply (Seen.wide: each pass over it dear, four bytes a character when it
    holds one emoji). Only the dialect's own markers are asked (`need[name]`: per group of
    `_covering`, those of the dialect), of the text's index, which keeps each answer and each
    character's places: a marker asked later may be answered by a character found for an earlier
    one (`functools[` by the `f` of `functools`) instead of a pass for its own, and a group whose
    character stands nowhere is passed over. The answers are `present`'s."""

    __slots__ = ()

    def _stands(self, g: int, markers: tuple[str, ...]) -> bool:  # type: ignore[override]
        """Only the dialect's own markers of the group are asked: the index keeps each answer."""
        ch, _, reach = self.spans[g]
        return ch not in self.seen.absent and bool(self.asked_group(self.seen, ch, markers, reach))

    @staticmethod
    def asked_group(seen: Seen, ch: str, group: tuple[str, ...], reach: tuple[int, int] | None) -> frozenset[str]:
        """The markers of `group` (sharing the character `ch`) that stand in the text. One or two
        markers are asked of the index (within the stretches where `ch` stands, found in one pass
        over the reply that every other question about `ch` shares); more are asked of the text
        around the places of `ch` (`near`: that pass, then a search of a few dozen characters per
        marker), or, where `ch` stands densely, of the index marker by marker. Looking for each
        marker where `ch` stands (`holds`) would cost a pass per marker wherever `ch` stands near
        the start only (the head of a call whose long argument follows)."""
        if reach is None or len(group) < 3:
            return seen.standing(ch, group)
        hay = near(seen, ch, reach[0], reach[1])
        return frozenset(m for m in group if m in (seen if hay is None else hay))


def _covering(markers: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`markers` grouped by as few characters as they allow: each group's character is one its
    markers hold, and a character the reply lacks answers them all with one memchr. The characters
    are those `grouped` keys them by (each marker's rarest); a marker may join the group of another
    of them it holds when that is markup, not a letter or a space (`**Tool Call:**` with `Action:`
    by its `:`, `\n{` with `all\n` by its line break), picked greedily: the character holding the
    most markers left first, the rarer of equals. Where a group's character stands densely, each
    marker is asked by its own rarest one (Seen.standing), so a merge costs no pass it saves."""
    keys = [ch for ch, _ in grouped(markers) if ch]
    allowed = {m: {c for c in keys if c in m and (c == rare_key(m)[0] or not (c.isalnum() or c == " "))}
               for m in markers if m}
    left = [m for m in markers if m]
    out: list[tuple[str, tuple[str, ...]]] = [("", tuple(m for m in markers if not m))] if "" in markers else []
    while left:
        best = min(keys, key=lambda c: (-sum(c in allowed[m] for m in left), rank(c)))
        out.append((best, tuple(m for m in left if best in allowed[m])))
        left = [m for m in left if best not in allowed[m]]
    return tuple(out)


@functools.lru_cache(maxsize=64)
def _chain_index(names: tuple[str, ...]) -> _ChainIndex:
    return _ChainIndex(names)


@functools.lru_cache(maxsize=64)
def _empty_lists(names: tuple[str, ...]) -> tuple[tuple[str, ...], re.Pattern[str]] | None:
    """(the opening markup, one pattern) of the empty call lists of the dialects in `names`
    (Dialect.empty_lists): the pair with nothing or `[]` between, not quoted in backticks."""
    pairs: set[tuple[str, str]] = set()
    for name in names:
        prep = _prepared(name)
        if prep is not None:
            pairs.update(prep[0].empty_lists)
    if not pairs:
        return None
    # Not quoted in backticks: the character before the opener is asked once its first character is
    # read (`<(?<!`<)`), not before it: a pattern opening with a look-behind has no first character
    # the engine can skip ahead to, and is tried in full at every place of the text (25 us a KB).
    # The openers sharing a first character share that test: at each `<` of a reply dense in tags
    # the look-behind runs once and each opener's branch is skipped at its second character (an
    # alternation of whole pairs ran it once a pair, a dozen times: 12 ms over a megabyte). Pairs
    # opening with different characters never match at one place, so the grouping finds what the
    # alternation in its order found.
    groups: dict[str, list[str]] = {}
    for o, c in sorted(pairs, key=lambda p: (-len(p[0]), -len(p[1]))):
        groups.setdefault(o[0], []).append(
            re.escape(o[1:]) + (r"[ \t]*\[[ \t]*\]" if not c else r"\s*(?:\[\s*\]\s*)?" + re.escape(c)))
    alts = [re.escape(first) + "(?<!`" + re.escape(first) + ")(?:" + "|".join(rests) + ")" for first, rests in groups.items()]
    return tuple(sorted({o for o, _ in pairs})), lazy_pattern(r"(?:" + "|".join(alts) + r")(?!`)")


@functools.cache
def _plain_tags(name: str) -> tuple[str, ...]:
    """The XML-like opening tags among a dialect's markers (`<dots_function_call>`), which prose may
    name; special tokens (`<|...|>`) are never prose, and a stray close tag is markup to drop."""
    prep = _prepared(name)
    if prep is None:
        return ()
    return tuple(m for m in prep[1] if m.startswith("<") and m.endswith(">") and not m.startswith("</")
                 and not {"|", "｜"} & set(m) and m not in prep[0].answer_tags)


def _drops_tags(name: str, text: str, rest: str) -> bool:
    """A dialect that read no call took out one of its opening tags: it was prose about the markup.
    A rest equal to the text (a dialect may hand back a copy) took out nothing: one compare of
    memory, where counting each tag in both walks them twice."""
    if len(rest) == len(text) and rest == text:
        return False
    return any(rest.count(t) < text.count(t) for t in _plain_tags(name))


def _inside_wrappers(text: str, cands: list[Candidate], seen: Seen | None = None) -> list[Candidate]:
    """The candidates of a markerless dialect (JSON or a call list anywhere) that stand inside another
    family's call wrapper (`<tool_call>{json}</tool_call>`): read by a generic dialect they would leave
    the wrapper on screen, so the wrapper's own dialect, later in the chain, reads them instead.
    `seen`: the text's marker index when the chain holds one (its places answer each wrapper)."""
    if seen is not None:
        if not any(open_tag in seen for open_tag, _ in _markup.collected().call_wrappers):
            return []
    elif len(text) < SHORT:
        if _wrapper_opens().search(text) is None:
            return []  # one regex pass over a short reply, not a scan per wrapper
    elif not any(holds(text, open_tag) for open_tag, _ in _markup.collected().call_wrappers):
        return []  # each wrapper looked for where its rare character stands (ten scans of a long reply, else)
    spans = _CallSpans(text, seen)
    out: list[Candidate] = []
    pos = 0
    for c in cands:
        at = text.find(c.raw, pos) if c.raw else -1
        if at < 0:
            continue
        if spans.inside(at):
            out.append(c)
        pos = at
    return out


def _seen(text: str) -> str | Seen:
    """What to ask `marker in ...`: a short reply itself (a plain scan costs less than bookkeeping)."""
    return text if len(text) < _SEEN_FROM else Seen(text)


_SEEN_FROM = 8192  # characters: below this a reply is scanned per marker directly

_FENCES = ("```", "~~~")


def _fences(text: str, index: Seen | None = None) -> list[tuple[int, int]]:
    """The fenced code blocks of `text` (an unclosed one runs to the end), in one pass over its fence
    lines. `index`: the text's Seen, when the chain holds one (it knows where each character first stands)."""
    if (("`" not in text and "~" not in text) if index is None
            else not index.has("`") and not index.has("~")):  # a memchr each: most replies hold no fence character
        return []
    starts = _fence_starts(text, index)
    if starts is None:
        return _fences_by_line(text)
    spans: list[tuple[int, int]] = []
    opened = -1
    for pos in starts:
        if opened < 0:
            opened = pos
        else:
            nl = text.find("\n", pos)
            spans.append((opened, len(text) if nl < 0 else nl))
            opened = -1
    if opened >= 0:
        spans.append((opened, len(text)))
    return spans


_FENCE_MISSES = 256  # fence characters off any fence line looked at before the text is read line by line


def _fence_starts(text: str, index: Seen | None = None) -> list[int] | None:
    """Where each fence line starts, in order, found from the places of the fence characters (a
    memchr each) instead of from every line; None after _FENCE_MISSES places that start no fence
    line (backticks all over the prose), where _fences_by_line costs less."""
    found: list[int] = []
    misses = 0
    find = text.find if index is None else index.find  # the index looks within the places it found
    for ch in "`~":
        fence = ch * 3
        i = find(ch, 0)
        while i >= 0:
            if text.startswith(fence, i):
                line = text.rfind("\n", 0, i) + 1
                if _NOT_SPACE().search(text, line, i) is None:  # only spaces before it on its line
                    found.append(line)
                    nl = text.find("\n", i)
                    i = -1 if nl < 0 else find(ch, nl)
                    continue
            misses += 1
            if misses > _FENCE_MISSES:
                return None
            i = find(ch, i + 1)
    return sorted(found)


@functools.cache
def _NOT_SPACE() -> re.Pattern[str]:  # noqa: N802 - a pattern, compiled on first use
    return re.compile(r"[^ ]")


def _fences_by_line(text: str) -> list[tuple[int, int]]:
    """_fences read line by line (text dense in fence characters)."""
    if "```" not in text and "~~~" not in text:
        return []
    spans: list[tuple[int, int]] = []
    opened = -1
    pos = 0
    while pos < len(text):
        nl = text.find("\n", pos)
        end = len(text) if nl < 0 else nl
        if text.startswith(_FENCES, pos + len(text[pos:end]) - len(text[pos:end].lstrip(" "))):
            if opened < 0:
                opened = pos
            else:
                spans.append((opened, end))
                opened = -1
        pos = end + 1
    if opened >= 0:
        spans.append((opened, len(text)))
    return spans


class _FenceIndex:
    """The fenced blocks of one text (_fences), found when first asked: a call standing before the
    first fence line needs none of them (the usual case: no fence, or a fence inside the call)."""

    __slots__ = ("text", "_spans", "_index", "_quoting")

    def __init__(self, text: str, index: Seen | None = None) -> None:
        self.text = text
        self._spans: list[tuple[int, int]] | None = None
        self._index = index  # the text's Seen, when the chain holds one
        self._quoting: list[tuple[int, int]] | None = None

    def first_line(self) -> int:
        """Where the line of the first fence character starts (every block opens at a fence
        line's start, none before it); -1 when the text holds no fence character."""
        text, index = self.text, self._index
        tick, tilde = (text.find("`"), text.find("~")) if index is None else (index.first("`"), index.first("~"))
        first = tick if tilde < 0 or 0 <= tick < tilde else tilde
        return -1 if first < 0 else text.rfind("\n", 0, first) + 1

    def spans(self) -> list[tuple[int, int]]:
        if self._spans is None:
            self._spans = _fences(self.text, self._index)
        return self._spans

    def quoting(self, calls: list[Candidate] | tuple[()]) -> list[tuple[int, int]]:
        """The blocks that may quote a call: not one opening inside a call's own text. A form
        whose calls hold a fence (DeepSeek V3's ```json arguments, closed on the line of the
        call's end token, which is no fence line) would otherwise open a block running into the
        next call, and that call, read as an example in a code block, would be dropped when its
        tool is not offered (the loop answers such a call with an error; an example it never sees).
        Found once per turn: the calls' places in order, then each block's opening asked."""
        if self._quoting is None:
            spans = self.spans()
            own: list[tuple[int, int]] = []
            pos = 0
            for c in calls if spans else ():
                at = find_long(self.text, c.raw, pos) if c.raw else -1
                if at >= 0:
                    own.append((at, at + len(c.raw)))
                    pos = at + 1
            self._quoting = [(a, b) for a, b in spans if not any(s < a < e for s, e in own)]
        return self._quoting


def _fence_index(text: str, seen: str | Seen | None = None) -> _FenceIndex | None:
    """The text's _FenceIndex; None when it holds no fence character (a memchr each: most replies,
    asked of `seen` when it is the text's index)."""
    if isinstance(seen, Seen) and seen.wide and seen.text is text:
        return _FenceIndex(text, seen) if seen.has("`") or seen.has("~") else None
    if "`" not in text and "~" not in text:
        return None
    return _FenceIndex(text)


def _in_fence(text: str, raw: str | None, fences: _FenceIndex | None, calls: list[Candidate] | tuple[()] = ()) -> bool:
    """Whether `raw` (first found in `text`) starts inside a fenced block of `text` that may quote
    it (_FenceIndex.quoting: `calls`, the turn's calls, open none of those blocks)."""
    if fences is None or not raw:
        return False
    line = fences.first_line()
    if line < 0:
        return False  # no fence character: no fence (_fences' own first check)
    at = find_long(text, raw)
    if at < line:
        return False  # before the first fence line (or nowhere): no block holds it
    return any(a <= at < b for a, b in fences.quoting(calls))


def _offered(name: str, ctx: ParseContext) -> bool:
    return repair.resolve_name(name, ctx.tools, repair=ctx.names)[0] is not None


def _parse_within(
    d: dialects.Dialect, text: str, markers: tuple[str, ...], rx: re.Pattern[str] | None, budget: int,
    seen: str | Seen | None = None,
) -> tuple[list[Candidate], str, str, str] | None:
    """(candidates, rest, text read, text left unread) of one dialect; None when it raised.

    Text holding more markers than `budget` calls can use is read up to there first. When that part
    holds more calls than the budget, it is a flood; when it holds none, those markers were not calls
    and neither are the ones after them: either way the rest stays text unread, which bounds the
    work per call and per stray marker. A dialect writing more markers per call than guessed gets one
    wider look; otherwise the whole text is read.
    """
    limit = budget * _MARKS_PER_CALL
    reach = _reach(text, markers, rx, limit, seen)
    for wider in (False, True):
        if reach >= len(text):
            break
        try:
            cands, rest = d.parse(text[:reach])
        except Exception as exc:  # noqa: BLE001 - a parser bug must not lose the turn (but is counted)
            failures.record(f"dialect {d.name}", exc)
            return None
        if len(cands) > budget or not cands:
            return cands, rest + text[reach:], text[:reach], text[reach:]
        if wider:
            break
        # It wrote limit / len(cands) markers per call: enough of them for the budget, and a margin.
        reach = _reach(text, markers, rx, limit * (budget + 1) * 5 // (4 * len(cands)) + 1, seen)
    try:
        cands, rest = d.parse(text)
    except Exception as exc:  # noqa: BLE001
        failures.record(f"dialect {d.name}", exc)
        return None
    return cands, rest, text, ""


def _without(text: str, cands: list[Candidate]) -> str:
    """`text` without the raw text of `cands`, found in order: one pass, where removing each raw with
    str.replace would copy the whole text once per call. Calls read from one block share its raw."""
    out: list[str] = []
    pos = 0
    prev = None
    for c in cands:
        if c.raw is prev or not c.raw:
            continue
        at = text.find(c.raw, pos)
        if at < 0:
            continue
        out.append(text[pos:at])
        pos = at + len(c.raw)
        prev = c.raw
    out.append(text[pos:])
    return "".join(out)


# Characters of a call's raw text hashed whole for its id; a longer one is hashed as its length
# and both ends (_stable_id), enough to tell calls apart that differ in more than their middle: each
# character hashed costs (its UTF-8 encoding and the hash, some 15K instructions for 512 of them
# out of a DeepSeek reply, a tenth of its whole parse at 1 KB).
_ID_WHOLE = 512
_ID_END = 64


def _stable_id(index: int, cand: Candidate) -> str:
    """The id of a call written in text (the model gave none): the same call text at the same place
    gets the same id on every run (an eval replays, a stream's last parse agrees with the reply's).
    The calls of one reply differ by their place; across the conversation the ids go on the wire
    made unique there (native._history.CallIds: models repeat calls, and so their ids), so nothing
    asks a long call text to be read whole to name it. It is hashed as its length and both ends:
    reading all of a 100 KB call (its UTF-8 encoding, two bytes a character in a DeepSeek reply, and
    a checksum) cost ~90 us, more than decoding its arguments."""
    raw = cand.raw or ""
    if len(raw) > _ID_WHOLE:
        raw = f"{len(raw)}\0{raw[:_ID_END]}\0{raw[-_ID_END:]}"
    seed = f"{index}\0{cand.dialect}\0{cand.name}\0{raw}".encode("utf-8", "replace")
    return "call_" + _blake2b()(seed, digest_size=8).hexdigest()


@functools.cache
def _blake2b() -> Any:
    """hashlib.blake2b, which is _blake2's own: importing hashlib also loads OpenSSL's hashes (some
    2.5 ms of a cold `agent parse`) for a function that never uses them."""
    try:
        from _blake2 import blake2b
    except ImportError:  # a Python built without the module: hashlib's fallback
        from hashlib import blake2b
    return blake2b


def _canon(args: Any) -> str:
    try:
        return json.dumps(args, sort_keys=True, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(args)


def build_call(
    index: int, cand: Candidate, ctx: ParseContext, budget: repair.RepairBudget | None = None,
) -> tuple[ToolCall, list[Repair]]:
    """One candidate -> ToolCall: resolve the name, decode and coerce the arguments, record repairs.
    `budget` is the reply's JSON repair allowance, shared by its calls."""
    call_id = cand.id or _stable_id(index, cand)
    repairs: list[Repair] = []
    name = cand.name.strip()
    unknown = False
    if cand.name_from_args and repair.resolve_name(name, ctx.tools, repair=ctx.names)[0] is None:
        name, cand = _name_from_arguments(cand, ctx)
    if ctx.tools:
        # an offered name as written (the usual call) resolves to itself: resolve_name's own first answer
        resolved, fix = (name, None) if name in ctx.tools else repair.resolve_name(name, ctx.tools, repair=ctx.names)
        if resolved is None:
            unknown = True
        else:
            if fix:
                repairs.append(Repair(fix[0], fix[1], call_id))
            name = resolved
    tool = ctx.tools.get(name)
    schema = tool.parameters if tool else None
    call = ToolCall(name=name, id=call_id, raw=cand.raw, dialect=cand.dialect, unknown=unknown)
    if cand.error:
        call.error = cand.error
        return call, repairs
    if cand.fixes:
        if not ctx.repair:
            call.error = f"malformed tool call ({cand.fixes[0][1]})"
            return call, repairs
        repairs.extend(Repair(kind, detail, call_id) for kind, detail in cand.fixes)
    try:
        args, fixes = repair.decode_arguments(cand.arguments, repair=ctx.repair, schema=schema, budget=budget,
                                              unwrap=not cand.text_values)
    except repair.ArgumentError as exc:
        call.error = str(exc)
        return call, repairs
    if cand.text_values:
        args = repair.decode_text_values(args, schema)
        if schema:
            args = _escaped_structures(args, schema, fixes)
    coerced = False
    if ctx.coerce and schema:
        args, more = repair.coerce_arguments(args, schema)
        fixes.extend(more)
        coerced = bool(more)  # each change it makes is a fix: none, and the arguments are as decoded
    if cand.text_values or coerced:
        # values decoded from their text after decode_arguments (a parameter holding JSON, escaped
        # or repaired, a coerced string): bounded as every decoded value is
        unfit = repair.unfit_arguments(args)
        if unfit is not None:
            call.error = unfit
            return call, repairs
    if fixes:
        repairs.extend(Repair(kind, detail, call_id) for kind, detail in fixes)
    call.arguments = args
    if cand.cut_off and (unknown or not tool or not _has_required(args, schema)):
        call.error = "truncated tool call (output ended inside it)"
    return call, repairs


def _has_required(args: Any, schema: dict[str, Any] | None) -> bool:
    required = schema.get("required") if isinstance(schema, dict) else None
    return isinstance(args, dict) and all(k in args for k in required or () if isinstance(k, str))


def _name_from_arguments(cand: Candidate, ctx: ParseContext) -> tuple[str, Candidate]:
    """(name, candidate) for a call written with an id instead of a name: the offered tool its
    arguments alone fit, or the candidate marked as an error (never executed, never guessed)."""
    from agentcli.wire.name_inference import infer_tool

    args: Any = cand.arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            args = None
    name = infer_tool(args, ctx.tools)
    if name is not None:
        return name, cand
    err = f"the call's id {cand.name!r} names no tool and its arguments fit no single offered tool"
    return cand.name, dataclasses.replace(cand, error=cand.error or err)


_OPENS_STRUCTURE = lazy_pattern(r"\s*[\[{]")  # value.lstrip()[:1] in ("[", "{"): `\s` is str.isspace()


def _escaped_structures(args: Any, schema: dict[str, Any], fixes: list[tuple[str, str]]) -> Any:
    """Text values written as escaped JSON (`[\\"a\\", \\"b\\"]`, GLM's <arg_value> for an array) where the
    schema wants an array or object: unescaped and decoded, recorded as a repair."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(args, dict) or not isinstance(props, dict):
        return args
    out = dict(args)
    for key, value in args.items():
        # The search for `\\"` last: a needle of two characters skips at most three a step, some
        # 85 us across a 100 KB value, where the first character and the schema say no at once
        # (the first past any whitespace, read in place: lstrip() would copy the value).
        if not isinstance(value, str) or _OPENS_STRUCTURE.match(value) is None:
            continue
        prop = props.get(key)
        want = {t for t in _schema_types(prop)} - {"null"}
        if not want or not want <= {"array", "object"} or '\\"' not in value:
            continue
        decoded = _unescaped_json(value)
        if isinstance(decoded, list if want == {"array"} else (list, dict) if len(want) > 1 else dict):
            out[key] = decoded
            fixes.append(("escaped_json", f"decoded escaped JSON in parameter {key!r}"))
    return out


def _unescaped_json(value: str) -> Any:
    """`value` read as the body of a JSON string (so `\\"` and `\\\\` unescape together), then decoded;
    None when it is not escaped JSON."""
    try:
        inner = json.loads('"' + value + '"', strict=False)
    except ValueError:
        inner = value.replace('\\"', '"')  # a stray lone backslash: unescape the quotes only
    try:
        return json.loads(inner, strict=False)
    except ValueError:
        return None


def _schema_types(prop: Any) -> set[str]:
    if not isinstance(prop, dict):
        return set()
    t = prop.get("type")
    found = {t} if isinstance(t, str) else {x for x in t if isinstance(x, str)} if isinstance(t, list) else set()
    for key in ("anyOf", "oneOf", "allOf"):
        for sub in prop.get(key) or ():
            found |= _schema_types(sub)
    return found


# A fenced block left empty once the call written inside it was taken out.
_EMPTY_FENCE = lazy_pattern(r"```[\w+-]*[ \t]*\n\s*```[ \t]*")


def _without_turn_end(text: str) -> str:
    """`text` stripped, without the end-of-turn tokens that close it and without fences emptied by a
    call taken from them: markup, never visible text."""
    if not text:
        return text  # every call taken out and nothing else written: nothing to strip
    if "```" in text:
        text = _EMPTY_FENCE.sub("", text)
    text = text.strip()
    markup = _markup.collected()  # end-of-turn and turn-opening tokens: markup, never text
    while text.endswith(markup.turn_end):
        text = text[: text.rfind("<")].rstrip()
    while text.startswith(markup.turn_start):
        text = text[text.find(">") + 1 :].lstrip()
    return text


# What plain prose holds none of: the characters every marker, tag, token, fence, string and bracket
# the pipeline's general steps look for opens with or turns on (see _lane).
_PLAIN = lazy_pattern(r"[^<>\[\]{}()`~|\"'\\\uff5c\u2581\u25c1\u25b7]*")
_PLAIN_NAME = lazy_pattern(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,127}")


@functools.cache
def _lane_of(name: str) -> dialects.Dialect | None:
    """Dialect `name` when it reads a lane (its class defines Dialect.lane, or its parse reads in
    place) and keeps every call it reads (not offered_only); None for the rest, asked once: a
    forced parse pays a lookup."""
    try:
        d = dialects.get(name)
    except (KeyError, ImportError, AttributeError):
        return None
    reads = d.reads_in_place or type(d).lane is not dialects.Dialect.lane
    return d if reads and not d.offered_only else None


@functools.cache
def _unmasked_reasoning() -> tuple[str, ...]:
    """The characters a lane cannot read past: the first characters of reasoning tags opening with
    no bracket (Kimi's `◁think▷`: the lanes' checks read brackets as markup, and such a tag in an
    attribute or a raw value is the full path's reasoning split's to find), and the mask's
    placeholder character (a reply holding it is not masked at all). A reply holding one of these is
    left to the full path."""
    tags = (t for pair in _markup.collected().reasoning_tags for t in pair)
    return (*sorted({t[0] for t in tags if t and t[0] not in MASKED_FIRSTS}), MASK_OFF)


_Openers = tuple[tuple[str, ...], tuple[tuple[str, str], ...], tuple[str, ...], frozenset[str]]


@functools.lru_cache(maxsize=64)
def _chain_openers(chain: tuple[str, ...]) -> _Openers:
    """(every opener of the chain, (opener, dialect) in the order they read, the chain's owned
    markup a string's mask leaves standing (asked once the owner's lane has read: _reads_first), the
    owners among them whose lane reads in a chain by its tokens: _chain_lane), from the declared
    table: no dialect is imported to
    know them. The owners take the first turns, in chain order: a tag or token a dialect owns
    opens a reply it reads first (its own section openers, and any owned tag). A section opener it
    shares with other forms (Hermes' `<tool_call>`, which Laguna, Granite and others write too)
    only when the dialect opens the chain: else an earlier dialect reads such a reply first, and
    names its calls. Owned markup that opens with no bracket (`**Tool Call:**`) is no token the
    mask hides in a string: a reply holding it is its owner's turn first, so the lane leaves it."""
    owned: list[tuple[str, str]] = []
    shared: list[tuple[str, str]] = []
    bare: list[str] = []
    for i, name in enumerate(chain):
        try:
            row = dialects.declared(name)
        except (KeyError, ImportError, AttributeError):
            continue
        owned.extend((o, name) for o in row.owns if o[:1] == "<")  # (an owned section opener among them)
        shared.extend((o, name) for o in row.section_openers if o and i == 0 and o not in row.owns)
        bare.extend(o for o in row.owns if o and o[0] not in MASKED_FIRSTS)
    pairs = tuple(dict.fromkeys((*owned, *shared)))
    by_tokens = frozenset(lane.name for lane in _chain_lanes(chain) if lane.owned)
    return tuple(o for o, _ in pairs), pairs, tuple(dict.fromkeys(bare)), by_tokens


# The last chain asked and its openers: the chain is the one cached tuple turn after turn (_chain),
# known by identity, where the cache's own lookup hashes all its names (a reply of the auto chain).
_LAST_OPENERS: list[Any] = [None, None]


def _openers_of(chain: tuple[str, ...]) -> _Openers:
    got = _chain_openers(chain)
    _LAST_OPENERS[:] = (chain, got)
    return got


def _lane(native: NativeParse, ctx: ParseContext, chain: tuple[str, ...]) -> tuple[list[Candidate], str, str] | None:
    """(calls, text left) of a reply a dialect reads in its usual shape (Dialect.lane), or None for
    the full path: a forced dialect's reply, or in a chain of several a reply that is nothing but
    the section of calls it opens with (its owner reads first, and no dialect reads from the empty
    text left). The dialect's reading makes the general steps' answers known: its
    arguments were decoded where they stand, so a marker quoted in them steered nothing (the mask
    would hide it, and restoring it gives the same values); the text left and the names are plain
    prose, so there is no reasoning to split, no fence to quote a call, no turn token or empty
    list to drop; every name is offered (or no tool is), so no call is a stray the chain would
    drop. A forced usual reply then costs its reader and the calls' build, not the mask's, the
    reasoning split's and the chain's questions of every character (a property test holds the two
    paths to the same response). A reply opening with a reasoning block (`<think>..</think>`, the
    usual reply of a reasoning model) has it cut out first, as the full path's split does
    (_one_leading_pair), when the mask leaves the reply as it is (quotes_clear): then it leaves
    the text after the block as it is too, and the split's answer is the block and that text.
    (calls, text left, reasoning) or None."""
    text = native.text
    if native.candidates or not text or not chain:  # no chain: the native fields alone
        return None
    thought = ""
    first = _SHOWN.search(text) if text[:1].isspace() else None  # (a search, not a copy by lstrip)
    i = first.start() if first is not None else 0
    leads = _leading_tags().get(text[i : i + 1])
    if leads is not None and text.startswith(leads, i):
        for ch in _unmasked_reasoning():  # (the block's text too: asked before it is cut out)
            if ch in text:
                return None
        if not quotes_clear(text):
            return None
        split = _one_leading_pair(text, None)
        if split is None:
            return None
        text, thought = split
        if not text:
            return None
    whole = len(chain) > 1
    reader = _chain_reader(text, chain) if whole else (chain[0], False, ((), ()))
    if reader is None:
        return None
    name, owner, ask = reader
    d = _lane_of(name)
    if d is None:
        return None
    try:
        got = d.lane(text)
    except Exception as exc:  # noqa: BLE001 - a reader bug must not lose the turn: the full path reads it
        failures.record(f"dialect {name} lane", exc)
        return None
    if got is None:
        return None
    cands, rest = got
    if len(cands) >= MAX_CALLS or not cands or (rest and ((whole and not owner) or _PLAIN.fullmatch(rest) is None)):
        return None
    tools = ctx.tools
    for c in cands:
        if type(c.arguments) is not dict or _PLAIN_NAME.fullmatch(c.name) is None:
            return None
        if tools and c.name not in tools and not _offered(c.name, ctx):
            return None
    for ch in _unmasked_reasoning():  # asked of a reply a lane read (a pass over a wide one)
        if ch in text:
            return None  # the full path splits such a tag even inside a string: its answer, not the lane's
    if whole and not _reads_first(text, chain, ctx, *ask):
        return None
    if owner and rest:  # the others read the words left, as after the owner's turn: nothing may change
        more, left, _ = _run_dialects(rest, chain, ctx, MAX_CALLS - len(cands))
        if more or left != rest:
            return None
    return cands, rest, thought


_Ask = tuple[tuple[str, ...], tuple[str, ...]]  # (markup that must not stand, dialects that must read nothing)


def _chain_reader(text: str, chain: tuple[str, ...]) -> tuple[str, bool, _Ask] | None:
    """(the dialect whose lane may read `text` in a chain of several, whether the others then read
    the words it leaves, what to ask _reads_first once it has read), or None: the owner of the
    section the reply opens with reads first, in chain order, and then the reply must be nothing
    but that section; else the first reader of its first markup by its lane tokens."""
    last = _LAST_OPENERS
    openers = last[1] if last[0] is chain else _openers_of(chain)
    if text.startswith(openers[0]):
        name = next(n for o, n in openers[1] if text.startswith(o))
        if name not in openers[3]:  # (an owner's lane by its tokens reads as below: the words it leaves go to the others)
            # owned markup the mask leaves standing is asked once the lane has read: its owner's turn comes first
            return name, False, (openers[2], ())
    chosen = _chain_lane(text, chain)
    if chosen is None:
        return None
    lane, owner = chosen
    asks = _lane_asks(chain, lane.name)
    return lane.name, True, (asks.owner, ()) if owner else (asks.other, asks.run_first)


class _ChainLane(NamedTuple):
    """A dialect of a chain whose lane may read a reply in a chain of several (Dialect.lane_tokens),
    from the declared table (_chain_lanes)."""

    name: str
    opens: tuple[str, ...]  # its lane tokens that hold one of its markers (a reply opening with one gives it a turn)
    owned: tuple[str, ...]  # its owned markup opening with `<`: a reply opening with one, it is an owner


class _LaneAsks(NamedTuple):
    """What makes a chain lane's reading the full path's (_lane_asks)."""

    owner: tuple[str, ...]  # as an owner: the earlier owners' markup that may stand in a reply it takes
    other: tuple[str, ...]  # else: any other owner's, and the earlier dialects' markers, that may stand
    run_first: tuple[str, ...]  # else: the earlier dialects with no markers (they look anywhere)


def _rows(chain: tuple[str, ...]) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for name in chain:
        try:
            rows.append((name, dialects.declared(name)))
        except (KeyError, ImportError, AttributeError):
            continue
    return rows


@functools.lru_cache(maxsize=64)
def _chain_lanes(chain: tuple[str, ...]) -> tuple[_ChainLane, ...]:
    """Each dialect of `chain` that declares lane tokens, in chain order (see _chain_lane)."""
    out: list[_ChainLane] = []
    for name, row in _rows(chain):
        # a token opening with one of its markers, or holding one the mask never hides (`"name"`)
        opens = tuple(t for t in row.lane_tokens
                      if any(m and (t.startswith(m) or (m in t and not hides(m))) for m in row.markers))
        if opens:
            out.append(_ChainLane(name, opens, tuple(o for o in row.owns if o[:1] == "<")))
    return tuple(out)


@functools.lru_cache(maxsize=256)
def _lane_asks(chain: tuple[str, ...], name: str) -> _LaneAsks:
    """The markup to ask of a reply chain lane `name` has read (_reads_first), asked of the table
    the first time a reply takes that lane. In a reply such a lane takes, every `<` standing
    outside the strings the mask hides markup in opens one of its tokens: markup opening with `<`
    that the mask hides in a string, and that stands at no `<` of a token (no token opens with it
    from there, nor it with the token), cannot stand in it (the full path's chain never sees it), so
    it is not asked; any other can (a plain word like `Action:` or `**Tool Call:**`, a bracket's
    markup, a token near one of the lane's)."""
    rows = _rows(chain)
    i = next(k for k, (n, _) in enumerate(rows) if n == name)
    # the tokens from each `<` they hold: markup standing there is in the reply
    tails = tuple(t[j:] for t in rows[i][1].lane_tokens for j in range(len(t)) if t[j] == "<")
    heads = frozenset(t[:k] for t in tails for k in range(1, len(t) + 1))

    def stands(m: str) -> bool:
        return bool(m) and (m[0] != "<" or not hides(m) or m in heads or m.startswith(tails))

    before = rows[:i]
    owner = (m for _, e in before for m in e.owns if stands(m))
    other = (*(m for j, (_, e) in enumerate(rows) if j != i for m in e.owns if stands(m)),
             *(m for _, e in before for m in e.markers if stands(m)))
    return _LaneAsks(tuple(dict.fromkeys(owner)), tuple(dict.fromkeys(other)),
                     tuple(n for n, e in before if not any(e.markers)))


@functools.lru_cache(maxsize=64)
def _lane_firsts(chain: tuple[str, ...]) -> tuple[str, ...] | None:
    """The characters the chain's lane tokens open with, when each is markup plain prose never
    holds (_PLAIN): the reply's first markup is then at the first place of one of them or opens no
    lane. None when a token opens with a character prose may hold (the plain prose read whole)."""
    firsts = tuple(sorted({t[0] for lane in _chain_lanes(chain) for t in lane.opens}))
    return None if any(_PLAIN.fullmatch(ch) for ch in firsts) else firsts


def _chain_lane(text: str, chain: tuple[str, ...]) -> tuple[_ChainLane, bool] | None:
    """(the lane, whether its dialect owns the markup) of a chain of several that may read `text`:
    one whose lane token opens the reply's first markup (after plain prose), an owner of that
    markup first (the owners read first, in chain order), else the first in chain order. Whether
    the chain would give the reply to it first is asked once its lane has read calls (_reads_first):
    most replies a lane turns down cost it a character or two, where the questions cost a pass."""
    lanes = _chain_lanes(chain)
    if not lanes:
        return None
    # The reply's first markup stands where its plain prose ends: read in the reply's head, and past
    # it at the first place of a character a token opens with (a memchr each), when the prose before
    # that is plain. A long prose reply is then passed over by those few memchr, where the pattern
    # steps through all of it in Python's regex loop (some 175 us over 100 KB).
    plain = _PLAIN.match(text, 0, _HEAD)
    p = plain.end() if plain is not None else 0
    if p == _HEAD < len(text):  # plain prose past the head
        firsts = _lane_firsts(chain)
        if firsts is None:
            plain = _PLAIN.match(text, p)
            p = plain.end() if plain is not None else len(text)
        else:
            q = -1
            for ch in firsts:
                at = text.find(ch, p, q) if q >= 0 else text.find(ch, p)
                if at >= 0:
                    q = at
            if q < 0:
                return None
            plain = _PLAIN.match(text, p, q)
            if plain is None or plain.end() != q:
                return None  # other markup stands before it: no token opens the reply's first markup
            p = q
    if p == len(text):
        return None
    first = None
    for lane in lanes:
        if text.startswith(lane.opens, p):
            if lane.owned and text.startswith(lane.owned, p):
                return lane, True
            if first is None:
                first = lane
    return None if first is None else (first, False)


def _reads_first(text: str, chain: tuple[str, ...], ctx: ParseContext, ask: tuple[str, ...],
                 run: tuple[str, ...]) -> bool:
    """Whether the full path's chain gives `text` to the dialect whose lane read it first (see
    _chain_reader, _lane_asks): none of the markup `ask` names stands in it (an owner of it, or a
    dialect earlier in the chain with a marker there, would take a turn before), and each dialect
    of `run`, earlier in the chain with no markers (it looks anywhere), reads nothing from the reply
    and leaves it as it is."""
    if ask and holds_any(text, ask):
        return False
    if run:
        index = _chain_index(chain)
        seen = _seen(text)
        for name in run:
            prep = index.prepared.get(name)
            got = _turn(name, prep, text, chain, ctx, MAX_CALLS, seen) if prep is not None else None
            if got is not None and (got[0] or got[1] != text):
                return False  # it reads (or changes) the reply before the lane's dialect would
    return True


def finalize(native: NativeParse, ctx: ParseContext, parsers: tuple[str, ...]) -> ParsedResponse:
    """Native fields + text dialects + repair -> the response the loop acts on."""
    native_cands = native.candidates[:MAX_CALLS]
    # the chain as the cached tuple (chain() hands out a list to change; here it is only read)
    chain = _chain(tuple(ctx.prefer), tuple(parsers))
    lane = _lane(native, ctx, chain)
    if lane is not None:
        (found, rest, thought), capped = lane, False
        text, own = native.text or "", (native.thinking or "").strip()
        thinking = f"{own}\n\n{thought}" if own and thought else own or thought  # as the full path joins them
    else:
        raw = native.text or ""
        # one marker index for the mask, the reasoning split and (the text unchanged) the chain:
        # each asks where the same characters stand, and on a wide reply each asking is a dear pass
        marks = _seen(raw)
        masked = mask(raw, seen=marks if isinstance(marks, Seen) and marks.wide else None)  # quoted markup is text
        if masked.text is not raw:
            marks = _seen(masked.text)
        index = marks if isinstance(marks, Seen) else None
        # (a memchr, or the index's kept answer, before the chain's cached lookup: it hashes every name)
        tagged = (index.has("<") if index is not None and index.wide else "<" in masked.text) and _reads_tool_tags(chain)
        text, thought = split_thinking(masked.text, index, _tool_tags(ctx) if tagged else ())
        own, thought = (native.thinking or "").strip(), masked.restore(thought)
        thinking = f"{own}\n\n{thought}" if own and thought else own or thought  # the ones written, joined
        found, rest, capped = _run_dialects(text, chain, ctx, MAX_CALLS - len(native_cands),
                                            marks if text is masked.text else None)
        if masked.changed:
            found, rest = masked.restore_candidates(found), masked.restore(rest)
            if native_cands:  # the text is read again only beside native calls (their echoes, below)
                text = masked.restore(text)
    budget = repair.RepairBudget()
    if not found and not native_cands and ctx.tools and ctx.repair and rest.lstrip()[:1] in ("{", "`", "~", "f", "t", "["):
        whole = whole_call.whole_reply_call(rest, ctx.tools, budget)  # one malformed call is the whole reply
        if whole is not None:
            found = [Candidate(whole[0], whole[1], rest.strip(), "json_block", id=whole[2], error=whole[4],
                               fixes=tuple(whole[3]))]
            rest = ""

    calls: list[ToolCall] = []
    repairs: list[Repair] = []
    if capped or len(native.candidates) > MAX_CALLS:
        repairs.append(Repair("too_many_calls", f"the reply held more than {MAX_CALLS} tool calls; only the first {MAX_CALLS} were read"))
    seen: set[tuple[str, str]] = set()
    for cand in native_cands:
        call, fixes = build_call(len(calls), cand, ctx, budget)
        calls.append(call)
        repairs.extend(fixes)
        seen.add((call.name, _canon(call.arguments)))

    echoes: list[Candidate] = []
    for cand in found:
        call, fixes = build_call(len(calls), cand, ctx, budget)
        if seen:
            # Beside native calls the text is prose: a call written there is an echo of a native one
            # (dropped with its text) or a quoted example (an old <function_calls> block), never a call.
            if not call.error and (call.name, _canon(call.arguments)) in seen:
                echoes.append(cand)
            continue
        calls.append(call)
        repairs.extend(fixes)
    if seen and len(echoes) < len(found):
        rest = _without(text, echoes)  # the quoted examples stay text, as written

    finish = native.finish_reason or "stop"
    if calls and finish != "length":  # a call cut at the length limit must stay marked as cut
        finish = "tool_calls"
    return ParsedResponse(
        text=_without_turn_end(rest),
        thinking=thinking,
        tool_calls=calls,
        repairs=repairs,
        finish_reason=finish,
        usage=native.usage,
        provider_data=dict(native.provider_data),
    )


@functools.cache
def _call_markup() -> tuple[str, ...]:
    """Every dialect's tag or special token: markers that open with '<' or '[' or close a tag.
    Word-like markers (`Action:`, `functools`, `>>>`) also occur in prose and are left out."""
    found: set[str] = set()
    for name in dialects.DIALECTS:
        try:
            d = dialects.declared(name)
        except (KeyError, ImportError, AttributeError):
            continue
        for m in (*d.markers, *d.stream_markers):
            if m[:1] in ("<", "[") or (m[:1].isalpha() and m.endswith(">")):
                found.add(m)
    return tuple(sorted(found))


# Everything above built from the dialect table is rebuilt when the table changes (_markup.forget).
for _clear in (_reasoning_markup.cache_clear, _leading_openers.cache_clear, _leading_tags.cache_clear, _wrapper_opens.cache_clear, _probe_groups.cache_clear, _pair_probes.cache_clear, _chain.cache_clear, _chain_index.cache_clear, _all_tags.cache_clear, _empty_lists.cache_clear, _plain_tags.cache_clear,
               _call_markup.cache_clear, _lane_of.cache_clear, _chain_openers.cache_clear, _chain_lanes.cache_clear, _lane_firsts.cache_clear, _lane_asks.cache_clear, _reads_tool_tags.cache_clear, _unmasked_reasoning.cache_clear, _PREPARED.clear,
               lambda: _LAST_OPENERS.__setitem__(slice(None), (None, None))):
    _markup.on_change(_clear)


def failed_call_attempt(resp: ParsedResponse) -> bool:
    """The reply tried to call a tool and nothing usable came out: every call has an error, or no
    call was read while the text still holds call markup (a dialect's tag or token, or JSON with
    "name" and "arguments"). What an emulation fallback counts."""
    if resp.tool_calls:
        return all(c.error for c in resp.tool_calls)
    text = resp.text
    if not text:
        return False
    if '"name"' in text and ('"arguments"' in text or '"parameters"' in text):
        return True
    return any(m in text for m in _call_markup())


def parse_text(text: str, ctx: ParseContext | None = None, parsers: tuple[str, ...] | None = None) -> ParsedResponse:
    """Raw assistant text -> ParsedResponse (agent parse, eval, emulated turns)."""
    ctx = ctx or ParseContext()
    return finalize(NativeParse(text=text), ctx, tuple(dialects.DIALECTS) if parsers is None else parsers)
