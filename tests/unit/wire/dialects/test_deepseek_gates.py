"""The DeepSeek token reader's shortcuts answer as the full steps they skip (hypothesis): one look for
the result tokens' common head before four, the end-of-sentence strip that copies only a reply ending
in whitespace, and the block scan's plain search below the long-text length."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import deepseek
from agentcli.wire.dialects._scan import Block, iter_blocks


def _strip_output_reference(text: str) -> str:
    for token in deepseek.OUTPUT_TOKENS:
        text = text.replace(token, "")
    return text


def _strip_eos_reference(text: str) -> str:
    end = text.rstrip()
    return end[: -len(deepseek.EOS)] if end.endswith(deepseek.EOS) else text


_PIECES = st.sampled_from([
    *deepseek.OUTPUT_TOKENS, deepseek.EOS, deepseek.EOS[:-1], deepseek.EOS[1:], "<｜tool▁output", "<|tool▁output▁begin|>",
    "｜>", ">", " ", "\n", "\t", "\u3000", "a", "東", "｜", "▁", "{\"a\": 1}", "<｜tool▁call▁end｜>",
])
_TEXT = st.lists(st.one_of(_PIECES, st.text(max_size=4)), max_size=12).map("".join)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_the_result_tokens_go_as_four_replaces_would(text: str) -> None:
    assert deepseek._strip_output_tokens(text) == _strip_output_reference(text)
    long = text + "x" * 5000  # past the length from which holds looks where the rare character stands
    assert deepseek._strip_output_tokens(long) == _strip_output_reference(long)


@settings(max_examples=400, deadline=None)
@given(_TEXT)
def test_the_end_of_sentence_goes_as_the_stripped_look_said(text: str) -> None:
    assert deepseek._strip_eos(text) == _strip_eos_reference(text)


def _blocks_reference(text: str, begin: str, end: str, start: int = 0, stop: int | None = None) -> list[tuple]:
    """iter_blocks written with the plain search (the answers every search of it must give)."""
    stop = len(text) if stop is None else stop
    out = []
    b = text.find(begin, start, stop)
    while b != -1:
        body = b + len(begin)
        nb = text.find(begin, body, stop)
        e = text.find(end, body, stop)
        if e != -1 and (nb == -1 or e < nb):
            out.append((b, body, e, e + len(end), True))
            b = text.find(begin, e + len(end), stop)
        else:
            cut = stop if nb == -1 else nb
            out.append((b, body, cut, cut, False))
            b = nb
    return out


def _tuple(blk: Block) -> tuple:
    return (blk.start, blk.body_start, blk.body_end, blk.end, blk.closed)


_TOKENS = st.sampled_from([deepseek.CALL_BEGIN, deepseek.CALL_END, deepseek.SEP, deepseek.CALLS_BEGIN, deepseek.CALLS_END,
                           "<｜tool▁call", "｜", "▁", "x" * 40, "y" * 3000, "\n", "z" * 31_000])


@settings(max_examples=150, deadline=None)
@given(st.lists(_TOKENS, max_size=14).map("".join), st.integers(0, 50))
def test_the_block_scan_finds_what_the_plain_search_finds(text: str, start: int) -> None:
    for begin, end in ((deepseek.CALL_BEGIN, deepseek.CALL_END), (deepseek.CALLS_BEGIN, deepseek.CALLS_END)):
        assert [_tuple(b) for b in iter_blocks(text, begin, end, start)] == _blocks_reference(text, begin, end, start)
        stop = len(text) - start
        assert [_tuple(b) for b in iter_blocks(text, begin, end, 0, stop)] == _blocks_reference(text, begin, end, 0, stop)


def _fenced_reference(text: str, a: int, b: int) -> str:
    """The fenced-argument cut as first written: strip, then look at the fence's head."""
    body = text[a:b].strip()
    if not body.startswith("```"):
        return body
    nl = body.find("\n")
    head = body[3 : nl if nl != -1 else len(body)].strip()
    if head not in ("", "json", "JSON"):
        return body
    if nl == -1:
        return ""
    rest = body[nl + 1 :]
    close = rest.rfind("```")
    return (rest if close == -1 else rest[:close]).strip()


_FENCE_PIECES = st.sampled_from(["```", "`", "json", "JSON", " json ", "py", "\n", " ", "\t", "{\"a\": 1}", "東", "x"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_FENCE_PIECES, max_size=10).map("".join), st.integers(0, 3), st.integers(0, 3))
def test_the_fenced_arguments_are_cut_as_the_stripped_body_would_be(body: str, left: int, right: int) -> None:
    text = "<" * left + body + ">" * right
    assert deepseek._fenced_args(text, left, left + len(body)) == _fenced_reference(text, left, left + len(body))
