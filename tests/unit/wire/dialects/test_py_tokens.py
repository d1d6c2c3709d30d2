"""The Python-token budget of the pythonic dialects (LFM2, Olmo 3, pythonic lists) counts a string
literal's end by memchr instead of reading its contents with the token pattern: a 100 KB string
argument cost as much to count as ast.parse costs to read it. The count must be the pattern's
(hypothesis over sources dense in quotes, escapes and line breaks); the characters the pattern reads
are counted, never timed."""

from __future__ import annotations

import re
from itertools import islice

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _scan

PIECES = ["'", '"', "\\", "\\'", '\\"', "\\\\", "\\\n", "\n", "a", "bc", " ", "(", ")", "[", "]", ",", "=", "é",
          "x='", 'y="', "f(", "0", "\\n", "lorem ipsum "]
sources = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=40).map("".join),
    # strings with more escapes than are stepped over one by one
    st.tuples(st.sampled_from(["f(a='", 'f(a="']), st.lists(st.sampled_from(["\\n", "\\'", '\\"', "x", "\\\n"]),
              max_size=60).map("".join), st.sampled_from(["')", '")', "", "\n)"])).map("".join),
)


def _pattern_count(src: str, most: int) -> int:
    return sum(1 for _ in islice(_scan._PY_TOKEN.finditer(src), most))


@settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))
@given(sources, st.sampled_from([0, 1, 2, 3, 7, 40, 10**6]))
@example("f(a='x\\", 10)
@example("'\\\n'", 10)
@example('"a\'b" \'c"d\'', 10)
def test_the_count_is_the_patterns(src: str, most: int) -> None:
    assert _scan.py_tokens(src, most) == _pattern_count(src, most)


@given(st.lists(sources, min_size=1, max_size=4), st.integers(0, 60))
@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
def test_the_budget_is_spent_as_before(srcs: list[str], left: int) -> None:
    budget = _scan.AstBudget(left)
    for src in srcs:
        expected = left - _pattern_count(src, left + 1)
        assert budget.take(src) == (expected >= 0)
        assert budget.left == expected
        left = expected


def test_a_long_string_argument_is_not_read_by_the_pattern(monkeypatch) -> None:  # noqa: ANN001
    rx = re.compile(_scan._PY_TOKEN.pattern, re.S)
    read: list[int] = []

    class Counted:
        def finditer(self, src: str, pos: int = 0, endpos: int | None = None):  # noqa: ANN201
            read.append((len(src) if endpos is None else endpos) - pos)
            return rx.finditer(src, pos, len(src) if endpos is None else endpos)

        def match(self, src: str, pos: int = 0):  # noqa: ANN201
            read.append(len(src) - pos)
            return rx.match(src, pos)

    src = "[write_file(path='a.txt', content='it\\'s " + "lorem ipsum " * 8000 + "\\n')]"
    expected = _pattern_count(src, 10**6)
    monkeypatch.setattr(_scan, "_PY_TOKEN", Counted())
    assert _scan.py_tokens(src, 10**6) == expected
    assert sum(read) < 100  # the text between the strings only
