"""JSON from untrusted sources, with bounded nesting.

The standard decoder recurses once per nesting level, so 5,000 brackets (10 kB) from a model
or a server raise RecursionError far from where anyone expects it. `loads` decodes first (the C
decoder checks its own recursion, so a hostile document costs one RecursionError, not a crash)
and measures depth on the decoded value only when the text holds more brackets than the limit:
a scan of the text before every decode cost 20-200 times the decode itself on large arguments
(code, whose brackets sit inside strings). Deeper documents raise `TooDeep`, a ValueError, so
every caller that already handles malformed JSON handles this too.
"""

from __future__ import annotations

import json
import re
from typing import Any

from agentcli.core.lazy import lazy_pattern

MAX_DEPTH = 100  # far beyond any real tool argument; far below the interpreter's recursion limit

_MARKS = lazy_pattern(r'[\[\]{}"]')
_STRING_REST = lazy_pattern(r'(?:[^"\\]|\\.)*"', re.DOTALL)  # from after an opening quote to its close


class TooDeep(ValueError):
    """A JSON document nested deeper than MAX_DEPTH."""

    def __init__(self, depth: int, limit: int) -> None:
        super().__init__(f"JSON nested deeper than {limit} levels (at least {depth}); flatten the structure")
        self.depth = depth
        self.limit = limit


def depth(text: str | bytes, stop_at: int | None = None) -> int:
    """The deepest bracket nesting outside strings; stops counting once past `stop_at`."""
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", errors="replace")
    deepest = level = pos = 0
    while (m := _MARKS.search(text, pos)) is not None:
        c, pos = m.group(), m.end()
        if c == '"':
            end = _STRING_REST.match(text, pos)
            if end is None:
                break  # an unterminated string runs to the end: nothing after it counts
            pos = end.end()
        elif c in "[{":
            level += 1
            if level > deepest:
                deepest = level
                if stop_at is not None and deepest > stop_at:
                    break
        elif c in "]}":
            level = max(0, level - 1)
    return deepest


def _opens(text: str | bytes) -> int:
    if isinstance(text, str):
        return text.count("[") + text.count("{")
    return text.count(b"[") + text.count(b"{")


_FEW = 16  # brackets found one by one before the text's brackets are counted instead


def _opens_over(text: str | bytes, limit: int) -> bool:
    """_opens(text) > limit. The brackets are found one by one (a memchr each) while there are
    few: a count of one character walks every character (some 30 us per 100 KB, half the decode
    of a long string argument), and arguments usually hold a handful; past _FEW they are counted."""
    if not isinstance(text, str):
        return _opens(text) > limit
    seen = 0
    for ch in "[{":
        i = text.find(ch)
        while i >= 0:
            seen += 1
            if seen > _FEW:
                return _opens(text) > limit
            i = text.find(ch, i + 1)
    return seen > limit


def loads(text: str | bytes, *, limit: int = MAX_DEPTH, **kwargs: Any) -> Any:
    """json.loads that never returns a value nested past `limit`: TooDeep (a ValueError) instead.

    Decodes once; the depth walk over the decoded value runs only when the text has more opening
    brackets than `limit` (outside strings or in them: counting is one C pass, deciding is not).
    """
    try:
        value = json.loads(text, **kwargs)
    except RecursionError:
        raise TooDeep(limit + 1, limit) from None
    if _opens_over(text, limit):
        found = nesting(value, limit)
        if found > limit:
            raise TooDeep(found, limit)
    return value


def nesting(value: Any, limit: int = MAX_DEPTH) -> int:
    """Depth of an already-decoded value, measured without recursion (stops past `limit`)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            if deepest > limit:
                return deepest
            children = item.values() if isinstance(item, dict) else item
            stack.extend((c, level + 1) for c in children)
    return deepest


def dumps(value: Any, **kwargs: Any) -> str:
    """json.dumps whose result always encodes as UTF-8.

    With ensure_ascii=False a lone surrogate (from a model's `\\ud800`, or an undecodable file
    name) is copied raw and breaks every later encode. It can only sit inside a JSON string, so
    writing it as its `\\uXXXX` escape gives the same document, valid UTF-8.
    """
    text = json.dumps(value, **kwargs)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text


def body(value: Any) -> bytes:
    """A request body: compact JSON (as httpx writes it), UTF-8 whatever strings it holds."""
    return dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


_HIGH = lazy_pattern(r"[\ud800-\udbff]\Z")
_SURROGATE = lazy_pattern(r"[\ud800-\udfff]")


def join_surrogates(text: str) -> str:
    """Pairs of UTF-16 surrogates (an emoji a server sent as two `\\uXXXX` escapes, perhaps in
    two chunks) made into the one character they encode; lone ones stay as they are."""
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


class SurrogateJoiner:
    """Per-stream state: holds a trailing high surrogate until the next delta can complete it."""

    def __init__(self) -> None:
        self._held = ""

    def feed(self, text: str) -> str:
        text, self._held = self._held + text, ""
        if _HIGH.search(text):
            text, self._held = text[:-1], text[-1]
        return join_surrogates(text)

    def flush(self) -> str:
        held, self._held = self._held, ""
        return held
