"""The FunctionGemma call body, `call:NAME{key:value,...}`, shared by FunctionGemma and Gemma 4.

Strings are wrapped in a delimiter token (FunctionGemma's <escape>, Gemma 4's <|"|>); numbers,
booleans and nested {..}/[..] are bare. Leaf values are returned as text (text_values) for the
pipeline to decode.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

ESC = "<escape>"
_MAX_DEPTH = 32
WS = re.compile(r"[ \t\r\n]*")
VALUE_END = re.compile(r"[,}\]]")  # a bare value runs to the next separator (regex: no per-character loop)
# What a key and a name may not hold, asked in one search (a generator over their characters costs
# more than the rest of a short call's reading). `\s` is str.isspace's whitespace.
_BAD_KEY = re.compile(r"[{}\[\],<>]")
_BAD_NAME = re.compile(r"[\s<>:{}]")


class Reader:
    """Recursive-descent reader over one call's `{...}` argument text."""

    def __init__(self, s: str, esc: str = ESC) -> None:
        self.s = s
        self.i = 0
        self.esc = esc  # the string-delimiter token (Gemma 4 writes <|"|>)

    def ws(self) -> None:
        m = WS.match(self.s, self.i)
        assert m is not None  # the pattern matches the empty string, so it matches anywhere
        self.i = m.end()

    def obj(self, depth: int = 0) -> dict[str, Any]:
        if depth > _MAX_DEPTH or not self.s.startswith("{", self.i):
            raise ValueError("object expected")
        self.i += 1
        out: dict[str, Any] = {}
        self.ws()
        if self.s.startswith("}", self.i):
            self.i += 1
            return out
        while True:
            self.ws()
            colon = self.s.find(":", self.i)
            if colon == -1:
                raise ValueError("key expected")
            key = self.s[self.i : colon].strip()
            esc = self.esc
            if key.startswith(esc) and key.endswith(esc) and len(key) >= 2 * len(esc):
                key = key[len(esc) : -len(esc)]
            if not key or _BAD_KEY.search(key):
                raise ValueError("bad key")
            self.i = colon + 1
            out[key] = self.value(depth)
            self.ws()
            if self.s.startswith(",", self.i):
                self.i += 1
            elif self.s.startswith("}", self.i):
                self.i += 1
                return out
            else:
                raise ValueError("',' or '}' expected")

    def arr(self, depth: int) -> list[Any]:
        self.i += 1
        out: list[Any] = []
        self.ws()
        if self.s.startswith("]", self.i):
            self.i += 1
            return out
        while True:
            out.append(self.value(depth))
            self.ws()
            if self.s.startswith(",", self.i):
                self.i += 1
            elif self.s.startswith("]", self.i):
                self.i += 1
                return out
            else:
                raise ValueError("',' or ']' expected")

    def value(self, depth: int) -> Any:
        self.ws()
        esc = self.esc
        if self.s.startswith(esc, self.i):
            end = self.s.find(esc, self.i + len(esc))
            if end == -1:
                raise ValueError("unterminated string")
            val = self.s[self.i + len(esc) : end]
            self.i = end + len(esc)
            return val
        if self.s.startswith('"', self.i):  # a JSON string written in place of an escaped one
            try:
                val, self.i = _JSON_STR.raw_decode(self.s, self.i)
            except ValueError:
                raise ValueError("bad string") from None
            return val
        if self.s.startswith("{", self.i):
            return self.obj(depth + 1)
        if self.s.startswith("[", self.i):
            return self.arr(depth + 1)
        m = VALUE_END.search(self.s, self.i)
        j = m.start() if m else len(self.s)
        val = self.s[self.i : j].strip()
        if not val:
            raise ValueError("empty value")
        self.i = j
        if depth > 0:  # nested: nothing types it later, so a bare number or literal is typed here
            return _scalar(val)
        return val  # top level: typed by the tool's schema (a string parameter keeps "3")


_JSON_STR = json.JSONDecoder()
LITERALS: dict[str, Any] = {"true": True, "false": False, "null": None}
NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _scalar(val: str) -> Any:
    """A bare nested value: JSON literal or finite number, else the text itself."""
    if val in LITERALS:
        return LITERALS[val]
    if NUMBER.fullmatch(val):
        num = float(val) if any(c in val for c in ".eE") else int(val)
        if num == num and num not in (float("inf"), float("-inf")):
            return num
    return val


def parse_call(body: str, esc: str = ESC, reader_class: Callable[[str, str], Reader] = Reader,
               ) -> tuple[str, dict[str, Any]] | None:
    """(name, arguments) of `call:NAME{...}`, or None when the body is not one whole call.
    `reader_class` reads the arguments (Gemma 4 passes a reader that also mends one string slip)."""
    body = body.strip()
    if not body.startswith("call:"):
        return None
    brace = body.find("{")
    if brace == -1:
        return None
    name = body[5:brace].strip()
    if not name or _BAD_NAME.search(name):
        return None
    reader = reader_class(body, esc)
    reader.i = brace
    try:
        args = reader.obj()
    except (ValueError, RecursionError):
        return None
    if body[reader.i :].strip():
        return None
    return name, args
