"""Code fences paired by one match each (_callscan.fences) give what pairing fence lines one by one
gave: the reference below is that line-by-line reading, kept as the oracle."""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _callscan

_LINE = re.compile(r"\n[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")
_FIRST = re.compile(r"[ \t]{0,3}(`{3,}|~{3,})([^\n`]*)")


def by_lines(text: str) -> list[tuple[int, int, int, int, str, bool]]:
    """Every fence line found, then paired in order: a closer has the opener's character, at least
    as many, and nothing but blanks before a backtick or the line's end."""
    if "```" not in text and "~~~" not in text:
        return []
    out: list[tuple[int, int, int, int, str, bool]] = []
    opener: tuple[int, int, str, str] | None = None
    found = ([(0, m)] if (m := _FIRST.match(text)) else []) + [(1, m) for m in _LINE.finditer(text)]
    for shift, m in found:
        start = m.start() + shift
        marker, info = m.groups()
        if opener is None:
            info = info.strip()
            opener = (start, min(m.end() + 1, len(text)), marker, info.split(None, 1)[0] if info else "")
        elif marker[0] == opener[2][0] and len(marker) >= len(opener[2]) and not info.strip():
            out.append((opener[0], m.end(), opener[1], start, opener[3], True))
            opener = None
    if opener is not None:
        out.append((opener[0], len(text), opener[1], len(text), opener[3], False))
    return out


PIECES = ["```", "~~~", "````", "~~~~", "`", "~", "\n", " ", "   ", "    ", "\t", "json", "python x", "a", "{",
          "\r", "\v", "\x1c", "\x85", "\u00a0", "\u2028", "\u3000", "\n```\n", "\n~~~~\n", "\n    ```", '{"a": 1}']
texts = st.lists(st.sampled_from(PIECES), max_size=30).map("".join)


@settings(max_examples=600, deadline=None, suppress_health_check=list(HealthCheck))
@given(texts)
def test_fences_are_paired_as_line_by_line(text: str) -> None:
    assert _callscan.fences(text) == by_lines(text)


@pytest.mark.parametrize("text", [
    "```python\nx = 1\n```\n",
    "````\n```\nstill inside\n````\n",  # a shorter closer is text
    "```\na\n`````\n",  # a longer one closes
    "~~~\n```\n~~~\n",  # the other character is text
    "```json\n{}\n``` trailing\n```\n",  # a closer holds no info string
    "    ```\nindented four: code, not a fence\n",
    "```\nnever closed\n",
    "text\n```a`b\n```\n",  # an info string stops at a backtick
    "~~~```~\n```\n~~~",
    "```\n````\tpython\n```\n",  # a longer run with an info string: text (never a shorter run read as a closer)
    "~~~~\n~~~~~x\n~~~~\n",
    "~~~~ a\n~~~\n",  # a shorter closer: the fence runs to the end, its language `a`
])
def test_fence_edges(text: str) -> None:
    assert _callscan.fences(text) == by_lines(text)


def test_a_megabyte_of_fences_is_one_match_per_fence(monkeypatch) -> None:
    """Counted work: the fences of a long reply come one match each (not one per fence line)."""
    text = "```python\ndef f(a):\n    return {'k': [a]}\n```\n" * 2000
    matches = 0
    real = _callscan._FENCE.finditer

    def counting(*args: object):
        nonlocal matches
        for m in real(*args):  # type: ignore[arg-type]
            matches += 1
            yield m

    monkeypatch.setattr(_callscan, "_FENCE", type("P", (), {"finditer": staticmethod(counting)})())
    assert len(_callscan.fences(text)) == 2000 and matches == 1999  # the first is matched at the start
