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

# How common a character is in a reply, lowest first: anything outside ASCII (the full-width bars
# and arrows of special tokens), then the brackets and bars of markup, then other punctuation,
# then letters, digits and spaces, which every prose holds.
_RARE = "|`~[]{}<>=@#$%^&*_\\"
_COMMON_PUNCT = ".,:;\"'()-!?/+"


def _rank(ch: str) -> int:
    if ord(ch) > 127:
        return 0
    if ch in _RARE:
        return 1 + _RARE.index(ch)
    if ch in _COMMON_PUNCT:
        return 1 + len(_RARE)
    return 2 + len(_RARE)


@functools.lru_cache(maxsize=1024)
def key(needle: str) -> tuple[str, int]:
    """(the needle's rarest character, its offset in the needle); the first of equals."""
    best = min(range(len(needle)), key=lambda i: _rank(needle[i]))
    return needle[best], best


_PROBES = 16  # places of the key character checked one by one before the needle gets its own scan


def holds(text: str, needle: str) -> bool:
    """`needle in text`, found where the needle's rarest character stands (see the module doc)."""
    if len(needle) < 2:
        return needle in text
    ch, off = key(needle)
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


def holds_any(text: str, needles: tuple[str, ...]) -> bool:
    """Whether `text` holds one of `needles`: one memchr per distinct rarest character, then only
    the needles whose character stands in the text are looked for (by `holds`)."""
    for ch, group in grouped(needles):
        if ch in text and any(holds(text, n) for n in group):
            return True
    return False


class Seen:
    """`marker in text` for one text, each marker answered once, cheaply.

    The chain asks about ~140 markers (~75 distinct) per reply, and on a 1 MB reply a scan per
    marker adds up. Markers are grouped by their rarest character (see `key`): one pass finds where
    that character stands; when it is rare (absent `<` in prose, two `<` around a huge call: at most
    one place per KiB) each marker is checked only at those places, else it gets a scan of its own.
    The rule is a density, not a count, so a text and four copies of it take the same path. Work
    stays linear: one pass per key character, then a scan or at most len/1024 checks per marker.
    """

    __slots__ = ("text", "_memo", "_at")

    def __init__(self, text: str) -> None:
        self.text = text
        self._memo: dict[str, bool] = {}
        self._at: dict[str, list[int] | None] = {}

    def _places(self, ch: str) -> list[int] | None:
        """Where `ch` stands in the text, or None when it stands in more than one place per KiB."""
        if ch not in self._at:
            most = len(self.text) >> 10
            places: list[int] = []
            i = self.text.find(ch)
            while i >= 0 and len(places) <= most:
                places.append(i)
                i = self.text.find(ch, i + 1)
            self._at[ch] = places if len(places) <= most else None
        return self._at[ch]

    def __contains__(self, marker: str) -> bool:
        known = self._memo.get(marker)
        if known is None:
            if not marker:
                known = True
            else:
                ch, off = key(marker)
                places = self._places(ch)
                if places is None:
                    known = marker in self.text
                else:
                    known = any(self.text.startswith(marker, i - off) for i in places if i >= off)
            self._memo[marker] = known
        return known
