"""Scrub secrets from any text before it reaches a terminal, log or transcript.

Two nets: the exact values of secret-named environment variables (in raw,
base64, URL-encoded and hex forms), and key-shaped patterns for keys we never saw.
"""

from __future__ import annotations

import base64
import os
import re
import urllib.parse
from functools import lru_cache

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
MASK = "[REDACTED]"

_PATTERNS = re.compile(
    r"(?:sk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_\-]{16,}"  # OpenAI / Anthropic / OpenRouter keys
    r"|AIza[0-9A-Za-z_\-]{30,}"  # Google API keys
    r"|gsk_[A-Za-z0-9]{20,}"  # Groq
    r"|(?<=Bearer )[A-Za-z0-9._\-]{12,})"
)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def _forms(value: str) -> set[str]:
    raw = value.encode()
    return {
        value,
        base64.b64encode(raw).decode(),
        base64.b64encode(raw).decode().rstrip("="),
        base64.urlsafe_b64encode(raw).decode().rstrip("="),
        urllib.parse.quote(value, safe=""),
        urllib.parse.quote_plus(value),
        raw.hex(),
        raw.hex().upper(),
    }


@lru_cache(maxsize=8)
def _secret_forms(env_items: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    found: set[str] = set()
    for name, value in env_items:
        if is_secret_name(name) and len(value) >= 8:
            found |= _forms(value)
    return tuple(sorted(found, key=len, reverse=True))


def secret_values() -> tuple[str, ...]:
    return _secret_forms(tuple(sorted(os.environ.items())))


def redact(text: str, extra: tuple[str, ...] = ()) -> str:
    """Return `text` with every known secret (and anything key-shaped) masked."""
    if not text:
        return text
    for value in secret_values() + tuple(v for s in extra if s for v in _forms(s)):
        if value in text:
            text = text.replace(value, MASK)
    return _PATTERNS.sub(MASK, text)


class StreamScrubber:
    """Redact a text stream delta by delta, so a key split across deltas never shows.

    Secrets never contain whitespace, so text is released up to the last whitespace
    seen and the trailing partial word is held back until it is complete (or very long).
    """

    HOLD_LIMIT = 4096  # a "word" longer than this is released scrubbed, so output never stalls

    def __init__(self) -> None:
        self._held = ""

    def feed(self, delta: str) -> str:
        text = self._held + delta
        cut = max(text.rfind(" "), text.rfind("\n"), text.rfind("\t"))
        if cut < 0 and len(text) <= self.HOLD_LIMIT:
            self._held = text
            return ""
        cut = len(text) if cut < 0 else cut + 1
        self._held = text[cut:]
        return redact(text[:cut])

    def flush(self) -> str:
        text, self._held = self._held, ""
        return redact(text)
