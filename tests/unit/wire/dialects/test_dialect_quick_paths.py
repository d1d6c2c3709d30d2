"""Quick paths inside single dialects answer as the plain search they replace (hypothesis over
generated texts, short and long, holding the searched markup, parts of it and its rare character)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _scan, _seen, kimi_k3, xlam


def _plainly(read: Callable[[], Any]) -> Any:
    """What `read` returns with every find_far the plain search."""
    saved = _seen.TWO_WAY
    _seen.TWO_WAY = 1 << 62
    try:
        return read()
    finally:
        _seen.TWO_WAY = saved


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
    assert quick == _plainly(lambda: kimi_k3.KIMI_K3.parse(text))


TAG_PIECES = ['<p name="', '<parameter name="', '"', ">", "</p>", "</parameter>", " string=\"false\"", "a", "k", " ",
              "\n", "<", "</"]
bodies = st.lists(st.sampled_from(TAG_PIECES), max_size=30).map("".join)


@_examples
@given(bodies, st.integers(0, 40), st.integers(0, 40), st.booleans(), st.booleans())
def test_tag_params_in_place_reads_as_on_the_slice(body: str, a: int, b: int, alt: bool, last: bool) -> None:
    """Parameters read in body[start:end] in place are those read from the slice."""
    a, b = min(a, len(body)), min(max(a, b), len(body))
    kw: dict[str, Any] = {"last_close": last}
    if alt:
        kw.update(alt_open_prefix='<parameter name="', alt_close_tag="</parameter>")
    assert (_scan.tag_params(body, '<p name="', '"', "</p>", start=a, end=b, **kw)
            == _scan.tag_params(body[a:b], '<p name="', '"', "</p>", **kw))


@_examples
@given(bodies, st.sampled_from(["lorem ipsum " * 2600, "a < b " * 5200]), bodies, st.booleans())
def test_tag_params_on_a_long_body_reads_as_with_plain_searches(head: str, filler: str, tail: str, last: bool) -> None:
    body = head + filler + tail
    kw: dict[str, Any] = {"last_close": last, "alt_open_prefix": '<parameter name="', "alt_close_tag": "</parameter>"}
    assert (_scan.tag_params(body, '<p name="', '"', "</p>", **kw)
            == _plainly(lambda: _scan.tag_params(body, '<p name="', '"', "</p>", **kw)))


# -- the tagged bodies' and Hunyuan's gates turn down only what the full step turns down --------------

_BODY = st.text(alphabet=st.sampled_from([" ", "\t", "\n", "\u3000", "\x0b", "{", "[", "a", '"', "}"]), max_size=8)


@settings(max_examples=300, deadline=None)
@given(head=_BODY, body=_BODY, tail=_BODY)
def test_a_json_body_gate_turns_down_only_bodies_that_strip_to_no_bracket(head, body, tail):
    from agentcli.wire.dialects._tagged import _may_open_json

    text = head + body + tail
    start, end = len(head), len(head) + len(body)
    if not _may_open_json(text, start, end):
        stripped = text[start:end].strip()
        assert not stripped or stripped[0] not in "{["


_TOKENS = st.sampled_from(["<tool_calls:a>", "</tool_call:b>", "<tool_sep:x>", "<arg_key:k1>", "</arg_value:v>",
                           "<tool_call>", "tool_calls", ":", "<", ">", "arg_key", " ", "x"])


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(_TOKENS, max_size=8))
def test_hunyuan_asks_its_pattern_wherever_it_could_match(parts):
    from agentcli.wire.dialects._seen import holds_any
    from agentcli.wire.dialects.hunyuan import _SUFFIX_HEADS, _SUFFIXED

    text = "".join(parts)
    if _SUFFIXED.search(text):
        assert holds_any(text, _SUFFIX_HEADS)
