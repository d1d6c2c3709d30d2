"""A call list's string literals are read by memchr and the parser sees a skeleton (each literal
written `'i'`): the tree is the one the whole source parses to, for any source (hypothesis), and the
parser is handed a few characters per literal, not the literal's contents."""

from __future__ import annotations

import ast

from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _pylist, lfm2


def _full(src: str) -> ast.AST | None:
    """LFM2's expression reader without the skeleton (the behaviour to keep)."""
    tree = lfm2._parsed(src)
    return tree if tree is not None else lfm2._parsed(lfm2._repair(src))


def _dump(tree: ast.AST | None) -> str | None:
    return None if tree is None else ast.dump(tree)


_SPECIAL = st.sampled_from(["'", '"', "\\", "#", "\n", "\r", "\x00", "\f", "\t", " ", "\ud800", "é", "東", "'''", "{x}"])
_CONTENT = st.lists(st.one_of(_SPECIAL, st.text(max_size=6), st.characters()), max_size=8).map("".join)


@st.composite
def _literal(draw: st.DrawFn) -> str:
    prefix = draw(st.sampled_from(["", "", "", "r", "b", "f", "u", "_", "1"]))
    quote = draw(st.sampled_from(["'", '"', "'", '"', "'''", '"""']))
    close = quote if draw(st.integers(0, 9)) else ""  # now and then cut off
    return prefix + quote + draw(_CONTENT) + close


_SCALAR = st.one_of(_literal(), st.sampled_from(["1", "-2.5", "007", "True", "None", "null", "x", "d['k']", "[]"]))
_VALUE = st.recursive(
    _SCALAR,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: "[" + ", ".join(xs) + "]"),
        st.lists(st.tuples(inner, inner), max_size=2).map(lambda kv: "{" + ", ".join(f"{k}: {v}" for k, v in kv) + "}"),
        st.tuples(inner, inner).map(lambda ab: f"{ab[0]} {ab[1]}"),  # two literals side by side, or junk
    ),
    max_leaves=6,
)
_SEP = st.sampled_from([", ", ",", " ", ",\n", " # note's\n", "\n"])


@st.composite
def _call_list(draw: st.DrawFn) -> str:
    calls = []
    for _ in range(draw(st.integers(1, 3))):
        args = [f"{draw(st.sampled_from(['a', 'city', 'from', 'x_1']))}={draw(_VALUE)}"
                for _ in range(draw(st.integers(0, 3)))]
        calls.append(f"{draw(st.sampled_from(['f', 'get_weather', 'ns.f', 'print']))}({draw(_SEP).join(args)})")
    return draw(st.sampled_from(["[", " [", ""])) + draw(_SEP).join(calls) + draw(st.sampled_from(["]", "] ", ""]))


@settings(max_examples=400, deadline=None)
@given(_call_list())
@example("[f(a='it''s')]")
@example("[f(a='x' # '\n)]")
@example("[f(a='x', b=\"y\"\n'z')]")
@example("[f(a=r'x', b=f'{1}')]")
@example("[f(a='\ud800')]")
@example("[f(a='''x''')]")
@example("[f(a='')]")
@example("[f(a=d['k'], b={'k': ['v', -1]})]")
def test_the_skeleton_reads_as_the_whole_source(src: str) -> None:
    assert _dump(lfm2._parse_expr(src)) == _dump(_full(src))
    assert _dump(_pylist._parse_expr(src)) == _dump(_pylist._parsed(src))  # the pythonic reader too


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="'\"#\\\n\rab(),=[] {}:fr_", max_size=40))
def test_the_skeleton_reads_as_the_whole_source_on_any_text(src: str) -> None:
    assert _dump(lfm2._parse_expr(src)) == _dump(_full(src))
    assert _dump(_pylist._parse_expr(src)) == _dump(_pylist._parsed(src))


def test_the_parser_sees_a_few_characters_per_literal(monkeypatch) -> None:
    seen: list[int] = []
    real = ast.parse

    def counting(source, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(len(source))
        return real(source, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    body = "[get_weather(city='" + "lorem ipsum " * 1000 + "', unit=\"c\")]"
    nested = body[:-2] + ", days=[1])]"  # a nested value: not the usual list LFM2 reads without the parser
    assert lfm2.parse_block(nested) == [("get_weather", {"city": "lorem ipsum " * 1000, "unit": "c", "days": [1]})]
    assert seen and max(seen) < 100
    seen.clear()
    assert _pylist.call_list(body, _pylist.AstBudget(10**6)) == [("get_weather", {"city": "lorem ipsum " * 1000, "unit": "c"}, None)]
    assert seen and max(seen) < 100


def test_a_literal_that_is_not_its_text_has_no_skeleton() -> None:
    for src in ("[f(a='x\\n')]", "[f(a=r'x')]", "[f(a='x' 'y')]", "[f(a='''x''')]", "[f(a='x') # c\n]", "[f()]"):
        assert _pylist.skeleton(src) is None, src
    assert _pylist.skeleton("[f(a='x', b=\"it's\")]") == ("[f(a='0', b='1')]", ["x", "it's"])
