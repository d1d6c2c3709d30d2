"""Delimiter-scanning helpers shared by the token-delimited dialects.

Everything here is linear in the input (str.find loops, the C JSON scanner) so a
dialect stays fast on megabyte outputs; nothing here raises on model text.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._callscan import decode_at
from agentcli.wire.dialects._seen import SHORT, find_far, locate
from agentcli.wire.types import Candidate

WS = " \t\r\n"  # the whitespace JSON allows between tokens (and skip_ws skips)

ParseResult = tuple[list[Candidate], str]


def total(parse: Callable[[Any, str], ParseResult]) -> Callable[[Any, str], ParseResult]:
    """Make a parse method total: any unexpected error degrades to "no call, text unchanged"."""

    @functools.wraps(parse)
    def wrapper(self: Any, text: str) -> ParseResult:
        if not isinstance(text, str) or not text:
            return [], text if isinstance(text, str) else ""
        try:
            return parse(self, text)
        except Exception as exc:  # a parser bug must never take the turn down, nor pass unseen
            from agentcli.wire import failures

            failures.record(f"dialect {getattr(self, 'name', type(self).__name__)}", exc)
            return [], text

    return wrapper


def skip_ws(text: str, pos: int, end: int | None = None) -> int:
    """First index at or after `pos` (before `end`) that is not whitespace."""
    stop = len(text) if end is None else end
    while pos < stop and text[pos] in WS:
        pos += 1
    return pos


_VALUE_START = '{["-0123456789tfn'


_FIRST_IN = {"[": _VALUE_START + "]}", "{": '"}'}  # what may follow an opening bracket (after whitespace)


def decode_json_at(text: str, pos: int) -> tuple[Any, int] | None:
    """Decode one JSON value starting at `pos` (leading whitespace allowed); (value, end) or None.
    Windowed like _callscan.decode_at, so a miss far into a long text costs no more than a hit."""
    return decode_json_from(text, skip_ws(text, pos))


def decode_json_from(text: str, pos: int) -> tuple[Any, int] | None:
    """decode_json_at of a `pos` already past any whitespace (a caller that skipped it, or looked)."""
    n = len(text)
    if pos >= n:
        return None
    c = text[pos]
    if c not in _VALUE_START:
        return None
    follows = _FIRST_IN.get(c)
    if follows is not None:  # cheap look at the first member rejects most junk undecoded
        nxt = pos + 1
        if nxt < n and text[nxt] in WS:
            nxt = skip_ws(text, nxt)
        if nxt < n:
            ch = text[nxt]
            if ch not in follows:
                return None
            if ch in "tfn" and not text.startswith(("true", "false", "null"), nxt):
                return None
    return decode_at(text, pos)


# Python source tokens, roughly: a string literal, a word, or one punctuation character. A string
# that never closes runs to the end of its line, so every match succeeds: one pass, no backtracking.
_PY_TOKEN = lazy_pattern(
    r"""(?:"(?:[^"\\\n]++|\\.?)*+(?:"|(?=\n)|\Z)|'(?:[^'\\\n]++|\\.?)*+(?:'|(?=\n)|\Z))|\w++|[^\w\s]""", re.S
)


class AstBudget:
    """The Python tokens one parse may still hand to `ast.parse`. It costs about a microsecond per
    token while string contents are nearly free, so a megabyte of dense junk is refused, not parsed."""

    __slots__ = ("left",)

    def __init__(self, tokens: int) -> None:
        self.left = tokens

    def take(self, src: str) -> bool:
        """Spend `src`'s tokens (counted no further than what is left); False once over budget."""
        count = py_tokens(src, self.left + 1)
        self.left -= count
        return self.left >= 0

    @property
    def spent(self) -> bool:
        """Whether every later take() fails (what is left only goes down): a walk over candidates
        that each need a take() to be read can stop."""
        return self.left < 0

    def spend(self, count: int) -> bool:
        """take() of a source whose tokens were counted another way (`count` of them)."""
        self.left -= min(count, self.left + 1)
        return self.left >= 0


_ESCAPES_WALKED = 16  # escapes in one string stepped over by memchr before the pattern reads the rest


def py_tokens(src: str, most: int) -> int:
    """The matches of _PY_TOKEN in `src`, counted no further than `most`: the count of its scan.
    A string literal is one token however long, and the pattern reads its contents a character at
    a time (as long as ast.parse of them, on a 100 KB argument): here a string's end is found by
    memchr (its quote, a backslash escaping the next character, a line break before which it ends),
    and only the text between strings, which holds no quote, gets the pattern's scan."""
    n, count, pos = len(src), 0, 0
    # The next double quote, single quote, backslash and line break at or after where the count
    # stands (it only goes forward): each found again only once passed.
    nd = ns = nb = nn = -2
    while count < most:
        if -1 < nd < pos or nd == -2:
            nd = src.find('"', pos)
        if -1 < ns < pos or ns == -2:
            ns = src.find("'", pos)
        q = nd if ns < 0 or 0 <= nd < ns else ns
        stop = n if q < 0 else q
        if stop > pos:  # words and punctuation: no string opens before `stop`
            for _ in _PY_TOKEN.finditer(src, pos, stop):
                count += 1
                if count == most:
                    return count
        if q < 0:
            return count
        count += 1  # the string that opens at q
        c, j, escapes = src[q], q + 1, 0
        while True:
            if c == '"':
                if -1 < nd < j:
                    nd = src.find('"', j)
                e = nd
            else:
                if -1 < ns < j:
                    ns = src.find("'", j)
                e = ns
            if -1 < nn < j or nn == -2:
                nn = src.find("\n", j)
            if 0 <= nn and (e < 0 or nn < e):
                e = nn
            if -1 < nb < j or nb == -2:
                nb = src.find("\\", j)
            if 0 <= nb and (e < 0 or nb < e):  # an escape first: the backslash and the character after it
                escapes += 1
                if escapes > _ESCAPES_WALKED:  # many: the pattern reads the string, from its start
                    m = _PY_TOKEN.match(src, q)
                    pos = m.end() if m is not None else n
                    break
                j = nb + 2
                continue
            if e < 0:
                pos = n  # it runs to the end
            else:
                pos = e + 1 if src[e] == c else e  # its closing quote, or the line break it stops before
            break
    return count


class _Invalid:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<invalid json>"


INVALID: Any = _Invalid()


def loads(s: str) -> Any:
    """json.loads that returns INVALID instead of raising."""
    try:
        return jsonsafe.loads(s)
    except (ValueError, RecursionError, TypeError):
        return INVALID


def json_object_complete(s: str) -> bool:
    """Whether `s` (stripped) is a complete JSON object: the test for a call cut off at end of text."""
    return isinstance(loads(s.strip()), dict)


def remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` without the given (start, end) spans (sorted here; overlaps merge)."""
    if len(spans) == 1:  # the usual one call: two slices, no sort or list
        start, end = spans[0]
        return text[:start] + text[end:]
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start > pos:
            out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


_NAME_KEYS = ("name",)
_ARG_KEYS = ("arguments", "parameters")
_ID_KEYS = ("id",)


def call_from_object(
    obj: Any,
    raw: str,
    dialect: str,
    *,
    name_keys: tuple[str, ...] = _NAME_KEYS,
    arg_keys: tuple[str, ...] = _ARG_KEYS,
    id_keys: tuple[str, ...] = _ID_KEYS,
    require_args: bool = False,
) -> Candidate | None:
    """A Candidate from a decoded {"name": .., "arguments": ..} object, or None when it is not one."""
    return _call_from(obj, raw, dialect, name_keys, arg_keys, id_keys, require_args)


def _call_from(obj: Any, raw: str, dialect: str, name_keys: tuple[str, ...], arg_keys: tuple[str, ...],
               id_keys: tuple[str, ...], require_args: bool) -> Candidate | None:
    """call_from_object with its options passed in place (every parse of a JSON call comes here:
    plain loops, no generator, no keyword dict, the Candidate built from positions)."""
    if not isinstance(obj, dict):
        return None
    for k in name_keys:
        name = obj.get(k)
        if isinstance(name, str):
            break
    else:
        return None
    name = name.strip()
    if not name:
        return None
    for k in arg_keys:
        if k in obj:
            args = obj[k]
            break
    else:
        if require_args:
            return None
        args = None
    if args is None:
        args = {}
    elif not isinstance(args, (dict, str)):
        return None
    call_id = None
    for k in id_keys:
        v = obj.get(k)
        if v is not None and isinstance(v, (str, int)) and not isinstance(v, bool) and v != "":
            call_id = str(v)
            break
    return Candidate(name, args, raw, dialect, False, call_id)


def calls_from_json(
    value: Any,
    raw: str,
    dialect: str,
    *,
    name_keys: tuple[str, ...] = _NAME_KEYS,
    arg_keys: tuple[str, ...] = _ARG_KEYS,
    id_keys: tuple[str, ...] = _ID_KEYS,
    require_args: bool = False,
) -> list[Candidate] | None:
    """Candidates from a decoded object or array of call objects; None unless every element is a call."""
    if not isinstance(value, list):
        cand = _call_from(value, raw, dialect, name_keys, arg_keys, id_keys, require_args)
        return None if cand is None else [cand]
    if not value:
        return None
    out: list[Candidate] = []
    for item in value:
        cand = _call_from(item, raw, dialect, name_keys, arg_keys, id_keys, require_args)
        if cand is None:
            return None
        out.append(cand)
    return out


def strip_one_newline(value: str) -> str:
    """Drop one leading and one trailing newline: the layout newline templates put around a value."""
    if value.startswith("\n"):
        value = value[1:]
    if value.endswith("\n"):
        value = value[:-1]
    return value


def tag_params(
    body: str,
    open_prefix: str,
    name_end: str,
    close_tag: str,
    *,
    alt_open_prefix: str | None = None,
    alt_close_tag: str | None = None,
    last_close: bool = False,
    start: int = 0,
    end: int | None = None,
) -> tuple[list[tuple[str, str, str]], bool]:
    """Scan `<open_prefix>NAME<name_end>[attrs>]VALUE<close_tag>` parameters in `body`
    (in body[start:end], read in place: a long call's body is not copied to be scanned).

    Returns ([(name, attrs, value)], complete). When `name_end` does not itself end
    with ">", the text up to the next ">" is returned as `attrs` (e.g. ` string="true"`).
    `complete` is False when a parameter is opened but never closed (a stream cut mid
    value). Values are returned verbatim. With `last_close`, a close tag ends a value only when the
    next parameter or the end of the body follows it, so a value may hold the close tag as text.
    """
    params: list[tuple[str, str, str]] = []
    pos = start
    n = len(body) if end is None else end
    cache: dict[str, int] = {}
    while pos < n:
        at = find_far(body, open_prefix, pos, n)  # a long value: where the tag's rare character stands
        plen = len(open_prefix)
        alt_opened = False
        if alt_open_prefix:
            alt = find_cached(body, alt_open_prefix, pos, cache)
            if alt != -1 and alt + len(alt_open_prefix) <= n and (at == -1 or alt < at):
                at, plen, alt_opened = alt, len(alt_open_prefix), True
        if at == -1:
            break
        name_start = at + plen
        ne = body.find(name_end, name_start, n)
        if ne == -1:
            return params, False
        name = body[name_start:ne]
        attrs = ""
        val_start = ne + len(name_end)
        if not name_end.endswith(">"):
            gt = body.find(">", val_start, n)
            if gt == -1:
                return params, False
            attrs = body[val_start:gt]
            val_start = gt + 1
        close = find_far(body, close_tag, val_start, n)
        clen = len(close_tag)
        if alt_close_tag and (alt_opened or not alt_open_prefix):
            # the other spelling's close ends a value its own opener opened (with no other
            # opener, any value): a value opened by the family's own tag holds it as text
            alt = find_cached(body, alt_close_tag, val_start, cache)
            if alt != -1 and alt + len(alt_close_tag) <= n and (close == -1 or alt < close):
                close, clen = alt, len(alt_close_tag)
        if close == -1:
            return params, False
        if last_close:
            close = _value_close(body, close, close_tag, open_prefix, n)
        params.append((name.strip(), attrs, body[val_start:close]))
        pos = close + clen
    return params, True


def _value_close(body: str, first: int, close_tag: str, open_prefix: str, end: int | None = None) -> int:
    """The close tag at or after `first` that the next parameter or the body's end (`end`) follows;
    `first` when none does. Each look starts past the previous one: one pass over the value."""
    n = len(body) if end is None else end
    at = first
    while at != -1:
        nxt = skip_ws(body, at + len(close_tag), n)
        if nxt >= n or body.startswith(open_prefix, nxt, n):
            return at
        at = body.find(close_tag, at + len(close_tag), n)
    return first


def attr_value(attrs: str, key: str) -> str | None:
    """The value of `key="..."` in a tag's attribute text, or None."""
    marker = key + '="'
    i = attrs.find(marker)
    if i == -1:
        return None
    j = attrs.find('"', i + len(marker))
    if j == -1:
        return None
    return attrs[i + len(marker) : j]


class Block:
    """One `begin ... end` region found by iter_blocks; `closed` is False when cut off."""

    __slots__ = ("start", "body_start", "body_end", "end", "closed")

    def __init__(self, start: int, body_start: int, body_end: int, end: int, closed: bool) -> None:
        self.start, self.body_start, self.body_end, self.end, self.closed = start, body_start, body_end, end, closed


def iter_blocks(text: str, begin: str, end: str, start: int = 0, stop: int | None = None) -> Iterator[Block]:
    """Yield `begin..end` blocks in text[start:stop] in one linear pass.

    A block whose end token is missing before the next `begin` (or before `stop`) is
    yielded unclosed, its body running up to that point; scanning resumes there.
    """
    stop = len(text) if stop is None else stop
    blen, elen = len(begin), len(end)
    # Tokens looked for where their rare character stands only on a text long enough for the plain
    # search to walk it a character at a time (see _seen.find_far): below that, a family's tokens share
    # that character (a full-width bar), and each search would stop at every other token of the reply.
    b = find_far(text, begin, start, stop)
    next_end = -2  # cached position of the next end token; -1 = none left
    while b != -1:
        body_start = b + blen
        nb = find_far(text, begin, body_start, stop)
        if next_end != -1 and next_end < body_start:
            next_end = find_far(text, end, body_start, stop)
        e = next_end
        if e != -1 and (nb == -1 or e < nb):
            yield Block(b, body_start, e, e + elen, True)
            b = nb if nb == -1 or nb >= e + elen else find_far(text, begin, e + elen, stop)
        else:
            cut = stop if nb == -1 else nb
            yield Block(b, body_start, cut, cut, False)
            b = nb


def section_calls(
    text: str, block: tuple[str, str], start: int, stop: int, make: Callable[[str, Block], Candidate | None],
    raw_first: bool = False,
) -> tuple[list[Candidate], int]:
    """The calls `make` reads from the `block` regions of text[start:stop], each with its whole block as raw;
    (calls, end of the last call's block, or `start` when there is none). With `raw_first`, `make` is given
    a closed block's own text (copied out once: in a reply stored two bytes a character, the copy of
    a block of one-byte characters is narrowed, and read there its values cost less) and an unclosed
    block's the empty string; the positions of the block stay the reply's."""
    found: list[Candidate] = []
    last = start
    for blk in iter_blocks(text, block[0], block[1], start, stop):
        if raw_first:
            raw = text[blk.start : blk.end] if blk.closed else ""
            cand = make(raw, blk)
            if cand is not None:
                cand.raw = raw if blk.closed else text[blk.start : blk.end]
                found.append(cand)
                last = blk.end
            continue
        cand = make(text, blk)
        if cand is not None:
            cand.raw = text[blk.start : blk.end]
            found.append(cand)
            last = blk.end
    return found, last


def parse_sections(
    text: str,
    section: tuple[str, str],
    block: tuple[str, str],
    make: Callable[[str, Block], Candidate | None],
    *,
    start: int = 0,
    trailer: re.Pattern[str] | None = None,
    raw_first: bool = False,
) -> ParseResult:
    """Calls written as blocks inside section tokens, `<calls><call>..</call></calls>`.

    A section holding a call is removed whole; one cut off (no end token) is removed only up to
    its last call, plus whatever `trailer` matches right after it, so text after a cut stays.
    `raw_first`: see section_calls.
    """
    cands: list[Candidate] = []
    spans: list[tuple[int, int]] = []
    for sec in iter_blocks(text, section[0], section[1], start):
        found, last = section_calls(text, block, sec.body_start, sec.body_end, make, raw_first)
        if not found:
            continue
        cands.extend(found)
        end = sec.end
        if not sec.closed:
            tail = trailer.match(text, last) if trailer is not None else None
            end = tail.end() if tail else last
        spans.append((sec.start, end))
    if not cands:
        return [], text
    return cands, remove_spans(text, spans)


def find_cached(text: str, needle: str, pos: int, cache: dict[str, int]) -> int:
    """text.find(needle, pos) for a scan whose `pos` never goes back: a hit still ahead, or a miss,
    is remembered in `cache` (one per text), so a needle that never comes costs one pass, not one per call."""
    at = cache.get(needle, -2)
    if at != -1 and at < pos:
        at = locate(text, needle, pos)
        cache[needle] = at
    return at


def find_first(text: str, needles: tuple[str, ...], pos: int, cache: dict[str, int]) -> tuple[int, str]:
    """Earliest occurrence at/after `pos` of any needle; (-1, "") if none. `cache` keeps it linear."""
    best, which = -1, ""
    short = len(text) - pos < SHORT  # locate's own plain search, asked without its call
    for nd in needles:
        at = cache.get(nd, -2)
        if at != -1 and at < pos:
            at = text.find(nd, pos) if short else locate(text, nd, pos)  # where its rare character stands
            cache[nd] = at
        if at != -1 and (best == -1 or at < best):
            best, which = at, nd
    return best, which


def prefixed_json_calls(
    text: str,
    prefixes: tuple[str, ...],
    dialect: str,
    *,
    closers: tuple[str, ...] = (),
    first_chars: str = "[{",
    then: str = "",
    limit: int = 0,
    **kw: Any,
) -> tuple[list[Candidate], list[tuple[int, int]]]:
    """Calls written as `PREFIX [THEN] <json object or array of calls> [CLOSER]`.

    The JSON must follow the prefix (after whitespace) and decode completely; a cut-off
    document is no call. `then` is a second token the prefix needs (after whitespace:
    InternLM's `<|action_start|> <|plugin|>`). The span covers the prefix, the JSON and a
    closer that follows it after optional whitespace. `limit` (when not 0): the scan stops once it
    has that many calls (a lane that declines a flood of calls need not read the rest of it).
    """
    cands: list[Candidate] = []
    spans: list[tuple[int, int]] = []
    cache: dict[str, int] = {}
    pos, n = 0, len(text)
    while pos < n:  # (no prefix starts at the end: a call closing the reply is the last, asked no more)
        at, which = find_first(text, prefixes, pos, cache)
        if at == -1:
            break
        pos = j = at + len(which)
        if j < n and text[j] in WS:  # whitespace skipped where there is some (a call each skip costs)
            j = skip_ws(text, j)
        if then:
            if not text.startswith(then, j):
                continue
            j += len(then)
            if j < n and text[j] in WS:
                j = skip_ws(text, j)
        if j >= n or text[j] not in first_chars:
            continue
        got = decode_json_from(text, j)
        if got is None:
            continue
        value, end = got
        found = calls_from_json(value, "", dialect, **kw)  # raw set below: a long call is copied once
        if not found:
            continue
        if closers:
            k = skip_ws(text, end) if end < n and text[end] in WS else end
            for closer in closers:
                if text.startswith(closer, k):
                    end = k + len(closer)
                    break
        for cand in found:
            cand.raw = text[at:end]  # a copy each, as before (a call's raw is its own string)
        cands.extend(found)
        spans.append((at, end))
        pos = end
        if limit and len(cands) >= limit:
            break
    return cands, spans
