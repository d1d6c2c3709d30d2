"""`needle in text` for markup needles, asked by way of the needle's rarest character.

A search for a short multi-character needle (`"think>" in text`) walks the whole text at about
0.5 ns a character, while a search for one character is a memchr, some fifty times faster. Markup
holds a character prose rarely holds (`|`, `[`, `>`, a full-width bar), so a needle is looked for
where that character stands: absent, the answer is no after one memchr; present in a few places,
each place is checked; present often, the needle gets its own scan, as before. The answers are
those of `in`; only the work differs, and it stays linear (a bounded number of probes, then at
most one scan per needle).
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

# How common a character is in a reply, lowest first: anything outside ASCII (the full-width bars
# and arrows of special tokens), then the brackets and bars of markup, then other punctuation,
# then line breaks and tabs, then letters, digits and spaces, which every prose holds.
_RARE = "|`~[]{}<>=@#$%^&*_\\"
_COMMON_PUNCT = ".,:;\"'()-!?/+"


def rank(ch: str) -> int:
    """How common `ch` is in a reply, lowest first (see _RARE)."""
    if ord(ch) > 127:
        return 0
    if ch in _RARE:
        return 1 + _RARE.index(ch)
    if ch in _COMMON_PUNCT:
        return 1 + len(_RARE)
    if ch in "\n\t":  # a line break stands once a line, a letter a few times a word
        return 2 + len(_RARE)
    return 3 + len(_RARE)


@functools.lru_cache(maxsize=1024)
def key(needle: str) -> tuple[str, int]:
    """(the needle's rarest character, its offset in the needle); the first of equals."""
    best = min(range(len(needle)), key=lambda i: rank(needle[i]))
    return needle[best], best


_PROBES = 16  # places of the key character checked one by one before the needle gets its own scan


# Characters below which a text is searched plainly: a scan of a few KB costs less than the Python
# steps of finding places (a reply of 1 KB is read in microseconds either way).
SHORT = 4096


def holds(text: str, needle: str) -> bool:
    """`needle in text`, found where the needle's rarest character stands (see the module doc)."""
    if len(needle) < 2 or len(text) < SHORT:
        return needle in text
    ch, off = key(needle)
    lent = _LENT
    if lent is not None and lent.text is text and ch in lent.absent:  # see lend
        return False
    i = text.find(ch, off)
    tries = 0
    while i >= 0:
        if text.startswith(needle, i - off):
            return True
        tries += 1
        if tries == _PROBES:
            return text.find(needle, i - off + 1) >= 0
        i = text.find(ch, i + 1)
    return False


_FEW_PLACES = 16


def count_char(text: str, ch: str, start: int = 0, end: int | None = None) -> int:
    """`text.count(ch, start, end)` for one character: a memchr per place while there are few (a
    count walks every character, some 30 us over 100 KB, where a handful of memchr calls cost a
    few), the count itself past _FEW_PLACES."""
    stop = len(text) if end is None else end
    n = 0
    i = text.find(ch, start, stop)
    while i >= 0:
        n += 1
        if n > _FEW_PLACES:
            return text.count(ch, start, stop)
        i = text.find(ch, i + 1, stop)
    return n


def locate(text: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """`text.find(needle, start, end)`, found where the needle's rarest character stands: a search
    for a multi-character needle walks the text at 0.2-0.5 ns a character (more in text holding
    wide characters), a memchr for one character some twenty times faster. After _PROBES places
    that start no occurrence, the plain search from there decides. A needle asked again and again
    of one text (a walk over its occurrences) is searched plainly (see _ASKED)."""
    stop = len(text) if end is None else end
    if len(needle) < 2 or stop - start < SHORT:
        return text.find(needle, start, stop)
    asked = _ASKED
    if asked[0] == id(text) and asked[1] == len(text) and asked[2].get(needle, 0) >= _WALK:
        return text.find(needle, start, stop)
    ch, off = key(needle)
    lent = _LENT
    if lent is not None and lent.text is text and ch in lent.absent:  # see lend
        return -1
    i = text.find(ch, start + off, stop)
    tries = 0
    while i >= 0:
        at = i - off
        if text.startswith(needle, at, stop):
            if tries:
                _asked(text, needle, tries, at - start)
            return at
        tries += 1
        if tries == _PROBES:
            _asked(text, needle, tries, at - start)
            return text.find(needle, at + 1, stop)
        i = text.find(ch, i + 1, stop)
    return -1


# How many times each needle's probes missed in the text searched last (known by its id and
# length). A walk over the occurrences of a token (every `<|channel|>` of a reply, each pair of
# reasoning tags, the 7,000 `<think>` blocks of a long reply, each harmony message's tokens) asks
# locate once an occurrence or more, and each asking paid a Python step per place of the token's
# rare character looked at, where the plain search reads the few characters to the next occurrence
# in less. From the _WALK-th asking whose probes missed at places under _DENSE_GAP characters apart
# on average, the search is plain: a walk's searches pass each character once, so together they
# read the text once more at most (some 0.3 ms a megabyte) than the probes would. An asking that
# misses _DENSE_TRIES close places or more counts as a walk at once. (The same answers: only the
# work differs, so a stale entry, another text at that id, costs at most a plain search where a
# probe would do; an asking whose first probe hits is no walk's burden and is not counted.)
_ASKED: tuple[int, int, dict[str, int]] = (0, -1, {})
_WALK = 4
_DENSE_TRIES = 4
# The spacing below which a place costs more to probe (a Python step, some 100 ns) than the plain
# search costs to read the characters up to the next (0.2-0.5 ns each).
_DENSE_GAP = 512


def _asked(text: str, needle: str, tries: int, passed: int) -> None:
    """Count an asking of `needle` whose probes missed `tries` times over `passed` characters: when
    the places were close (a plain search would have read the few characters between in less), not
    when the probes crossed a long stretch (an argument of 10 KB, where they beat the plain search)."""
    global _ASKED
    if passed >= tries * _DENSE_GAP:
        return
    times = _WALK if tries >= _DENSE_TRIES else 1
    asked = _ASKED
    if asked[0] == id(text) and asked[1] == len(text):
        asked[2][needle] = asked[2].get(needle, 0) + times
    else:
        _ASKED = (id(text), len(text), {needle: times})


# From this length CPython searches for a needle of 6 characters or more with its two-way algorithm,
# one step a character (a 100 KB argument crossed at some 40 us a search); below it, its skip
# search jumps over text holding none of the needle's characters, faster than looking where the
# rare character stands when markup is dense in it.
TWO_WAY = 30_000


def find_far(text: str, needle: str, start: int = 0, end: int | None = None) -> int:
    """`text.find(needle, start, end)`: by `locate` on a text of TWO_WAY characters or more, else the
    plain search."""
    if len(text) >= TWO_WAY:
        return locate(text, needle, start, end)
    return text.find(needle, start, len(text) if end is None else end)


def finder(text: str, below: int = TWO_WAY) -> Callable[..., int]:
    """`text.find` for a parse's many token searches: the plain method on a text shorter than
    `below` (no Python call between), else `locate` bound to the text. TWO_WAY by default (where a
    plain search of a long token turns two-way); SHORT for searches of tokens whose rare character
    may stand nowhere in a long text (a plain find of `>>>` walks it at over a nanosecond a character)."""
    if len(text) < below:
        return text.find
    return functools.partial(locate, text)


_HEAD = 64  # characters of a long needle looked for first
_VERIFIED = 16  # places of that head checked one by one before the needle is looked for whole


def find_long(text: str, needle: str, start: int = 0) -> int:
    """`text.find(needle, start)` for a long needle (a call's raw text, up to megabytes): its head is
    found (the whole needle's search prepares a table over all of it, as costly as a scan of the
    text) and the rest compared in place; after _VERIFIED false starts the plain search decides."""
    if len(needle) <= 2 * _HEAD:
        return text.find(needle, start)
    head = needle[:_HEAD]
    at = text.find(head, start)
    tries = 0
    while at >= 0:
        if text.startswith(needle, at):
            return at
        tries += 1
        if tries == _VERIFIED:
            return text.find(needle, at + 1)
        at = text.find(head, at + 1)
    return -1


@functools.lru_cache(maxsize=64)
def grouped(needles: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`needles` grouped by their rarest character, in first-seen order."""
    groups: dict[str, list[str]] = {}
    for n in needles:
        groups.setdefault(key(n)[0] if n else "", []).append(n)
    return tuple((ch, tuple(g)) for ch, g in groups.items())


@functools.lru_cache(maxsize=64)
def _by_offset(needles: tuple[str, ...]) -> tuple[tuple[str, tuple[str, ...], tuple[tuple[int, tuple[str, ...]], ...]], ...]:
    """grouped(needles), each group with its needles by where the group's character first stands in
    them: (character, group, ((offset, needles), ...))."""
    out = []
    for ch, group in grouped(needles):
        offsets: dict[int, list[str]] = {}
        for n in group:
            offsets.setdefault(n.find(ch) if ch else 0, []).append(n)
        out.append((ch, group, tuple((off, tuple(ns)) for off, ns in sorted(offsets.items()))))
    return tuple(out)


_PLACES_ASKED = 16  # places of a group's character checked one by one before its needles are searched for


def holds_placed(text: str, needles: tuple[str, ...]) -> bool:
    """holds_any without an index: each group's character found by memchr, and at each of its
    first places every needle of the group asked to stand there (a startswith per offset the
    character has in them); past _PLACES_ASKED places the needles are searched for. A plain search
    of a few KB per needle skips by the needle's last character, which prose holds every few
    characters (`think>`, `<|message|>`: some 0.3 us a KB each)."""
    find, starts = text.find, text.startswith
    for ch, group, by_offset in _by_offset(needles):
        if not ch:
            return True  # an empty needle stands in every text
        p, asked = find(ch), 0
        while p >= 0:
            for off, ns in by_offset:
                if p >= off and starts(ns, p - off):
                    return True
            asked += 1
            if asked == _PLACES_ASKED:
                if any(n in text for n in group):
                    return True
                break
            p = find(ch, p + 1)
    return False


def holds_any(text: str, needles: tuple[str, ...], seen: Seen | None = None) -> bool:
    """Whether `text` holds one of `needles`: one memchr per distinct rarest character, then only
    the needles whose character stands in the text are looked for, where it stands when it is
    rare (`seen`, the text's Seen when the caller has one, shares those places)."""
    if seen is None:
        lent = _LENT
        if lent is not None and lent.text is text:  # the chain's index of this text (see lend)
            seen = lent
    if (seen is None or not seen.wide) and len(text) < WIDE_FROM:
        # no index keeping its answers: each place asked (holds_placed), where a needle found at the
        # first places spares the plain searches of the others (an index asks them in turn)
        return holds_placed(text, needles)
    if seen is not None and seen.wide:  # the index answers each character once per text (see Seen.first)
        for ch, group in grouped(needles):
            if seen.first(ch) >= 0 and any(n in seen for n in group):
                return True
        return False
    for ch, group in grouped(needles):
        if ch in text:
            if seen is None:
                seen = Seen(text)
            if any(n in seen for n in group):
                return True
    return False


# Places of a key character closer than this are one stretch of the text: markup clusters (a
# reply's tokens stand together around its calls), and a marker is looked for in each stretch.
_GAP = 64
_PLACES = 64  # places a text of any size may hold before its character counts as dense
# Bytes of a text (as CPython stores it: one, two or four a character) from which each pass over it
# is dear enough that the index keeps every character's answer (Seen.wide): below, a pass over a
# few dozen KB costs less than the Python of keeping it, and each question is asked of the text.
WIDE_FROM = 1 << 18
# Stretches of a known character few enough to answer another marker holding it (see Seen._placed):
# a bounded search in each costs less than a scan of the whole text for the marker's own key.
_FEW_STRETCHES = 4


class Seen:
    """`marker in text` for one text, each marker answered once, cheaply.

    The chain asks about ~140 markers (~75 distinct) per reply, and on a 1 MB reply a scan per
    marker adds up. Markers are grouped by their rarest character (see `key`): one pass finds where
    that character stands, as stretches of nearby places (markup clusters around a reply's calls).
    When there are few stretches (absent `|` in prose, two clusters of tokens around a huge call: at
    most one stretch per KiB, and no more places than _PLACES or one per KiB) a marker is looked for only
    within them, else it gets a scan of its own. The rule is a density, not a count, so a text and
    four copies of it take the same path. Work stays linear: one pass per key character, then a
    scan or at most len/1024 bounded searches per marker.
    """

    __slots__ = ("text", "wide", "_memo", "_at", "_told", "_first", "_count", "_few", "absent")

    def __init__(self, text: str) -> None:
        self.text = text
        # Whether a pass over the text is dear (its bytes in memory, WIDE_FROM): a reply of 100K
        # characters holding one emoji is stored four bytes a character. Only then does the chain
        # ask each character of it once (first, has, standing, lend); else it asks the text.
        self.wide = sys.getsizeof(text) >= WIDE_FROM
        self._memo: dict[str, bool] = {}
        self._at: dict[str, list[tuple[int, int]] | None] = {}
        self._told: tuple[frozenset[str], frozenset[str]] | None = None
        self._first: dict[str, int] = {}
        self.absent: set[str] = set()  # the characters `first` found nowhere (callers only read it)
        self._count: dict[str, int] = {}  # how many times a character stands, where its stretches were found
        self._few: dict[str, list[tuple[int, int]]] = {}  # the characters of no more than _FEW_STRETCHES stretches

    def first(self, ch: str) -> int:
        """`text.find(ch)`, looked for once per text: the reasoning split, the chain's index, its
        lazy groups and the wrappers around a generic dialect's calls each ask the same dozen
        characters, and for an absent one each asking is a pass over the whole reply (four bytes
        a character when the reply holds one emoji, so a memchr over four times its length)."""
        at = self._first.get(ch)
        if at is None:
            at = self._first[ch] = self.text.find(ch)
            if at < 0:
                self.absent.add(ch)
        return at

    def has(self, ch: str) -> bool:
        """`ch in text` for one character, answered once per text (see `first`)."""
        at = self._first.get(ch)
        if at is None:
            at = self.first(ch)
        return at >= 0

    def standing(self, ch: str, markers: tuple[str, ...]) -> frozenset[str]:
        """Those of `markers` (each holding `ch`) that stand in the text, each answered as `in` would
        and kept (`__contains__` answers it again without a look). A marker holding a character
        found nowhere is not there; one holding a character whose few stretches are known is looked
        for within them; the others within the stretches of `ch`, found in one pass shared by every
        question about `ch` (an occurrence of a marker holds `ch` where the marker first does, and
        that place lies in a stretch, which bounds the search). Where `ch` stands densely, a marker
        is asked as `__contains__` asks it (by its own rarest character)."""
        if ch in self.absent:
            return _NONE
        found: list[str] = []
        memo, text = self._memo, self.text
        for m in markers:
            known = memo.get(m)
            if known is None:
                if not self.absent.isdisjoint(m):
                    known = False
                else:
                    c, off = (ch, m.index(ch)) if ch in self._at else self._placed(m, ch, m.index(ch))
                    stretches = self._stretches(c)
                    if stretches is None:
                        known = m in self
                    else:
                        known, size = False, len(m)
                        for a, b in stretches:
                            if text.find(m, max(0, a - off), b - off + size) >= 0:
                                known = True
                                break
                memo[m] = known
            if known:
                found.append(m)
        return frozenset(found) if found else _NONE

    def count(self, ch: str) -> int:
        """`text.count(ch)` for one character: known once its stretches were found (they hold each
        place), else counted from its first place (`count_char`)."""
        n = self._count.get(ch)
        if n is None:
            at = self.first(ch)
            n = 0 if at < 0 else count_char(self.text, ch, at)
        return n

    def learn(self, asked: frozenset[str], found: frozenset[str]) -> None:
        """Answers found elsewhere for this text: of the markers `asked`, exactly `found` stand in
        it (the chain asks its tags at once around the places of `<`; a wrapper asked later is
        answered from that, not looked for again)."""
        self._told = (asked, found)

    def _stretches(self, ch: str) -> list[tuple[int, int]] | None:
        """The (first, last) places of `ch` in each stretch of the text, or None when `ch` stands
        too densely (see the class doc)."""
        if ch not in self._at:
            text = self.text
            most, places_most = len(text) >> 10, max(_PLACES, len(text) >> 10)
            stretches: list[tuple[int, int]] = []
            count = 0
            wide = self.wide
            a = b = i = self.first(ch) if wide else text.find(ch)
            while i >= 0:
                count += 1
                if i - b > _GAP:  # a new stretch opens here
                    stretches.append((a, b))
                    a = i
                    if len(stretches) >= most:
                        self._at[ch] = None
                        return None
                if count > places_most:
                    self._at[ch] = None
                    return None
                b = i
                i = text.find(ch, i + 1)
            if count:
                stretches.append((a, b))
                if len(stretches) > most:
                    self._at[ch] = None
                    return None
            self._at[ch] = stretches
            if wide:  # what the index keeps of a wide text (count, _placed)
                self._count[ch] = count
                if len(stretches) <= _FEW_STRETCHES:
                    self._few[ch] = stretches
        return self._at[ch]

    def find(self, ch: str, start: int = 0, end: int | None = None) -> int:
        """`text.find(ch, start, end)` for one character: -1 at once for one found nowhere, within
        its stretches when they are known (no scan of the text between them)."""
        if ch in self.absent:
            return -1
        text = self.text
        stop = len(text) if end is None else end
        stretches = self._at.get(ch)
        if stretches is None:  # not looked for, or dense
            return text.find(ch, start, stop)
        for a, b in stretches:
            if b >= start:  # `b` is a place: the first one from `start` lies in this stretch
                return text.find(ch, max(a, start), min(b + 1, stop))
        return -1

    def __contains__(self, marker: str) -> bool:
        known = self._memo.get(marker)
        if known is None:
            told = self._told
            if told is not None and marker in told[0]:
                known = marker in told[1]
            elif not marker:
                known = True
            elif self.absent and not self.absent.isdisjoint(marker):
                known = False  # a character of it was looked for already, and stands nowhere
            else:
                ch, off = key(marker)
                if ch not in self._at:
                    ch, off = self._placed(marker, ch, off)
                stretches = self._stretches(ch)
                if stretches is None:
                    known = marker in self.text
                else:  # an occurrence has its key character at a place: it lies within that stretch
                    size, text = len(marker), self.text
                    known = any(text.find(marker, max(0, a - off), b - off + size) >= 0 for a, b in stretches)
            self._memo[marker] = known
        return known

    def _placed(self, marker: str, ch: str, off: int) -> tuple[str, int]:
        """(a character of `marker` whose few stretches are already known, its first offset in the
        marker), else (`ch`, `off`): an occurrence of the marker holds each of its characters, so
        any of them bounds where it can stand, and one whose places were found for another marker
        (the `<` of a reply's tags) spares the scan of the whole text that finding `ch` costs."""
        if not self.wide:
            for c, stretches in self._at.items():
                if stretches is not None and len(stretches) <= _FEW_STRETCHES:
                    at = marker.find(c)
                    if at >= 0:
                        return c, at
            return ch, off
        common = self._few.keys() & set(marker)
        if common:
            c = min(common)
            return c, marker.index(c)
        return ch, off


_NONE: frozenset[str] = frozenset()
_LENT: Seen | None = None  # the index of the text the dialect chain reads now (see lend)


def lend(seen: Seen | str | None) -> Seen | None:
    """Make `seen` (the index of the text the chain reads now) the one `holds` and `locate` (and
    so `finder`) consult for that very text, and return the one lent before (to lend it back). A
    dialect's parse gets only the text: through this its token searches skip a character the
    chain found nowhere (a pass over the whole reply each, four bytes a character in a reply
    holding one emoji); a present one is searched plainly (a C search per probe costs less than
    a Python call). The index is asked only for its own text (`is`): any other text, or another
    thread's, is searched plainly; and only a wide one is lent (Seen.wide: elsewhere a pass costs
    less than the lookups)."""
    global _LENT
    lent, _LENT = _LENT, seen if isinstance(seen, Seen) and seen.wide else None
    return lent


def find_char(text: str, ch: str, start: int = 0) -> int:
    """`text.find(ch, start)` for one character, asked of the chain's index when it is this text's
    (see lend): no pass for a character the chain found nowhere, none past its known places."""
    lent = _LENT
    if lent is not None and lent.text is text and ch in lent.absent:
        return -1
    return text.find(ch, start)


_FEW = 16  # places of a character in a short text gathered before its needles get a scan each


def near(seen: str | Seen, ch: str, before: int, after: int) -> str | None:
    """The text around each place of `ch`, from `before` characters ahead of it to `after` past
    it, the pieces joined by NUL; None when `ch` stands too often (then each needle gets its own
    scan). A needle (holding no NUL) that holds `ch` within those bounds stands in the text exactly
    when it stands in this: each of its occurrences lies within one piece, and a match in the
    joined pieces, which cannot cross a NUL, lies within one piece of the text. So a group of
    needles sharing `ch` is asked of a few dozen characters instead of the whole text."""
    if isinstance(seen, Seen):
        text = seen.text
        stretches = seen._stretches(ch)  # the index's own places, shared with __contains__
        if stretches is None:
            return None
    else:
        text = seen
        stretches = []
        i = text.find(ch)
        while i >= 0:
            if len(stretches) == _FEW:
                return None
            stretches.append((i, i))
            i = text.find(ch, i + 1)
    pieces: list[str] = []
    lo_prev = hi_prev = -1
    for a, b in stretches:
        lo, hi = max(0, a - before), b + after
        if hi_prev >= 0 and lo <= hi_prev:  # overlapping neighbourhoods: one piece
            hi_prev = max(hi_prev, hi)
            continue
        if hi_prev >= 0:
            pieces.append(text[lo_prev:hi_prev])
        lo_prev, hi_prev = lo, hi
    if hi_prev >= 0:
        pieces.append(text[lo_prev:hi_prev])
    return "\0".join(pieces)
