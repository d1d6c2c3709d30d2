"""Text values written as escaped JSON are looked for only in values whose first character past any
whitespace opens an array or object and whose schema wants one: the first character is read in
place (a pattern, where lstrip() copies the value) and the search for `\\"` comes last. The gate
must say what `value.lstrip()[:1] in ("[", "{")` says, for every kind of whitespace Python strips."""

from __future__ import annotations

import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline

SPACES = [c for c in map(chr, range(sys.maxunicode + 1)) if c.isspace()]
values = st.tuples(st.text(st.sampled_from(SPACES), max_size=4),
                   st.lists(st.sampled_from(["[", "{", "x", '\\"', "]", " ", "\u200b", "\ufeff"]), max_size=4).map("".join)
                   ).map("".join)


@settings(max_examples=500, deadline=None)
@given(value=values)
def test_the_gate_reads_the_first_character_as_lstrip_does(value: str) -> None:
    assert (pipeline._OPENS_STRUCTURE.match(value) is not None) == (value.lstrip()[:1] in ("[", "{"))


def test_escaped_json_is_still_decoded_for_an_array_parameter() -> None:
    schema = {"properties": {"items": {"type": "array"}, "note": {"type": "string"}}}
    fixes: list[tuple[str, str]] = []
    got = pipeline._escaped_structures({"items": '\n [\\"a\\", \\"b\\"]', "note": '[\\"x\\"]'}, schema, fixes)
    assert got == {"items": ["a", "b"], "note": '[\\"x\\"]'} and [f[0] for f in fixes] == ["escaped_json"]
