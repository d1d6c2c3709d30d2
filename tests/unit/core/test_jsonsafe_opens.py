"""jsonsafe.loads decides whether to measure depth by counting opening brackets up to its limit;
on a long text they are found one by one and counted no further than the limit (issue 29)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core import jsonsafe


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["[", "{", "]", "}", "a", '"', " " * 50]), max_size=60), st.integers(0, 3),
       st.integers(0, 120))
def test_opens_over_is_the_count_past_the_limit(pieces: list[str], grow: int, limit: int) -> None:
    text = "".join(pieces) + "x" * (6000 * grow)
    assert jsonsafe._opens_over(text, limit) == (jsonsafe._opens(text) > limit)


class _Counted(str):
    counts = 0

    def count(self, sub, *args):  # noqa: ANN001, ANN002, ANN201
        type(self).counts += 1
        return str.count(self, sub, *args)


def test_a_long_argument_with_few_brackets_is_not_counted_through() -> None:
    doc = _Counted(json.dumps({"a": "lorem ipsum " * 9000}))
    assert jsonsafe.loads(doc) == {"a": "lorem ipsum " * 9000}
    assert _Counted.counts == 0


def test_a_deep_document_is_still_refused() -> None:
    with pytest.raises(jsonsafe.TooDeep):
        jsonsafe.loads("[" * 150 + "1" + "]" * 150 + " " * 20000)
