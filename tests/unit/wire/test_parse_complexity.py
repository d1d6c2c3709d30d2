"""Parse work grows linearly with the input, for every dialect and the stream detector (issue 8 §9).

Work is counted, never timed, so the check is deterministic on any machine. The counts are: calls
made (Python functions and builtins, via sys.setprofile); characters scanned by searches on the
text and its slices (a str subclass that adds up how far each find, count, `in` or copy went); and
characters handed to the JSON scanner. Each adversarial input is built at n and 4n characters.
Linear work gives a ratio near 4, and quadratic work gives near 16; the bound is 6.
"""

from __future__ import annotations

import json
import sys
import tokenize
from collections.abc import Callable
from pathlib import Path

import pytest

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _callscan, _pycalls
from agentcli.wire.pipeline import parse_text
from agentcli.wire.textstream import TextStream
from agentcli.wire.types import ParseContext

N = 4_000
RATIO = 6.0
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "dialects"
CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}'

_work = [0]


class _Counted(str):
    """A str whose searches and copies add the characters they cover to the work count."""

    def _span(self, start: int | None, end: int | None) -> int:
        n = len(self)
        s = 0 if start is None else (start + n if start < 0 else start)
        e = n if end is None else (end + n if end < 0 else end)
        return max(0, min(e, n) - max(0, s))

    def find(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        at = str.find(self, sub, start, end)
        stop = (at + len(sub)) if at >= 0 else None
        _work[0] += self._span(start, stop if stop is not None else end)
        return at

    def rfind(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        at = str.rfind(self, sub, start, end)
        _work[0] += self._span(at if at >= 0 else start, end)
        return at

    def startswith(self, prefix, start=None, end=None):  # noqa: ANN001, ANN201
        _work[0] += len(prefix) if isinstance(prefix, str) else sum(map(len, prefix))
        return str.startswith(self, prefix, start, end)

    def count(self, sub, start=None, end=None):  # noqa: ANN001, ANN201
        _work[0] += self._span(start, end)
        return str.count(self, sub, start, end)

    def __contains__(self, sub) -> bool:  # noqa: ANN001
        at = str.find(self, sub)
        _work[0] += len(self) if at < 0 else at + len(sub)
        return at >= 0

    def __getitem__(self, key):  # noqa: ANN001, ANN204
        got = str.__getitem__(self, key)
        if isinstance(key, slice):
            _work[0] += len(got)
            return _Counted(got)
        return got

    def __add__(self, other):  # noqa: ANN001, ANN204
        _work[0] += len(self) + len(other)
        return _Counted(str.__add__(self, other))

    def strip(self, chars=None):  # noqa: ANN001, ANN201
        _work[0] += len(self)
        return _Counted(str.strip(self, chars))

    def lstrip(self, chars=None):  # noqa: ANN001, ANN201
        _work[0] += len(self)
        return _Counted(str.lstrip(self, chars))

    def rstrip(self, chars=None):  # noqa: ANN001, ANN201
        _work[0] += len(self)
        return _Counted(str.rstrip(self, chars))

    def replace(self, old, new, count=-1):  # noqa: ANN001, ANN201
        _work[0] += len(self)
        return _Counted(str.replace(self, old, new, count))


def _on_event(frame, event, arg) -> None:  # noqa: ANN001
    if event == "call" or event == "c_call":
        _work[0] += 1


@pytest.fixture(autouse=True)
def _count_json_scans(monkeypatch):
    """Characters the JSON scanner is handed: decoding from every opener to the end would show."""
    real = _callscan.SCAN_ONCE

    def scan_once(s: str, idx: int):  # noqa: ANN202
        _work[0] += len(s) - idx
        return real(s, idx)

    monkeypatch.setattr(_callscan, "SCAN_ONCE", scan_once)


@pytest.fixture(autouse=True)
def _count_python_source_scans(monkeypatch):
    """Characters handed to Python's own parser and to the tokenize module's matchers (the pythonic
    readers parse call text as Python): a reader that re-scans the rest of a line from every
    position shows as quadratic here, though the scanning happens inside one C call."""
    real_parse = _pycalls._parse

    def parse(src: str):  # noqa: ANN202
        _work[0] += len(src)
        return real_parse(src)

    monkeypatch.setattr(_pycalls, "_parse", parse)
    real_compile = getattr(tokenize, "_compile", None)
    if real_compile is not None:
        class _Pattern:
            def __init__(self, pattern) -> None:  # noqa: ANN001
                self.pattern = pattern

            def match(self, string: str, pos: int = 0, *args):  # noqa: ANN002, ANN201
                _work[0] += len(string) - pos
                return self.pattern.match(string, pos, *args)

        monkeypatch.setattr(tokenize, "_compile", lambda expr: _Pattern(real_compile(expr)))


def _measure(run: Callable[[str], object], text: str) -> int:
    _work[0] = 0
    sys.setprofile(_on_event)
    try:
        run(_Counted(text))
    finally:
        sys.setprofile(None)
    return _work[0]


def _rep(unit: str, n: int) -> str:
    return (unit * (n // max(1, len(unit)) + 1))[:n]


def _fixture_texts(name: str) -> list[str]:
    path = FIXTURES / f"{name}.json"
    if not path.exists():
        return []
    return [c["text"] for c in json.loads(path.read_text(encoding="utf-8"))["cases"]]


def _markers(name: str) -> list[str]:
    d = dialects.get(name)
    return [m for m in dict.fromkeys((*d.markers, *getattr(d, "stream_markers", ()))) if m]


def _generators(name: str) -> dict[str, Callable[[int], str]]:
    """Inputs of any size n that stress one dialect: cut-off calls, openers that never close,
    markers with partial JSON after them, the same markers by the thousand."""
    gens: dict[str, Callable[[int], str]] = {}
    for k, text in enumerate(_fixture_texts(name)[:3]):
        gens[f"cut-half-{k}"] = lambda n, t=text: _rep(t[: len(t) // 2] + "\n", n)
        gens[f"cut-3/4-{k}"] = lambda n, t=text: _rep(t[: 3 * len(t) // 4], n)
    for j, m in enumerate(_markers(name)[:3] or ["["]):
        gens[f"marker-{j}"] = lambda n, m=m: _rep(m, n)
        gens[f"marker-open-string-{j}"] = lambda n, m=m: _rep(m + '{"name": "f", "arguments": {"a": "', n)
        gens[f"marker-open-array-{j}"] = lambda n, m=m: _rep(m + "[{", n)
        gens[f"marker-open-object-{j}"] = lambda n, m=m: _rep(m + "{", n)
        gens[f"marker-name-{j}"] = lambda n, m=m: _rep(m + 'get_weather[ARGS]{"a": "', n)
        gens[f"marker-call-{j}"] = lambda n, m=m: _rep(m + CALL + "\n", n)
        # One call whose value is a long run of escaped quotes, as a Python call: the text the
        # pythonic readers hand to Python's own parser (a backtracking tokenizer would show here).
        gens[f"marker-pycall-escapes-{j}"] = lambda n, m=m: m + "f(x='a', y=" + _rep('\\"', n) + "'b')"
    return gens


def _all_markers() -> list[str]:
    return sorted({m for name in dialects.names() for m in _markers(name)})


GENERIC: dict[str, Callable[[int], str]] = {
    "quotes": lambda n: '"' * n,
    "backslashes": lambda n: "\\" * n,
    "escaped-quotes": lambda n: _rep('\\"', n),
    "open-braces": lambda n: "{" * n,
    "open-brackets": lambda n: "[" * n,
    "open-keys": lambda n: _rep('{"a":', n),
    "nested-then-closed": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "open-calls": lambda n: _rep('[{"name": "f", "arguments": ', n),
    "name-keys": lambda n: _rep('"name": "f", ', n),
    "call-objects-one-line": lambda n: _rep(CALL, n),
    "call-missing-brace": lambda n: _rep(CALL[:-1] + "\n", n),
    "fences-open-json": lambda n: _rep("```json\n{\n", n),
    "fences": lambda n: _rep("```\n", n),
    "fenced-calls-cut": lambda n: _rep('```json\n{"name": "f", "arguments": {\n```\n', n),
    "pythonic-opens": lambda n: _rep("[f(", n),
    "pythonic-lines": lambda n: _rep("\n[f(a=1)", n),
    "pythonic-long-list": lambda n: "[" + _rep("f(a=1), ", n) + "]",
    "every-marker-cut-call": lambda n: _rep("".join(m + CALL[:-2] for m in _all_markers()), n),
    "every-marker": lambda n: _rep("".join(m + "x " for m in _all_markers()), n),
    "think-tags-in-call-values": lambda n: _rep('<tool_call>{"name": "f", "arguments": {"a": "<think>x</think> ', n),
    "think-closes-in-calls": lambda n: _rep("<tool_call></think></tool_call>", n),
}


def _parse(parsers: tuple[str, ...] | None) -> Callable[[str], object]:
    ctx = ParseContext()
    return lambda text: parse_text(text, ctx, parsers)


def _check(run: Callable[[str], object], gen: Callable[[int], str], n: int = N) -> tuple[int, int]:
    small, large = _measure(run, gen(n)), _measure(run, gen(4 * n))
    assert large <= RATIO * max(small, 1), f"work grew {large / max(small, 1):.1f}x for 4x input ({small} -> {large})"
    return small, large


@pytest.fixture
def read_everything(monkeypatch):
    """No call budget: the pipeline reads the whole text, so what is measured is the parsers' own
    growth (the budget only ever cuts work, and below its threshold it does nothing)."""
    monkeypatch.setattr(pipeline, "MAX_CALLS", 10**9)


@pytest.mark.parametrize("name", dialects.names())
def test_each_dialect_scales_linearly(name):
    d = dialects.get(name)
    failures = []
    for label, gen in _generators(name).items():
        try:
            _check(d.parse, gen)
        except AssertionError as exc:
            failures.append(f"{label}: {exc}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("label", sorted(GENERIC))
def test_full_chain_scales_linearly(label, read_everything):
    _check(_parse(None), GENERIC[label])


@pytest.mark.parametrize("name", ["hermes", "mistral", "tools_tag", "qwen3_coder", "harmony", "json_block"])
def test_full_parse_of_cut_calls_scales_linearly(name, read_everything):
    """Through finalize: names resolved, arguments decoded and repaired, for every cut-off call."""
    run = _parse(tuple(dialects.names()))
    for gen in list(_generators(name).values())[:2]:
        _check(run, gen)


@pytest.mark.parametrize("label", ["every-marker-cut-call", "open-calls", "fences-open-json", "quotes", "call-missing-brace"])
def test_stream_detector_scales_linearly(label, read_everything):
    def run(text: str) -> None:
        stream = TextStream(tuple(dialects.names()))
        for i in range(0, len(text), 512):
            stream.feed(str(text[i:i + 512]))
        stream.flush()

    _check(run, GENERIC[label])


def test_a_flood_of_calls_costs_no_more_than_its_first_calls():
    """Past the call budget the rest stays text unread: 4x the calls is not 4x the call work."""
    unit = "<tool_call>" + CALL + "</tool_call>\n"
    run = _parse(("hermes",))
    n = 8 * pipeline.MAX_CALLS * len(unit)  # twice the markers the budget reads before it stops
    _check(run, lambda k: _rep(unit, k), n)
    resp = parse_text(_rep(unit, 4 * n), ParseContext(), ("hermes",))
    assert len(resp.tool_calls) == pipeline.MAX_CALLS
    assert [r.kind for r in resp.repairs] == ["too_many_calls"]


def test_the_counters_see_quadratic_work():
    """The measure itself: a scan that searches from every opener to the end must fail the bound."""

    def quadratic(text: str) -> None:
        pos = 0
        while (at := text.find("{", pos)) != -1:
            text.find("}", at)  # never there: to the end, every time
            pos = at + 1

    with pytest.raises(AssertionError, match="work grew"):
        _check(quadratic, lambda n: "{" * n)
