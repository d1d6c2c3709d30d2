"""Quick paths inside single dialects answer as the plain search they replace (hypothesis over
generated texts, short and long, holding the searched markup, parts of it and its rare character)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import xlam

_examples = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
PIECES = ["</think>", "<think>", "</think", "think>", "<", ">", "/", "[", '{"name": "f", "arguments": {}}', "a",
          " ", "\n", "lorem ipsum "]
texts = st.one_of(
    st.lists(st.sampled_from(PIECES), max_size=30).map("".join),
    st.tuples(st.lists(st.sampled_from(PIECES), max_size=10).map("".join), st.integers(1, 3),
              st.lists(st.sampled_from(PIECES), max_size=10).map("".join))
    .map(lambda t: t[0] + "lorem ipsum <b> " * (400 * t[1]) + t[2]),
)


@_examples
@given(texts)
def test_xlam_finds_the_last_reasoning_end_as_rfind(text: str) -> None:
    assert xlam._last(text, xlam.THINK_END) == text.rfind(xlam.THINK_END)
