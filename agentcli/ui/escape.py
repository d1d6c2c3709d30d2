"""Show what will really run: control, ANSI, bidi and zero-width characters made visible."""

from __future__ import annotations

import re

# C0/C1 controls except \n and \t, DEL, bidi overrides/isolates, zero-width and BOM.
_HIDDEN = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def _escape(m: re.Match[str]) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


def visible(text: str, *, keep_newlines: bool = True) -> str:
    out = _HIDDEN.sub(_escape, text)
    return out if keep_newlines else out.replace("\n", "\\n").replace("\t", "\\t")


def short_args(arguments: dict, limit: int = 80) -> str:
    """`key=value` pairs on one line, each value cut short, hidden characters escaped."""
    parts = []
    for k, v in arguments.items():
        s = v if isinstance(v, str) else repr(v)
        s = visible(s, keep_newlines=False)
        parts.append(f"{k}={s[:40] + '…' if len(s) > 40 else s}")
    line = " ".join(parts)
    return line if len(line) <= limit else line[: limit - 1] + "…"
