"""Scrub secrets from any text before it reaches a terminal, log or transcript.

Two nets: the exact values of secrets we know (in every common encoding), and key-shaped
patterns for keys we never saw. A secret is known when its environment variable has a secret
name (KEY, TOKEN, ...), or when a profile marked it: the variable its `api_key_env` names
(whatever that name is) and the values of its custom headers. The known values are worked out
once per environment and marks, not on every write.
"""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from functools import cache, lru_cache
from typing import Any, cast

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MASK = "[REDACTED]"
MIN_SECRET_CHARS = 8  # shorter values would mask ordinary words

_PATTERNS = (
    r"(?:sk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_\-]{16,}"  # OpenAI / Anthropic / OpenRouter keys
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google API keys
    r"|gsk_[A-Za-z0-9]{20,}"  # Groq
    r"|(?<=Bearer )[A-Za-z0-9._\-]{12,})"
)


@cache
def _compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """A pattern compiled on first use: a command that never scrubs (a listing) does not pay for it."""
    return re.compile(pattern, flags)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def _b64_cores(raw: bytes) -> set[str]:
    """Base64 of `raw` at each of the three byte alignments, cut to the characters that depend on
    `raw` alone: a key base64-encoded inside a longer text (a .env file, "Bearer <key>") is found too."""
    import base64

    out = set()
    for shift in range(3):
        enc = base64.b64encode(b"\0" * shift + raw + b"\0\0").decode()
        start = (shift + 2) // 3 * 4  # the first group holding no byte from before `raw`
        end = (shift + len(raw)) // 3 * 4  # the last group holding only bytes of `raw`
        if end - start >= MIN_SECRET_CHARS:
            core = enc[start:end]
            out |= {core, core.replace("+", "-").replace("/", "_")}
    return out


@lru_cache(maxsize=256)
def forms(value: str) -> tuple[str, ...]:
    """Every form a leak of `value` may take, longest first: raw, JSON-escaped, base64 (whole and at
    every alignment, standard and URL-safe), URL-encoded (as needed and every byte), hex."""
    import base64

    raw = value.encode()
    b64 = base64.b64encode(raw).decode()
    every_byte = "".join(f"%{b:02X}" for b in raw)
    found = {
        value,
        json.dumps(value)[1:-1],
        b64,
        b64.rstrip("="),
        base64.urlsafe_b64encode(raw).decode(),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value),
        every_byte,
        every_byte.lower(),
        raw.hex(),
        raw.hex().upper(),
        "".join(f"\\x{b:02x}" for b in raw),
        *_b64_cores(raw),
    }
    return tuple(sorted((f for f in found if len(f) >= MIN_SECRET_CHARS), key=len, reverse=True))


class _Known:
    """The known secrets' forms, rebuilt only when the secret items of the environment or the marks change."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._names: set[str] = set()  # variables marked secret though their name does not say so
        self._values: set[str] = set()  # secret values that live outside the environment (profile headers)
        self._env: dict[Any, Any] | None = None
        self._marks = 0
        self._built_marks = -1
        self._relevant: tuple[tuple[str, str], ...] | None = None  # the secret items the forms were built from
        self.forms: tuple[str, ...] = ()
        self.builds = 0  # how often the forms were worked out (tests count it)

    def mark(self, names: Iterable[str] = (), values: Iterable[str] = ()) -> None:
        with self._lock:
            new_names = {n for n in names if n} - self._names
            new_values = {v for v in values if v and len(v) >= MIN_SECRET_CHARS} - self._values
            if new_names or new_values:
                self._names |= new_names
                self._values |= new_values
                self._marks += 1

    def current(self) -> tuple[str, ...]:
        # os.environ's own dict (bytes on POSIX) compares at C speed; a copy is made only when it changed.
        env = cast("Mapping[Any, Any]", getattr(os.environ, "_data", os.environ))
        if env == self._env and self._marks == self._built_marks:
            return self.forms
        with self._lock:
            snapshot, marks = dict(env), self._marks
            # Keyed on the secret items alone: a change to any other variable (a tool's PWD, a
            # library's setting) costs one scan of the names, not a rebuild of every form.
            relevant = tuple(sorted((name, value) for name, value in os.environ.items()
                                    if (name in self._names or is_secret_name(name)) and len(value) >= MIN_SECRET_CHARS))
            if relevant != self._relevant or marks != self._built_marks:
                found: set[str] = set()
                for _, value in relevant:
                    found.update(forms(value))
                for value in self._values:
                    found.update(forms(value))
                self.forms = tuple(sorted(found, key=len, reverse=True))
                self._relevant = relevant
                self.builds += 1
            self._env, self._built_marks = snapshot, marks
        return self.forms


_KNOWN = _Known()


def mark_secret_env(*names: str) -> None:
    """Treat these environment variables as secrets whatever their names (a profile's api_key_env)."""
    _KNOWN.mark(names=names)


def mark_secret_values(*values: str) -> None:
    """Treat these values as secrets wherever they appear (a profile's custom auth headers)."""
    _KNOWN.mark(values=values)


# Headers a profile may set that carry no credential (OpenRouter's attribution, content negotiation).
PLAIN_HEADERS = frozenset({"accept", "accept-language", "content-type", "user-agent", "http-referer", "referer",
                           "x-title"})


def header_secrets(headers: Mapping[str, str]) -> list[str]:
    """The values of custom headers that may carry a credential (X-Auth-Token, a gateway's key...)."""
    return [v for k, v in headers.items() if k.strip().lower() not in PLAIN_HEADERS and v]


def secret_values() -> tuple[str, ...]:
    """Every form of every known secret, longest first."""
    return _KNOWN.current()


def _all_forms(extra: tuple[str, ...]) -> tuple[str, ...]:
    known = _KNOWN.current()
    if not extra:
        return known
    more = {f for s in extra if s and len(s) >= MIN_SECRET_CHARS for f in forms(s)}
    return tuple(sorted(more.union(known), key=len, reverse=True))


# Base64 as `base64` and `openssl base64` print it: lines of 76 or 64 characters. A key inside may
# span a line break, so such a block is judged joined, and masked whole.
_WRAPPED_B64 = r"^(?:[A-Za-z0-9+/_-]{40,}={0,2}\r?\n)+[A-Za-z0-9+/_-]*={0,2}"  # whole lines only: linear


def _wrapped(text: str, all_forms: tuple[str, ...]) -> str:
    def judge(m: re.Match[str]) -> str:
        joined = "".join(m.group(0).split())
        return MASK if any(f in joined for f in all_forms) else m.group(0)

    return _compiled(_WRAPPED_B64, re.MULTILINE).sub(judge, text)


def redact(text: str, extra: tuple[str, ...] = ()) -> str:
    """Return `text` with every known secret (and anything key-shaped) masked."""
    if not text:
        return text
    all_forms = _all_forms(extra)
    for value in all_forms:
        if value in text:
            text = text.replace(value, MASK)
    if all_forms and "\n" in text:
        text = _wrapped(text, all_forms)
    return _compiled(_PATTERNS).sub(MASK, text)


def _pending_start(text: str, all_forms: tuple[str, ...]) -> int:
    """Where the longest tail of `text` that could still grow into a secret begins (len(text): none)."""
    cut = len(text)
    for f in all_forms:
        i = text.find(f[0], max(0, len(text) - len(f) + 1))
        while i != -1 and i < cut:
            if f.startswith(text[i:]):
                cut = i
                break
            i = text.find(f[0], i + 1)
    return cut


def _word_start(text: str, end: int) -> int:
    """Where the word running up to `end` begins (just after the last whitespace before it)."""
    return max(text.rfind(" ", 0, end), text.rfind("\n", 0, end), text.rfind("\t", 0, end)) + 1


def _past_whole_matches(text: str, cut: int, all_forms: tuple[str, ...]) -> int:
    """Move `cut` past any whole secret it would split (a form with whitespace in it)."""
    moved = True
    while moved:
        moved = False
        for f in all_forms:
            start = text.find(f, max(0, cut - len(f) + 1))
            if start != -1 and start < cut < start + len(f):
                cut, moved = start + len(f), True
    return cut


class StreamScrubber:
    """Redact a text stream delta by delta, so a secret split across deltas never shows.

    Held back: any tail that could still become a known secret (as long as the longest one, never
    cut at a fixed size), and the trailing partial word for the key-shaped patterns, which need a
    whole word (up to WORD_LIMIT characters, so a text without spaces still flows).
    """

    WORD_LIMIT = 4096

    def __init__(self, extra: tuple[str, ...] = ()) -> None:
        self._held = ""
        self._extra = extra

    def feed(self, delta: str) -> str:
        text = self._held + delta
        all_forms = _all_forms(self._extra)
        pending = _pending_start(text, all_forms)  # a known secret may be starting here: never release it
        word = _word_start(text, min(pending, len(text)))  # patterns need the whole word they are in
        cut = max(word, min(pending, len(text) - self.WORD_LIMIT))  # a "word" this long is no key: let it flow
        cut = _past_whole_matches(text, cut, all_forms)
        self._held = text[cut:]
        return redact(text[:cut], self._extra)

    def flush(self) -> str:
        text, self._held = self._held, ""
        return redact(text, self._extra)
