"""Incremental partial-JSON: best-effort arguments while a call is still streaming.

A scanner keeps the open-bracket stack and string state across appends, so each delta
costs its own length; a snapshot closes open strings and brackets and drops a dangling
key, comma or half-written literal. Snapshots are parsed only when the buffer has grown
enough (see `PartialArgs.snapshot`), keeping huge streamed arguments linear.
"""

from __future__ import annotations

from typing import Any

from agentcli.core import jsonsafe

_CLOSER = {"{": "}", "[": "]"}


class PartialArgs:
    """Accumulates an arguments string and yields the object it describes so far."""

    __slots__ = ("_parts", "_joined", "_len", "_stack", "_in_str", "_esc", "_str_is_key", "_expect_key",
                 "_safe", "_safe_stack", "_last_len", "_last", "_scalar_end")

    def __init__(self) -> None:
        self._parts: list[str] = []
        self._joined = ""
        self._len = 0
        self._stack: list[str] = []
        self._in_str = False
        self._esc = False
        self._str_is_key = False
        self._expect_key: list[bool] = []  # per open object: next string is a key
        self._safe = -1  # buf[:_safe] + closers(_safe_stack) is valid JSON
        self._safe_stack: tuple[str, ...] = ()
        self._last_len = -1
        self._last: dict[str, Any] | None = None
        self._scalar_end = -1  # end of the last number/literal character seen outside strings

    @property
    def buf(self) -> str:
        """Everything appended so far (joined lazily: appends stay O(delta))."""
        if len(self._parts) > 1:
            self._joined = "".join(self._parts)
            self._parts = [self._joined]
        elif self._parts:
            self._joined = self._parts[0]
        return self._joined

    @property
    def size(self) -> int:
        return self._len

    def append(self, delta: str) -> None:
        if not delta:
            return
        self._parts.append(delta)
        self._scan(delta, self._len)
        self._len += len(delta)

    def _mark_safe(self, end: int) -> None:
        self._safe = end
        self._safe_stack = tuple(self._stack)

    def _scan(self, text: str, base: int) -> None:
        i, n = 0, len(text)
        while i < n:
            if self._in_str:
                if self._esc:
                    self._esc = False
                    i += 1
                    continue
                q = text.find('"', i)
                b = text.find("\\", i, q if q != -1 else n)
                if b != -1:
                    self._esc = True
                    i = b + 1
                    continue
                if q == -1:
                    break
                self._in_str = False
                i = q + 1
                if not self._str_is_key and self._stack:
                    self._mark_safe(base + i)
                continue
            c = text[i]
            if c == '"':
                self._in_str = True
                self._str_is_key = bool(self._stack) and self._stack[-1] == "{" and self._expect_key[-1]
                self._scalar_end = -1
            elif c in "{[":
                self._stack.append(c)
                self._expect_key.append(c == "{")
                self._mark_safe(base + i + 1)
                self._scalar_end = -1
            elif c in "}]":
                if self._stack:
                    self._stack.pop()
                    self._expect_key.pop()
                self._mark_safe(base + i + 1)
                self._scalar_end = -1
            elif c == ":":
                if self._expect_key:
                    self._expect_key[-1] = False
                self._scalar_end = -1
            elif c == ",":
                if self._stack and self._stack[-1] == "{":
                    self._expect_key[-1] = True
                # a number or literal before this comma is complete
                if self._stack and self._scalar_end > 0:
                    self._mark_safe(self._scalar_end)
                self._scalar_end = -1
            elif c not in " \t\r\n":
                self._scalar_end = base + i + 1
            i += 1

    def closed(self) -> str | None:
        """The buffer closed into valid-looking JSON text, or None before the first `{`."""
        if not self._stack and self._safe > 0:
            return self.buf[: self._safe]
        if self._in_str and not self._str_is_key:
            head = self.buf
            if self._esc:
                head = head[:-1]
            k = head.rfind("\\u")
            if k != -1 and len(head) - k < 6 and (k == 0 or head[k - 1] != "\\"):
                head = head[:k]
            return head + '"' + "".join(_CLOSER[c] for c in reversed(self._stack))
        if self._safe < 0:
            return None
        return self.buf[: self._safe] + "".join(_CLOSER[c] for c in reversed(self._safe_stack))

    def snapshot(self, force: bool = False) -> dict[str, Any] | None:
        """The arguments so far as a dict (None when nothing usable yet).

        Re-parses only when the buffer grew by 1/8 since the last parse (or is small), so
        a long streamed argument costs O(n) parsing overall.
        """
        n = self._len
        if not force and self._last_len >= 0 and n > 2048 and n - self._last_len < n // 8:
            return self._last
        text = self.closed()
        self._last_len = n
        if text is None:
            return self._last
        try:
            value = jsonsafe.loads(text)
        except ValueError:
            return self._last
        if isinstance(value, dict):
            self._last = value
        return self._last


def parse_partial(text: str) -> dict[str, Any] | None:
    """One-shot helper: the object a (possibly truncated) JSON text describes so far."""
    p = PartialArgs()
    p.append(text)
    return p.snapshot(force=True)
