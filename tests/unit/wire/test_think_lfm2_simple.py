"""LFM2's usual call list (`[f(a='x', b=1)]`: keyword arguments with plain literal values) is read
without Python's parser, and its tokens counted as it is read: held to the parser's reading and the
token budget's count on generated call lists, the usual shape and its near misses (keywords as
names, nested values, numbers Python refuses or reads otherwise, whitespace its tokenizer does not
skip, positional arguments, strings with escapes, several calls, a budget run out)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _pylist, lfm2
from agentcli.wire.dialects._scan import AstBudget, py_tokens

# Each kind of piece: the usual ones, and near misses the shortcut must leave to the parser.
NAMES = (["f", "get_weather", "a.b", "a.b.c", "_x", "x1", "match", "_", "print", "city", "None_"],
         ["if", "True", "None", "a.if", "é", "1f", "f-g", "__debug__", "lambda", "a..b", "a.", "class"])
STRINGS = (["'x'", '"y"', "''", "'a b'", "'lorem ipsum dolor'", "'é'", "'a\"b'", '"a\'b"'],
           ["'it\\'s'", "'a\\nb'", "'''t'''", "r'x'", "'a' 'b'", "'# no'", "'a\nb'", "'x"])
NUMBERS = (["0", "1", "-1", "10", "0.5", "-0.0", "1.25", "2" + "0" * 99, "9" * 99 + ".5"],
           ["007", "00", "1_000", "1.", ".5", "1e5", "0x1f", "-", "+1", "1" * 120, "- 1", "1j", "-01", "0.5.5"])
WORDS = (["True", "False", "None", "true", "false", "null"], ["nil", "Truex", "none", "nullx", "True_"])
NESTED = ([], ["[1, 2]", "{'a': 1}", "()", "[]", "f(x=1)", "{1}", "-True", "-'x'", "x"])
GAPS = (["", "", "", " ", "\n", "\t", "\f", "  ", " \n "], ["\r", "\v", "\u3000", "\x1c", "#c\n"])
ENDS = (["", "", ","], [",,", ";"])


@st.composite
def call_lists(draw: st.DrawFn) -> str:
    """A call list: clean (every piece a usual one), or with one near miss, or with each piece a
    near miss one time in ten."""
    mode = draw(st.sampled_from(["clean", "one", "noisy"]))
    clean = mode != "noisy"
    odd_at = [draw(st.integers(0, 24)) if mode == "one" else -1]  # the piece written as a near miss

    def pick(kind: tuple[list[str], list[str]]) -> str:
        good, odd = kind
        odd_at[0] -= 1
        if odd and (odd_at[0] == -1 or not good or (mode == "noisy" and not draw(st.integers(0, 9)))):
            return draw(st.sampled_from(odd))
        return draw(st.sampled_from(good))

    def value() -> str:
        return pick(draw(st.sampled_from([STRINGS, STRINGS, NUMBERS, WORDS, NESTED if not clean else WORDS])))

    calls = []
    for _ in range(draw(st.integers(0 if not clean else 1, 3))):
        kwargs = [f"{pick(NAMES)}{pick(GAPS)}={pick(GAPS)}{value()}" for _ in range(draw(st.integers(0, 3)))]
        if not clean and draw(st.integers(0, 9)) == 0:
            kwargs.insert(0, value())  # a positional argument
        body = f"{pick(GAPS)},{pick(GAPS)}".join(kwargs) + (pick(ENDS) if kwargs else "")
        calls.append(f"{pick(NAMES)}{pick(GAPS)}({pick(GAPS)}{body}{pick(GAPS)})")
    joined = f"{pick(GAPS)},{pick(GAPS)}".join(calls) + pick(ENDS)
    if len(calls) == 1 and draw(st.booleans()):
        return pick(GAPS) + joined.rstrip(",") + pick(GAPS)
    return f"{pick(GAPS)}[{pick(GAPS)}{joined}{pick(GAPS)}]{pick(GAPS)}"


def _by_parser(src: str, left: int) -> tuple[object, int]:
    budget = AstBudget(left)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(lfm2, "_simple_calls", lambda plain: None)
        return lfm2.parse_block(src, budget), budget.left


_examples = settings(max_examples=800, deadline=None, suppress_health_check=list(HealthCheck))


@_examples
@given(src=call_lists(), left=st.sampled_from([2048, 2048, 12, 3]))
@example(src="[get_weather(city='Paris', days=3)]", left=2048)
@example(src="[f(if=1)]", left=2048)
@example(src="[f(a=007)]", left=2048)
@example(src="[f(a=1.5, b=-2)]", left=2048)
@example(src="[f(a=Truex)]", left=2048)
@example(src="[f(a=1)\r]", left=2048)
@example(src="[f(a='x')]", left=5)
@example(src="[f(a='0', b='x\\'y')]", left=2048)  # no skeleton (an escape), a literal like a placeholder
def test_the_usual_call_list_reads_as_the_parser_reads_it(src: str, left: int) -> None:
    budget = AstBudget(left)
    assert (lfm2.parse_block(src, budget), budget.left) == _by_parser(src, left)


@_examples
@given(src=call_lists())
def test_the_usual_call_lists_tokens_are_the_budgets_count(src: str) -> None:
    plain = _pylist.skeleton(src)
    if plain is None and "'" not in src and '"' not in src:
        plain = (src, [])
    got = lfm2._simple_calls(plain) if plain is not None else None
    if got is not None:
        assert got[1] == py_tokens(src, 10**6)


@pytest.mark.parametrize("src", ["[get_candidate_status(candidate_id='12345')]",
                                 "[a.b(x=1, y=-2.5, z=true, w=None,), c()]", "f(a='x')"])
def test_the_usual_shape_is_read_without_the_parser(src: str) -> None:
    """The shortcut answers (not only agrees) for the calls LFM2 writes."""
    plain = _pylist.skeleton(src) or (src, [])
    got = lfm2._simple_calls(plain)
    assert got is not None and [c for c in got[0]] == lfm2.parse_block(src)
