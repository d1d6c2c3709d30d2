"""String values are opaque to every scanner: call markup quoted inside a call's string argument is
the argument's text, never a call, a close tag or a reasoning tag.

Before the reasoning split and the dialect chain read a reply, each markup token (any dialect's
marker or close tag, a reasoning tag, a turn token) standing inside a quoted string within brackets
(`{"text": "a </tool_call> b"}`, `[echo(text="Use [TOOL_CALLS]")]`) is swapped for a placeholder of
private-use characters no scanner knows; whatever the parse returns (calls, arguments, text,
reasoning) gets the tokens back. Strings are JSON's double-quoted ones, and Python's single-quoted
ones inside parentheses; one never spans a line, so a stray quote in prose hides nothing past it.
An XML parameter's value (`<parameter=k>..</parameter>`, `<parameter name="k">..</parameter>`) is
text the same way, when nothing of a call's structure (another parameter, a function's end) stands
between its tags: there another family's tokens are hidden too.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import re
from collections.abc import Callable, Iterator
from itertools import islice, product, repeat, takewhile
from typing import Any, Literal

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._seen import SHORT, TWO_WAY, Seen, count_char, holds
from agentcli.wire.types import Candidate

# Placeholder: OPEN, the token's index written in base-64 digits of one private-use block, CLOSE.
# OPEN's low byte is not zero: `_OPEN in text` (asked of every reply) is then a memchr in a text of
# wide characters, where a character ending in a zero byte is looked for one character at a time
# (some 100 us over 100 KB of text holding a full-width bar).
_OPEN, _CLOSE = "\ue0fe", "\ue0ff"
MASK_OFF = _OPEN  # a reply holding this character is never masked (its placeholders would be ambiguous)
_DIGIT0 = 0xE100
_BASE = 64
_DIGITS = "".join(map(chr, range(_DIGIT0, _DIGIT0 + _BASE)))
# A whole placeholder, captured: `split` cuts a text at each, the placeholders at the odd places.
_PLACEHOLDER = lazy_pattern("(" + _OPEN + "[\ue100-\ue13f]+" + _CLOSE + ")")
# One token per match: a whole double- or single-quoted string on one line, a bracket, a newline,
# or Gemma 4's string delimiter `<|"|>` (markup, not a quote).
# Every branch opens with a literal (the brackets spelled one by one, not as a class), so the
# regex engine skips to the next of those characters in C instead of trying each branch everywhere
# (three times faster over long prose; the same matches).
_STRING = r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"?|\'[^\'\\\n]*(?:\\.[^\'\\\n]*)*\'?'  # (on one line; maybe unclosed)
_TOKENS = lazy_pattern(r'<\|"\|>|' + _STRING + r'|\{|\}|\[|\]|\(|\)|\n')
_PAIRS = {"}": "{", "]": "[", ")": "("}
# What every token of markup_pattern opens with (see its `kept`): brackets, and `◁` of Kimi's
# `◁think▷` (a reasoning tag in a string is the string's text, whatever it opens with).
_FIRSTS = "<[]\u25c1"
_NOT_LT = _FIRSTS.replace("<", "")
# The brackets markup opens with, which every lane's own checks read as markup. A reasoning tag
# opening with anything else (`◁think▷`) is hidden in a string here, but in an attribute or a raw
# value only the full path's reasoning split sees it: a reply holding one is left to the full path
# (pipeline._unmasked_reasoning).
MASKED_FIRSTS = "<[]"
_PARAM_OPEN_TAG = r'<parameter(?:=[^>\n]{1,128}| name="[^"\n]{1,128}")>'
_PARAM_CLOSE = "</parameter>"
# A value holding any of these is not one whole value (its close tag was left out): not hidden.
_STRUCTURE = r"parameter[ =]|/function>|/invoke>|function=|invoke "  # each after a `<`


class Masked:
    """A text with the markup in its strings hidden, and the way back. `source`: the text masked
    (what restoring `text` itself gives); `placeholders`: each token's placeholder, in order."""

    __slots__ = ("text", "_tokens", "_source", "_placeholders", "_back")

    def __init__(self, text: str, tokens: list[str], source: str | None = None,
                 placeholders: list[str] | None = None) -> None:
        self.text = text
        self._tokens = tokens
        self._source = source
        self._placeholders = placeholders
        self._back: dict[str, str] | None = None

    @property
    def changed(self) -> bool:
        return bool(self._tokens)

    def restore(self, value: Any) -> Any:
        """`value` (a string, or JSON-like data holding strings) with the hidden tokens back."""
        if not self._tokens:
            return value
        if isinstance(value, str):
            if value is self.text and self._source is not None:
                return self._source  # the masked text itself: no placeholder to look for
            return self._restore_text(value) if _OPEN in value else value
        if isinstance(value, dict):
            return {self.restore(k): self.restore(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.restore(v) for v in value]
        return value

    def restore_candidates(self, cands: list[Candidate]) -> list[Candidate]:
        if not self._tokens:
            return cands
        out = []
        for c in cands:
            out.append(dataclasses.replace(
                c, name=self.restore(c.name), arguments=self.restore(c.arguments), raw=self.restore(c.raw),
                fixes=tuple((k, self.restore(d)) for k, d in c.fixes),
            ))
        return out

    def _restore_text(self, value: str) -> str:
        """`value` with each placeholder swapped for its token, in one pass: the text cut at the
        placeholders (one regex split), each looked up in a table (a map in C), joined again. A
        placeholder no token has (the index past the last, or spelled with leading zero digits,
        both only from JSON escapes a model wrote) is read as before: its index, or left as is."""
        parts = _PLACEHOLDER.split(value)
        if len(parts) == 1:
            return value
        back = self._back
        if back is None:
            made = self._placeholders
            if made is None:  # a Masked built by hand: the placeholders as mask writes them
                made = _placeholders(len(self._tokens))
            back = self._back = dict(zip(made, self._tokens))
        found = parts[1::2]
        tokens = list(map(back.get, found))
        if None in tokens:
            tokens = [self._token(f) if t is None else t for t, f in zip(tokens, found)]
        parts[1::2] = tokens
        return "".join(parts)

    def _token(self, placeholder: str) -> str:
        """The token a placeholder the table lacks names by its digits, or the placeholder."""
        index = 0
        for ch in placeholder[1:-1]:
            index = index * _BASE + ord(ch) - _DIGIT0
        return self._tokens[index] if index < len(self._tokens) else placeholder


_WRAP = (_OPEN + "%s" + _CLOSE).__mod__


def _placeholders(n: int) -> list[str]:
    """The placeholders of tokens 0 to n - 1: OPEN, the index in base-64 digits (no leading zero),
    CLOSE. Built in C: the digit strings of each length in order (itertools.product), each wrapped."""
    made: list[str] = []
    width = 1
    while len(made) < n:
        digits = product(_DIGITS if width == 1 else _DIGITS[1:], *[_DIGITS] * (width - 1))
        made += islice(map(_WRAP, map("".join, digits)), n - len(made))
        width += 1
    return made


_WALK_FROM = 2048  # characters from which mask walks the markup tokens before any full pass


def mask(text: str, markup: re.Pattern[str] | None = None, seen: Seen | None = None) -> Masked:
    """`text` with every markup token inside a quoted string (within brackets) hidden. With the
    default markup, a reply whose markup plainly stands outside strings is answered without the
    pattern (some 3 ms to compile, the first time); a given pattern runs every check on it.
    `seen`: the text's marker index when the caller holds one (a long reply): the characters the
    checks look for first (`<`, `[`, the quotes) are asked of it, each once per text, and the
    reasoning split and the dialect chain after it ask the same ones (a pass each over a reply of
    100K characters holding one emoji reads 400 KB)."""
    if seen is None:
        if _OPEN in text or ("<" not in text and "[" not in text and "\u25c1" not in text):
            return Masked(text, [])
    elif seen.has(_OPEN) or (not seen.has("<") and not seen.has("[") and not seen.has("\u25c1")):
        return Masked(text, [])
    if markup is None and (((seen is None or not seen.wide) and quotes_clear(text)) or _plainly_outside_strings(text, seen)):
        return Masked(text, [])
    rx = markup or markup_pattern()
    # a short reply: past the cheap checks, the token walk costs more than the full pass
    if len(text) >= _WALK_FROM and _tokens_outside_strings(text, rx):
        return Masked(text, [])
    return _mask_strings(text, rx)


_QUOTES_SPAN_BELOW = 1 << 18  # characters up to which mask first asks whether any string can hold markup


def quotes_clear(text: str) -> bool:
    """No string mask hides can hold a markup token, from where the quotes stand alone: a string
    it hides is closed (its token ends with its quote), so it lies between the first and the last
    quote of its kind, and the token in it opens with a character of _FIRSTS there. With none of
    those between the first and the last quote of each kind (and none in the value of a parameter
    tag, which is hidden whatever its quotes), there is nothing to hide, however the quotes pair up: apostrophes,
    escapes, lines and `<|"|>` (which holds `<`) included. A few memchr over the quoted stretch,
    where the strings' own reading (_plainly_outside_strings) costs Python steps a place, and a
    single-quoted string with a parenthesis before it (a Python call's argument) sends it to the
    full pass. A long reply is left to the index-aware checks."""
    # (the tag looked for where `<` stands: a plain search of a long reply skips by its last
    # letter, which prose holds every few characters)
    if len(text) >= _QUOTES_SPAN_BELOW or (holds(text, "<parameter") and not _values_clear(text)):
        return False
    find = text.find
    for q in "\"'":
        b = text.rfind(q)
        if b < 0:
            continue
        # and it opens past a bracket (a parenthesis, for a single quote): the walk hides a string
        # only inside one, so the stretch starts at the later of the first quote and that bracket
        o = find("(", 0, b)
        if q == '"':
            for ch in "{[":
                i = find(ch, 0, o if o >= 0 else b)
                if i >= 0:
                    o = i
        if o < 0:
            continue  # no bracket before its last quote: no string of this kind is hidden
        a = find(q)
        if a < o:
            a = o
        if (find("<", a, b) >= 0 or find("[", a, b) >= 0 or find("]", a, b) >= 0 or find("\u25c1", a, b) >= 0):
            return False
    return True


def _values_clear(text: str) -> bool:
    """No closed XML parameter value holds a character a token opens with: then none the full pass
    reads (_param_values: those with no call structure besides) holds markup. A memchr each over a
    value clear of them, and a value holding one (HTML, code) is answered at its first: the full
    pass's structure search through it is left to the full pass. A reply of many parameters is too."""
    at = text.find("<parameter")  # (each open tag found by a search in C, read where it stands)
    for _ in range(_FEW_PARAMS):
        if at == -1:
            return True
        m = _PARAM_OPEN.match(text, at)
        if m is not None:
            # its close opens with the first `<` past it, or a `<` stands in the value (found at once)
            close = text.find("<", m.end())
            if close == -1:
                return True  # no close anywhere after: neither this value nor a later one is closed
            if not text.startswith(_PARAM_CLOSE, close) or any(text.find(ch, m.end(), close) >= 0 for ch in _NOT_LT):
                return False
        at = text.find("<parameter", at + 1)
    return at == -1


def _tokens_outside_strings(text: str, rx: re.Pattern[str]) -> bool:
    """mask's check of a long reply: no markup token (up to _LONG_HITS_CHECKED of them, by memchr)
    stands in a string it hides: counted (_any_quoted, where the parity reads them right) for a few
    tokens, else the strings of the tokens' lines read (_clear_of_strings)."""
    if holds(text, "<parameter"):
        return next(_hits(text, rx), None) is None
    if '"' not in text and "'" not in text:
        return True
    most = _LONG_HITS_CHECKED if len(text) >= SHORT else _HITS_CHECKED
    hits = [m.start() for m in islice(_hits(text, rx), most + 1)]
    if len(hits) > most:
        return False  # many tokens: the one linear scan of the strings decides
    if len(hits) <= _PLACES_CHECKED and not _parity_unsure(text) and not _any_quoted(text, rx, bracketed=True):
        return True  # a few tokens: the parity first, as for the bracket places
    return _clear_of_strings(text, hits, most)


def _parity_unsure(text: str, both: bool | None = None, seen: Seen | None = None) -> bool:
    """Whether counting quotes may misread the strings: both kinds of quote (`'"'` is one string),
    an escaped quote (`\\"` is no quote inside a string, and outside one a backslash escapes
    nothing) or Gemma 4's `<|"|>` (no quote outside a string, and a string's end inside one). A
    memchr for each rare character first; `both`: whether both kinds of quote stand, when the
    caller knows (a memchr through a text holding no `'` walks all of it). `seen`: see mask."""
    if ("'" in text and '"' in text) if both is None else both:
        return True
    has = text.__contains__ if seen is None else seen.has
    if has("\\") and (holds(text, '\\"') or holds(text, "\\'")):
        return True
    return has("|") and has('"') and holds(text, '<|"|>')  # it holds a double quote: none, none of it


def _plainly_outside_strings(text: str, seen: Seen | None = None) -> bool:
    """No markup token can stand in a string or a parameter's value, found from a few places by
    memchr: no parameter tag, and no quote, or the strings' contents clear of brackets
    (_pairs_clear), or each place clear of strings (_brackets_outside_strings). `seen`: see mask."""
    dq, sq = ('"' in text, "'" in text) if seen is None else (seen.has('"'), seen.has("'"))
    found: list[int] = []
    # a parameter tag opens at one of the places; with one kind of quote, past a few places (a
    # reply dense in markup tokens) the strings are read instead, when none of those quotes
    # follows a backslash (they pair up plainly); else the places walked on
    places = _bracket_places(text, _PLACES_CHECKED if dq != sq else _PLACES_WALKED, found, seen)
    if places is None and dq and not sq:  # (single quotes do not pair in order: an apostrophe opens no string)
        quote = '"'
        if not ("\\" in text and holds(text, "\\" + quote)) and _pairs_clear(text, quote):
            # the tag looked for where `<` stands pays a probe a token in a reply dense in them:
            # below TWO_WAY the plain search (a skip search) costs less
            return "<parameter" not in text if len(text) < TWO_WAY else not holds(text, "<parameter")
        places = _bracket_places(text, _PLACES_WALKED, found)
    if places is None:
        if holds(text, "<parameter"):
            return False
    else:
        for i in places:  # a plain loop: a generator per reply costs more than the few places
            if text.startswith("<parameter", i):
                return False
    if not dq and not sq:
        return True
    if places is None:
        return False
    # The quote parity first (counts in C, where it reads the strings right: a few steps a place);
    # else, or past it, the strings of the places' lines read (a few steps a string, nothing at a
    # place with no quote before it on its line).
    if not _parity_unsure(text, dq and sq, seen):
        # the parity read right: one kind of quote (both kinds make it unsure), and no escaped quote
        # or `<|"|>`, so _brackets_outside_strings' other checks cannot fire: only its count is asked
        if _places_even(text, places, '"' if dq else "'"):
            return True
    return _clear_of_strings(text, places, _PLACES_WALKED, seen)


_QUOTES_WALKED = 32  # quotes found one by one by _pairs_clear (a long text) before the places decide
_COPIED = 512  # characters of strings _pairs_clear copies out of a long text
# Below this length _pairs_clear cuts the text at every quote at once (`split`, in C, some 10
# instructions a character) rather than finding the quotes one by one (some 2K a quote).
_SPLIT_BELOW = 2048


def _pairs_clear(text: str, quote: str) -> bool:
    """A text whose only quote is `quote`, none escaped (no backslash before one): no string (the
    quotes taken two by two, in order) holds a character a markup token opens with, a line break
    or (`"`) a `|` after its opening quote. Then each line holds whole pairs, so they are its
    strings as _TOKENS reads them (a string ends at its line's end; Gemma 4's `<|"|>`, no quote,
    would open a content with `|` or close one after `<`; a last quote alone opens a string never
    closed, which hides nothing), and no markup token stands in one. The strings are cut out and
    read in C (a memchr a character): a few steps a quote, where a reply dense in markup tokens
    (twenty on one line) costs some 4K instructions a token read one by one (_places_even)."""
    if len(text) < _SPLIT_BELOW:
        strings = quote + quote.join(text.split(quote)[1:-1:2])  # `"a"b`: each string after its quote
    else:
        at: list[int] = []
        i = text.find(quote)
        while i >= 0:
            at.append(i)
            if len(at) > _QUOTES_WALKED:
                return False
            i = text.find(quote, i + 1)
        opens, closes = at[::2], at[1::2]
        # a long string is read in place, each barred character looked for by memchr: a copy
        # costs some 3 instructions a character (8 out of a text of wide characters, narrowed)
        if sum(map(operator.sub, closes, opens)) > _COPIED:
            return all(map(_clear_between, repeat(text), opens, closes))
        strings = "".join(map(text.__getitem__, map(slice, opens, closes)))  # `"a"b`
    if "\n" in strings or "<" in strings or "[" in strings or "]" in strings or "\u25c1" in strings:
        return False
    return not (quote == '"' and "|" in strings and '"|' in strings)


def _clear_between(text: str, a: int, b: int) -> bool:
    """text[a:b] (a string, from its opening quote) holds none of what _pairs_clear bars in one
    (for `"`, a `|` anywhere in it, not only after its quote)."""
    find = text.find
    return find("\n", a, b) < 0 and find("<", a, b) < 0 and find("[", a, b) < 0 and find("]", a, b) < 0 and (
        find("\u25c1", a, b) < 0) and (text[a] != '"' or find("|", a, b) < 0)


def _places_even(text: str, places: list[int], quote: str) -> bool:
    """_brackets_outside_strings(text, places) for a text whose only quote is `quote`, holding no
    escaped quote and no `<|"|>` (_parity_unsure is False): each place has an even number of
    quotes before it on its line, or no bracket (a parenthesis, for `'`) opened before it."""
    opened = -2
    prev = n = 0
    for i in places:
        nl = text.rfind("\n", prev, i)
        if nl >= 0:  # a new line: its quotes counted from its start
            prev, n = nl + 1, 0
        n += text.count(quote, prev, i) if i - prev < SHORT else count_char(text, quote, prev, i)
        prev = i
        if n % 2 or (n and quote == "'"):  # a single quote may be an apostrophe: its parity says nothing
            if opened == -2:
                opened = _first(text, "{[(") if quote == '"' else _first(text, "(")
            if 0 <= opened < i:
                return False
    return True


def _mask_strings(text: str, rx: re.Pattern[str]) -> Masked:
    """mask's full pass: the strings and parameter values holding markup, found and hidden. Each
    is rx.sub(piece) with each token swapped for its placeholder, done with no Python step a token:
    each piece cut at its tokens by a split on the pattern captured (the text between them and the
    tokens, alternately, in C; a match object per token and its places read back cost twice that),
    and the masked text joined once from those parts with the placeholders at the tokens' places."""
    values = _param_values(text, rx is markup_pattern()) if holds(text, "<parameter") else []
    # a string span holds markup (_string_spans keeps no other); a parameter's value is asked
    spans = [(a, b, False) for a, b in values]
    if '"' in text or "'" in text:
        spans = sorted(spans + [(a, b, True) for a, b in _string_spans(text, rx)])
    cut = rx.split if rx is markup_pattern() else _cutter(rx)
    parts = [""]  # the text between tokens, and the tokens at the odd places
    pos = 0
    for a, b, holding in spans:
        if a < pos:
            continue  # a string inside a parameter's value: hidden with the value
        if holding or _holds_markup(text[a:b], rx):
            piece = cut(text[a:b])  # as in text[a:b]: the pattern looks at nothing around
            parts[-1] = parts[-1] + text[pos:a] + piece[0]
            parts += islice(piece, 1, None)
            pos = b
    if len(parts) == 1:
        return Masked(text, [])
    parts[-1] += text[pos:]
    tokens = parts[1::2]
    placeholders = _placeholders(len(tokens))
    parts[1::2] = placeholders
    return Masked("".join(parts), tokens, text, placeholders)


def _cutter(rx: re.Pattern[str]) -> Callable[[str], list[str]]:
    """For a pattern given to mask: a piece cut at its matches, as markup_pattern's split cuts it
    (the text between them and the matches, alternately)."""
    if not rx.groups:
        return re.compile("(" + rx.pattern + ")", rx.flags).split

    def cut(piece: str) -> list[str]:
        out: list[str] = []
        pos = 0
        for m in rx.finditer(piece):
            out += (piece[pos : m.start()], m.group())
            pos = m.end()
        out.append(piece[pos:])
        return out

    return cut


_HITS_CHECKED = 8  # markup tokens looked at one by one before the strings are scanned instead
# The same for mask's check of a long reply: each token costs its distance from the last, and the
# full pass over 10 KB of a reply dense in tokens costs some 70 us.
_LONG_HITS_CHECKED = 64


def _any_quoted(text: str, rx: re.Pattern[str], bracketed: bool = False) -> bool:
    """Whether some markup token might stand in a string or a parameter's value: one with a quote
    before it on its line (strings never span lines), or any when a parameter tag is present.
    `bracketed` (what mask asks): and, for that quote, a bracket opened before it, as the strings
    hidden are within brackets (a single-quoted one within parentheses)."""
    if holds(text, "<parameter"):
        return next(_hits(text, rx), None) is not None
    if '"' not in text and "'" not in text:
        return False
    most = _LONG_HITS_CHECKED if bracketed and len(text) >= SHORT else _HITS_CHECKED
    if bracketed and _parity_unsure(text):
        return True  # the parity may misread the strings (see _parity_unsure): the full pass decides
    line = upto = -1
    dq = sq = 0  # quotes (double; single) on the current line up to `upto`
    opened: tuple[int, int] | None = None  # where the first bracket and the first parenthesis stand
    for k, m in enumerate(_hits(text, rx)):
        if k == most:
            return True  # many tokens: the one linear scan of the strings decides
        at = m.start()
        # Its line's start: a line break since the last token (looked for back to it only, so each
        # token costs its distance from the last), else the last token's line.
        nl = text.rfind("\n", max(upto, 0), at)
        start = nl + 1 if nl >= 0 or line < 0 else line
        if start != line:  # a new line: count from its start; else from the last token on it
            line = upto = start
            dq = sq = 0
        if text.find('"', upto, at) >= 0:
            if _escaped_quotes(text, upto, at):
                return True  # `\\"` escapes in a string and opens one outside: the full pass decides
            dq += count_char(text, '"', upto, at)
        sq += count_char(text, "'", upto, at)
        upto = at
        if bracketed and dq and sq:
            return True  # one kind of quote may stand in the other's string: the full pass decides
        # an odd number of quotes before it on its line: it may stand in a string, if that string
        # stands within brackets (a double-quoted one) or parentheses (a single-quoted one): an
        # apostrophe in prose before a reasoning's close tag, no bracket before it, hides nothing
        if bracketed:
            if (dq % 2 or sq) and opened is None:
                opened = (_first(text, "{[("), _first(text, "("))
            if opened is not None and ((dq % 2 and 0 <= opened[0] < at) or (sq and 0 <= opened[1] < at)):
                return True
        elif dq % 2 or sq % 2:
            return True
    return False


def _first(text: str, chars: str) -> int:
    """Where the first of `chars` stands (a memchr each), or -1: a string _string_spans hides
    starts after a bracket (a single-quoted one, a parenthesis) that is open."""
    return min((i for i in (text.find(ch) for ch in chars) if i >= 0), default=-1)


_PLACES_CHECKED = 8  # bracket places looked at (each back to its line's start) before the tokens decide


# Bracket places whose lines' strings _plainly_outside_strings reads (a few steps each) before the
# full pass decides: the walk over 20 places costs a quarter of the token walk's parity counts.
_PLACES_WALKED = 32


def _bracket_places(text: str, most: int = _PLACES_CHECKED, found: list[int] | None = None,
                    seen: Seen | None = None) -> list[int] | None:
    """Where the characters a markup token opens with (_FIRSTS) stand, in order; None past
    `most` of them (a memchr each: a count of each would walk every character). `found`: a list
    an earlier walk that stopped filled (one character after another, in _FIRSTS' order), walked
    on from its last place rather than again from the start. `seen`: the text's index, which
    answers each character's first place (see mask)."""
    places = [] if found is None else found
    chars, begin = _FIRSTS, 0
    if places:  # on from the last place found, with its character
        chars, begin = _FIRSTS[_FIRSTS.index(text[places[-1]]) :], places[-1] + 1
    for ch in chars:
        i = text.find(ch, begin) if seen is None or begin else seen.first(ch)
        begin = 0
        while i >= 0:
            places.append(i)
            if len(places) > most:
                return None
            i = text.find(ch, i + 1)
    places.sort()
    return places


def _brackets_outside_strings(text: str, places: list[int] | None = None) -> bool:
    """No character a markup token opens with (_FIRSTS) can stand in a string mask hides: before
    each, on its line, an even number of double quotes (or no bracket opened before it) and of
    single quotes (or no parenthesis opened before it). Every token opens at one of these places,
    so this is the token walk's answer without the pattern's scan; a handful of places looked at
    (then False, and the full pass decides). The places (`places`: _bracket_places, when the
    caller has them) are walked in order, each line's quotes counted once up to the last place: a
    place is never a quote or a backslash, so the counts of the pieces between places add up to
    the line's. The count is the strings' reading only where each quote opens or closes one, so
    these leave it to the strings read (or the full pass): a backslash before a quote (`\\"`
    escapes inside a string, and outside one it is a backslash and a quote that opens a string),
    both kinds of quote on the line (`'"'` is one string), and Gemma 4's `<|"|>` (no quote)."""
    if places is None:
        places = _bracket_places(text)
        if places is None:
            return False
    opened: tuple[int, int] | None = None
    prev = dq = sq = 0
    for i in places:
        nl = text.rfind("\n", prev, i)
        if nl >= 0:  # a new line: its quotes counted from its start
            prev, dq, sq = nl + 1, 0, 0
        # a short stretch counted at once; a long one by memchr a quote while they are few
        dq += text.count('"', prev, i) if i - prev < SHORT else count_char(text, '"', prev, i)
        if text.find("\\", prev, i) >= 0 and (text.find('\\"', prev, i) >= 0 or text.find("\\'", prev, i) >= 0):
            # An escaped quote: whether it stands in a string (escaped) or before one (a backslash
            # outside a string escapes nothing, so its quote opens a string) takes the token walk.
            return False
        sq += text.count("'", prev, i) if i - prev < SHORT else count_char(text, "'", prev, i)
        prev = i
        if (dq and sq) or text.startswith('<|"|>', i):
            return False  # one kind of quote may stand in the other's string; a quote that is markup
        # any single quote: it may be an apostrophe (no parenthesis innermost), after which the
        # line's quotes pair otherwise; with a parenthesis opened before, the walk decides
        if dq % 2 or sq:
            if opened is None:
                opened = (_first(text, "{[("), _first(text, "("))
            if (dq % 2 and 0 <= opened[0] < i) or (sq and 0 <= opened[1] < i):
                return False
    return True


_WALK_STEPS = 64  # strings and escapes read one by one by _clear_of_strings before the full pass decides


def _clear_of_strings(text: str, positions: list[int], most: int = _PLACES_CHECKED,
                      seen: Seen | None = None) -> bool:
    """No position (ascending; each where a markup token may open) stands in a string mask hides:
    the strings of each position's line read as _TOKENS reads them, found by memchr (a quote opens
    one outside a string, a backslash escapes the next character inside one, a line break or a
    backslash before one ends it; `<|"|>` outside a string is no quote), up to the position. A
    line starts outside any string (no token but the line break holds one), so only the strings
    of the positions' lines are read, each once. A string standing over a position is one mask hides when it is closed
    (its token ends with its quote) and a bracket (for a single-quoted one, a parenthesis) opened
    before it, as far as a look at the first one tells; then, past `most` positions or
    _WALK_STEPS strings and escapes, False: the full pass decides. `seen`: see mask."""
    if len(positions) > most:
        return False
    n = len(text)
    # The next double quote, single quote, backslash and line break at or after where the walk
    # stands (it only goes forward): each found again only once passed.
    nb = eol = -2
    opened: tuple[int, int] | None = None
    steps = pos = 0  # the walk stands outside any string at `pos`
    string: tuple[int, int, bool] | None = None  # the last string read: (start, end, closed)
    nd, ns = (text.find('"'), text.find("'")) if seen is None else (seen.first('"'), seen.first("'"))
    for i in positions:
        while True:
            if string is not None:
                if i < string[1]:
                    break  # the position stands in it (a string ends on its line: no line to check)
                pos, string = string[1], None
            if -1 < nd < pos:
                nd = text.find('"', pos)
            if -1 < ns < pos:
                ns = text.find("'", pos)
            q = nd if ns < 0 or 0 <= nd < ns else ns
            if q < 0 or q >= i:
                break  # no quote before the position: it stands outside strings
            nl = text.rfind("\n", q, i)
            if nl >= 0:
                pos = nl + 1  # the strings of earlier lines end there: read from the position's line
                continue
            if q == nd and q - 2 >= pos and text.startswith('<|"|>', q - 2):
                pos = q + 3  # Gemma 4's string delimiter: markup, no quote
                continue
            if q == ns:  # a single quote: with no parenthesis before it an apostrophe, no string (_walk_tokens)
                if opened is None:
                    opened = (_first(text, "{[("), _first(text, "("))
                if 0 <= opened[1] < q:
                    return False  # a string or an apostrophe, as the parenthesis is innermost or not: the walk decides
                pos = q + 1
                continue
            if -1 < eol <= q or eol == -2:
                eol = text.find("\n", q)
            stop = n if eol < 0 else eol
            c, j = text[q], q + 1
            while True:  # to the string's end (a double-quoted one): its quote, a line break, or a backslash before one
                steps += 1
                if steps > _WALK_STEPS:
                    return False
                if -1 < nd < j:
                    nd = text.find('"', j)
                e = nd
                if e < 0 or e > stop:
                    e = stop
                if -1 < nb < j or nb == -2:
                    nb = text.find("\\", j)
                if 0 <= nb < e:  # an escape first
                    if nb + 1 < n and text[nb + 1] != "\n":
                        j = nb + 2  # the character after the backslash is the string's
                        continue
                    e = nb  # a backslash before a line break or the end: the string ends before it
                end = e + 1 if e < n and text[e] == c else e
                string = (q, end, end - q > 1 and text[end - 1] == c)
                break
        if string is None or not string[2]:
            continue  # outside any string, or in one never closed: nothing hidden there
        q = string[0]
        if opened is None:
            opened = (_first(text, "{[("), _first(text, "("))
        if 0 <= opened[0 if text[q] == '"' else 1] < q:
            return False  # a closed string within brackets, maybe: the full pass decides
    return True


def _escaped_quotes(text: str, a: int, b: int) -> int:
    """text.count('\\"', a, b), from the places of the backslashes (a memchr each) while they are
    few: a two-character count walks every character."""
    n = looked = 0
    i = text.find("\\", a, b)
    while i >= 0:
        if text.startswith('"', i + 1, b):
            n += 1
        looked += 1
        if looked > _PLACES_CHECKED:
            return text.count('\\"', a, b)
        i = text.find("\\", i + 1, b)
    return n


def _holds_markup(piece: str, rx: re.Pattern[str]) -> bool:
    """rx.search(piece) is not None, by way of _hits (a long value is not scanned by the pattern)."""
    return next(_hits(piece, rx), None) is not None


_MISSES = 64  # bracket places tried one by one before the pattern scans the rest itself


def _hits(text: str, rx: re.Pattern[str]) -> Iterator[re.Match[str]]:
    """rx.finditer(text), the same matches. For the markup pattern, whose every token opens with a
    character of _FIRSTS, the pattern is tried only where one of those stands (found by memchr):
    a regex scan of 100 KB of prose costs some 400 us, the memchr a few. A text dense in brackets
    that are no markup (`[[1, 2], [3]]`) gets the plain scan after _MISSES tries."""
    if len(text) < SHORT or rx is not markup_pattern():
        yield from rx.finditer(text)  # a short text: the pattern's own scan costs less than the steps
        return
    nxt = {c: text.find(c) for c in _FIRSTS}
    pos = misses = 0
    while True:
        at = min((i for i in nxt.values() if i >= 0), default=-1)
        if at < 0:
            return
        ch = text[at]
        if at >= pos:
            m = rx.match(text, at)
            if m is not None:
                yield m
                pos = m.end()
            else:
                misses += 1
                if misses == _MISSES:
                    yield from rx.finditer(text, max(pos, at + 1))
                    return
        nxt[ch] = text.find(ch, at + 1)


def _string_spans(text: str, rx: re.Pattern[str]) -> list[tuple[int, int]]:
    """The quoted strings within brackets that hold markup: the strings _TOKENS reads (each from
    where the last token ended), a closed double-quoted one with a bracket open before it, a closed
    single-quoted one with a parenthesis innermost. The strings that cannot hold markup (no
    character a token opens with, before one a token has second) and the text between them are
    passed over in C (_scanner): a reply with none of the others (thousands of calls, nothing to
    hide) costs one regex pass and no Python step a string or a bracket. Past the first string that
    may hold markup, the walk steps over the brackets (outside strings) and those strings only."""
    few = list(islice(_TOKENS.finditer(text), _FEW_TOKENS + 1))
    if len(few) <= _FEW_TOKENS:
        return _walk_tokens(text, few, rx)
    known = rx is markup_pattern()
    passed = _scanner("skip", known).match(text)  # (a possessive star: it always matches)
    if passed is not None and passed.end() == len(text):
        return []  # no string that may hold markup: nothing to walk
    spans: list[tuple[int, int]] = []
    stack: list[str] = []  # the open brackets, innermost last
    walk = _scanner("walk", known)
    matches = walk.finditer(text)
    while (m := next(matches, None)) is not None:
        kind = m.lastindex
        if kind == 1:  # a bracket, or a run of them (a megabyte of nesting: a step a run, not a bracket)
            ch = m.group(1)
            if len(ch) > 1:
                _stack_runs(stack, ch)
            elif ch in _OPENERS:
                stack.append(ch)
            elif stack and stack[-1] == _PAIRS[ch]:
                stack.pop()
        elif kind == 2:  # a string that may hold markup
            tok = m.group(2)
            c = tok[0]
            if c == "'" and not (stack and stack[-1] == "("):
                matches = walk.finditer(text, m.start(2) + 1)  # an apostrophe: no string (see _walk_tokens)
            elif len(tok) > 1 and tok[-1] == c and stack and (c == '"' or stack[-1] == "(") and _holds_markup(tok, rx):
                spans.append(m.span(2))
    return spans


_SAME_BRACKETS = lazy_pattern(r"\{+|\}+|\[+|\]+|\(+|\)+")  # a run of brackets cut into runs of one bracket
_SHORT_RUN = 8


def _stack_runs(stack: list[str], run: str) -> None:
    """_string_spans' bracket stack after a run of brackets, as if each were taken in turn, a run
    of one bracket at a time, in C: openers pushed at once; closers pop their opener while it is
    innermost (as many as they are), and the ones left, facing another bracket, are passed over.
    A short run (`)]`, `[{`) is taken a bracket at a time: fewer steps than cutting it."""
    if len(run) <= _SHORT_RUN:
        for ch in run:
            if ch in _OPENERS:
                stack.append(ch)
            elif stack and stack[-1] == _PAIRS[ch]:
                stack.pop()
        return
    for same in _SAME_BRACKETS.findall(run):
        ch = same[0]
        if ch in _OPENERS:
            stack.extend(same)
        elif stack and stack[-1] == _PAIRS[ch]:
            closed = len(list(islice(takewhile(_PAIRS[ch].__eq__, reversed(stack)), len(same))))
            del stack[len(stack) - closed :]


_OPENERS = frozenset("{[(")
# Tokens (_TOKENS) walked one by one before the scanner reads the reply instead: the walk skips
# to each token in C (every branch opens with a literal), where the scanner's character-class run
# costs a few ns a character (some 350 us over 100 KB of XML with a few quoted attributes).
_FEW_TOKENS = 1024


def _walk_tokens(text: str, tokens: list[re.Match[str]], rx: re.Pattern[str]) -> list[tuple[int, int]]:
    """_string_spans over a reply's tokens, all found (a few). A single quote with no parenthesis
    innermost opens no string: it is an apostrophe (`I'll check. [{"a": "</tool_call>"}]`), and
    read as a string's opening it would hide the line's real strings from the walk, so the walk
    goes on from the character after it."""
    spans: list[tuple[int, int]] = []
    stack: list[str] = []
    matches: Iterator[re.Match[str]] = iter(tokens)
    while (m := next(matches, None)) is not None:
        tok = m.group()
        c = tok[0]
        if c in _OPENERS:
            stack.append(c)
        elif c in "}])":
            if stack and stack[-1] == _PAIRS[c]:
                stack.pop()
        elif c == "'" and not (stack and stack[-1] == "("):
            matches = _TOKENS.finditer(text, m.start() + 1)
        elif c in "\"'" and stack and len(tok) > 1 and tok[-1] == c and (c == '"' or stack[-1] == "(") and _holds_markup(tok, rx):
            spans.append(m.span())
    return spans


@functools.cache
def _scanner(kind: Literal["skip", "walk", "values"], known: bool) -> re.Pattern[str]:
    """One of _string_spans' and _param_values' regexes, compiled on first use (a reply with no
    parameter tag never compiles `values`; one with no string that may hold markup, `walk`).
    `skip`, matched at the start, runs over the text and the strings that cannot hold markup and
    stops at the quote of the first string that may (or at the end); `walk` finds, one match
    each, the runs of brackets outside strings (group 1) and the strings that may hold markup (group 2),
    passing over the rest in the match, and last the tail (no group); `values` finds the open
    tags of the parameters whose values may hold markup (see _param_values).

    A token of markup opens with a character of _FIRSTS and holds no quote or line break, so a
    string holds one only where one of those stands in it (escaped or not); `known` (the pattern
    is markup_pattern): only where one stands before a character some token has second (a few
    classes in a lookahead: the whole prefix tree in it would cost four times the pattern's
    compile; the pattern is asked of the strings found). A string passed over ends as _TOKENS
    reads it: at its quote, or before a line break, a backslash before one, or the text's end;
    every loop is possessive (one pass, no backtracking), and a string that may hold markup fails
    as a whole, so the scan stops at its quote."""
    firsts = re.escape(_FIRSTS)
    if known:
        seconds: dict[str, set[str]] = {}
        for w in _markup_words():
            seconds.setdefault(w[0], set()).add(w[1])
        heads = "|".join(re.escape(f) + "[" + "".join(map(re.escape, sorted(s))) + "]" for f, s in sorted(seconds.items()))
    else:
        heads = f"[{firsts}]"
    if kind == "values":
        # A parameter's value: closed, with no structure before its close (each `<` asked), and a
        # character markup may open with standing in it before the close.
        closed = rf"(?=(?:[^<]++|<(?!/parameter>|{_STRUCTURE}))*+</parameter>)"
        marked = rf"(?=(?:[^{firsts}]++|(?!</parameter>|{heads})[{firsts}])*+(?!</parameter>)(?:{heads}))"
        tag = _PARAM_OPEN_TAG
        # the open tags whose values may hide something (group 1), each other tag passed over
        # whole (as finditer goes on past a match) with the text between; last the tail (no group)
        return re.compile(rf"(?:[^<]++|<(?!parameter[= ])|{tag}(?!{closed}{marked})|(?!{tag})<)*+"
                          rf"(?:({tag}){closed}{marked}|\Z)")
    ends = r"(?=\\?\n|\\?\Z)"

    def plain(q: str, also: str = "") -> str:
        escaped = rf"(?![{also}]|{heads})" if also else rf"(?!{heads})"
        body = rf"(?:[^{q}\\\n{firsts}{also}]++|{escaped}[{firsts}]|\\{escaped}[^\n])*+"
        # a string of plain characters first: most strings, one character class run
        return rf"{q}[^{q}\\\n{firsts}{also}]*+{q}|{q}{body}(?:{q}|{ends})"

    # A single-quoted string holding a bracket or a double quote is not passed over: its quote may
    # be an apostrophe (no parenthesis innermost), after which the walk reads on (_walk_tokens).
    # Gemma 4's `<|"|>` (markup, no quote) is known at its quote, by the two characters before it:
    # outside strings they were read in the character-class run, so a `<` costs the run no step of
    # its own (a reply dense in tags holds one every dozen characters).
    passed = r'(?<=<\|)"\|>|' + plain('"') + "|" + plain("'", r'"{}()\[\]')
    if kind == "skip":
        return re.compile(r"(?:[^\"']++|" + passed + ")*+")
    return re.compile(r"(?:[^\"'{}\[\]()]++|" + passed + r")*+(?:([{}\[\]()]++)|(" + _STRING + r")|\Z)")


_markup.on_change(_scanner.cache_clear)


def _param_values(text: str, known: bool) -> list[tuple[int, int]]:
    """The values of XML parameters closed by their own tag (the first close after the open) with
    no call structure inside, that may hold markup (a character a token opens with, before one a
    token has second, stands in them: the caller asks the pattern of the value itself). The open
    tags are read as finditer reads _PARAM_OPEN_TAG's, and the others passed over in C (_scanner
    `values`): a reply of thousands of parameters with nothing to hide costs no Python step a
    parameter. (A value running into another parameter's tag holds structure, so each tag's
    lookahead ends at the next tag at the latest: one pass.)"""
    opens = list(islice(_PARAM_OPEN.finditer(text), _FEW_PARAMS + 1))
    if len(opens) <= _FEW_PARAMS:
        return _few_param_values(text, opens)
    spans: list[tuple[int, int]] = []
    for m in _scanner("values", known).finditer(text):
        if m.lastindex:
            start = m.end(1)
            spans.append((start, text.find(_PARAM_CLOSE, start)))
    return spans


_FEW_PARAMS = 16  # open tags read one by one (a search each, in C) before the scanner reads them all
_PARAM_OPEN = lazy_pattern(_PARAM_OPEN_TAG)
_PARAM_STRUCTURE = lazy_pattern("<(?:" + _STRUCTURE + ")")


def _few_param_values(text: str, opens: list[re.Match[str]]) -> list[tuple[int, int]]:
    """_param_values for a reply of a few open tags (every closed value with no structure; the caller
    asks the pattern of each): a long value is crossed by a find and a search in C, where the
    scanner's three character-class runs over it cost several times more (a 100 KB value)."""
    spans: list[tuple[int, int]] = []
    for m in opens:
        close = text.find(_PARAM_CLOSE, m.end())
        if close == -1:
            break  # no close anywhere after: neither this value nor a later one is closed
        if not _PARAM_STRUCTURE.search(text, m.end(), close):
            spans.append((m.end(), close))
    return spans


@functools.cache
def markup_pattern() -> re.Pattern[str]:
    """Every dialect's markup worth hiding: markers, their close tags, reasoning and turn tokens.
    Captured whole: its split cuts a piece at its tokens and gives them (_mask_strings)."""
    return re.compile("(" + _trie_pattern(list(_markup_words())) + ")")


@functools.cache
def _markup_words() -> tuple[str, ...]:
    """The tokens markup_pattern finds, sorted."""
    from agentcli.wire import dialects

    found: set[str] = set()
    for name in dialects.names():
        try:
            d = dialects.declared(name)  # data: no module imported
        except (KeyError, ImportError, AttributeError):
            continue
        for m in (*d.markers, *d.stream_markers, *d.owns, *(t for pair in d.empty_lists for t in pair)):
            found.add(m)
            if m.startswith("<") and m.endswith(">") and not m.startswith("</"):
                found.add("</" + m[1:])
    declared = _markup.collected()
    for pair in (*declared.reasoning_tags, *declared.call_wrappers):
        found.update(pair)
    found.update(declared.section_openers)
    found.update(declared.turn_end)
    # Only markup: tokens that open with a bracket (a word like `functools` or `Action:` in a string
    # is no hazard), never holding a quote or a line break (a one-line string holds neither). As a
    # prefix tree whose branches open with those brackets, the scan skips every other character in C.
    kept = {m for m in found if len(m) >= 3 and m[0] in _FIRSTS and '"' not in m and "'" not in m and "\n" not in m}
    return tuple(sorted(kept))


def hides(token: str) -> bool:
    """Whether the mask hides `token` wherever it stands in a string it reads (one of the words
    markup_pattern finds): a reply's strings then never show it to the chain."""
    return token in _hidden_words()


@functools.cache
def _hidden_words() -> frozenset[str]:
    return frozenset(_markup_words())


_markup.on_change(markup_pattern.cache_clear)
_markup.on_change(_markup_words.cache_clear)
_markup.on_change(_hidden_words.cache_clear)


def _trie_pattern(words: list[str]) -> str:
    """One regex for `words` shaped as their prefix tree: at each character one branch is tried,
    so a scan costs about the same whatever the number of words (an alternation of ~200 literals
    tries each at every `<`). The longest word wins where one is a prefix of another."""
    trie: dict[str, Any] = {}
    for w in words:
        node = trie
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict[str, Any]) -> str:
        ends = "" in node
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if ends else body

    return build(trie)
