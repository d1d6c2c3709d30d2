"""core.lazy.lazy_pattern: compiled once, on first use, and then the compiled pattern's own methods."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from agentcli.core.lazy import lazy_pattern

PATTERNS = [r"<tool_call>", r"\d+", r"(?i)name", r"[\[\]{}]", r'"(?:[^"\\]|\\.)*"']


def test_nothing_is_compiled_until_used(monkeypatch):
    calls = []
    real = re.compile
    monkeypatch.setattr(re, "compile", lambda *a: calls.append(a) or real(*a))
    rx = lazy_pattern(r"a+b", re.I)
    assert calls == []
    assert rx.search("xAAb").group() == "AAb"
    assert rx.pattern == "a+b" and rx.flags & re.I
    assert rx.sub("-", "ab ab") == "- -"
    assert calls == [("a+b", re.I)]  # once, whatever is read after


@given(st.sampled_from(PATTERNS), st.text(alphabet='<tool_cal>"\\ 12name[]{}', max_size=40))
def test_it_matches_as_the_compiled_pattern(pattern, text):
    lazy, real = lazy_pattern(pattern), re.compile(pattern)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.sub("", text) == real.sub("", text)
    assert bool(lazy.search(text)) == bool(real.search(text))
