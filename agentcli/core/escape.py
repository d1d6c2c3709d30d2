"""The one rendering rule: untrusted text is shown, never interpreted.

Model text, reasoning, tool arguments and output, file names, paths, server errors and model
ids reach the terminal only through this module: `visible` turns every character that could
hide, reorder or fake what is printed (controls, ANSI escapes, bidi controls, zero-width and
tag characters, Hangul fillers, lone surrogates) into a printable escape, and `styled` builds
a rich `Text` whose untrusted parts are plain strings, so `[`, `]` and `\\` are never markup.
Consoles from `make_console` have markup and emoji codes switched off as a second net.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.text import Text

# Anything outside printable ASCII is looked at; plain ASCII text never leaves the fast path.
_SUSPECT = re.compile(r"[^\x20-\x7e\n\t]")
_HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Letters by category that render as nothing (Hangul fillers, Mongolian vowel separator, braille blank).
_BLANK_LETTERS = frozenset({0x115F, 0x1160, 0x3164, 0xFFA0, 0x180E, 0x2800})
# Shown only in strict mode (approval): look like a space or change a glyph without showing.
_CONFUSABLE_CATEGORIES = frozenset({"Zs", "Mn", "Me"})


def _code(c: int) -> str:
    if 0xDC80 <= c <= 0xDCFF:  # an undecodable byte carried by surrogateescape: show the byte
        return f"\\x{c - 0xDC00:02x}"
    if c < 0x100:
        return f"\\x{c:02x}"
    return f"\\u{c:04x}" if c < 0x10000 else f"\\U{c:08x}"


@lru_cache(maxsize=4096)
def _shown(ch: str, strict: bool) -> str:
    import unicodedata  # only text outside printable ASCII gets here

    c = ord(ch)
    cat = unicodedata.category(ch)
    if cat in _HIDDEN_CATEGORIES or c in _BLANK_LETTERS:
        return _code(c)
    if strict and cat in _CONFUSABLE_CATEGORIES and c != 0x20:
        return _code(c)
    return ch


def visible(text: str, *, keep_newlines: bool = True, strict: bool = False) -> str:
    """`text` with hidden characters as escapes; `strict` also escapes odd spaces and combining marks."""
    out = _SUSPECT.sub(lambda m: _shown(m.group(), strict), text)
    return out if keep_newlines else out.replace("\n", "\\n").replace("\t", "\\t")


def hidden_count(text: str) -> int:
    """How many characters `visible(text, strict=True)` had to escape."""
    return sum(1 for m in _SUSPECT.finditer(text) if _shown(m.group(), True) != m.group())


def styled(*parts: str | tuple[str, str]) -> Text:
    """A rich Text from parts: a plain string is untrusted (made visible); a (string, style)
    pair is our own wording with a style. Nothing is parsed as markup."""
    from rich.text import Text

    text = Text()
    for part in parts:
        if isinstance(part, tuple):
            text.append(visible(part[0]), style=part[1])
        else:
            text.append(visible(part))
    return text


def short_args(arguments: dict, limit: int = 80) -> str:
    """`key=value` pairs on one line, each value cut short, hidden characters escaped."""
    parts = []
    for k, v in arguments.items():
        s = v if isinstance(v, str) else repr(v)
        s = visible(s, keep_newlines=False)
        parts.append(f"{visible(str(k), keep_newlines=False)}={s[:40] + '…' if len(s) > 40 else s}")
    line = " ".join(parts)
    return line if len(line) <= limit else line[: limit - 1] + "…"
