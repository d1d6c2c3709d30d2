"""File names as a model may see them.

POSIX names are bytes; Python carries the bytes that are not UTF-8 as lone surrogates
(surrogateescape). Those cannot be encoded into a request or a transcript, and a newline or
escape in a name would forge extra lines of a listing. `shown` keeps every other character and
writes those as escapes (`\\xff` for an undecodable byte), so one odd name never breaks the
whole listing.
"""

from __future__ import annotations

import re

_ODD = re.compile(r"[\x00-\x1f\x7f\ud800-\udfff]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    if 0xDC80 <= c <= 0xDCFF:
        return f"\\x{c - 0xDC00:02x}"
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def shown(name: str) -> str:
    """`name` safe to print and encode: undecodable bytes and control characters escaped."""
    return _ODD.sub(_escape, name)


def is_odd(name: str) -> bool:
    """Whether `shown(name)` differs from `name`."""
    return _ODD.search(name) is not None
