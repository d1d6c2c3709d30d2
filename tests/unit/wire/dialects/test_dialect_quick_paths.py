"""Quick paths inside single dialects answer as the plain search they replace (hypothesis over
generated texts, short and long, holding the searched markup, parts of it and its rare character)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import kimi_k3, xlam

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


K3_PIECES = [kimi_k3.TOOLS_OPEN, kimi_k3.TOOLS_CLOSE, kimi_k3.CALL_OPEN + ' tool="f"' + kimi_k3.SEP, kimi_k3.CALL_CLOSE,
             kimi_k3.ARG_OPEN + ' key="a" type="string"' + kimi_k3.SEP, kimi_k3.ARG_CLOSE, kimi_k3.SEP, kimi_k3.RESPONSE_OPEN,
             kimi_k3.RESPONSE_CLOSE, "<|open|>", "<|close|>", "<|", "|", "x", " "]
k3_texts = st.tuples(st.lists(st.sampled_from(K3_PIECES), max_size=12).map("".join),
                     st.sampled_from(["", "lorem | ipsum " * 2500]),
                     st.lists(st.sampled_from(K3_PIECES), max_size=12).map("".join)).map("".join)


@_examples
@given(k3_texts)
def test_kimi_k3_reads_a_long_reply_as_with_plain_searches(text: str) -> None:
    """Past the length where CPython's token search walks every character, Kimi K3 looks for its
    tokens where `|` stands: the same calls and text as with the plain searches."""
    quick = kimi_k3.KIMI_K3.parse(text)
    saved = kimi_k3._TWO_WAY
    kimi_k3._TWO_WAY = 1 << 62  # every search the plain one
    try:
        plain = kimi_k3.KIMI_K3.parse(text)
    finally:
        kimi_k3._TWO_WAY = saved
    assert quick == plain
