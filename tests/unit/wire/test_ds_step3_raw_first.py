"""Step-3 reads each closed invoke from its own copied text (narrowed, cheaper to search and to copy
values from) instead of from the reply: the calls and the text left are those of reading it in the
reply (hypothesis), over invokes holding the markup in values, cut-off blocks, several sections."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import step3 as s3
from agentcli.wire.dialects._scan import Block, attr_value, parse_sections, tag_params
from agentcli.wire.types import Candidate


def _invoke_in_reply(text: str, blk: Block) -> Candidate | None:
    """The reading in place, as it was: the reference."""
    if not blk.closed:
        return None
    gt = text.find(">", blk.body_start, blk.body_end)
    if gt == -1:
        return None
    name = attr_value(text[blk.body_start : gt], "name")
    if not name or not name.strip():
        return None
    params, complete = tag_params(text, s3.PARAM_OPEN, '"', s3.PARAM_CLOSE, start=gt + 1, end=blk.body_end)
    if not complete:
        return None
    return Candidate(name=name.strip(), arguments={k: v for k, _, v in params if k}, raw="", dialect="step3",
                     text_values=True)


def _reference(text: str) -> tuple[list[Candidate], str]:
    cands, rest = parse_sections(text, (s3.BEGIN, s3.END), (s3.INVOKE_BEGIN, s3.INVOKE_END), _invoke_in_reply,
                                 trailer=s3._CALL_END_AFTER)
    cut = s3._cut_call(rest) if cands else None
    if cut is None:
        return cands, rest
    return [*cands, cut], rest[: len(rest) - len(cut.raw)]


_MARKUP = [s3.BEGIN, s3.END, s3.CALL_BEGIN, s3.CALL_END, s3.INVOKE_BEGIN, s3.INVOKE_END, s3.PARAM_OPEN,
           s3.PARAM_CLOSE, "<｜tool_sep｜>", ">", '"', "\n", "東", "é"]
_VALUE = st.lists(st.one_of(st.sampled_from(_MARKUP), st.text(max_size=5)), max_size=4).map("".join)


@st.composite
def _invoke(draw: st.DrawFn) -> str:
    name = draw(st.sampled_from(["get_weather", "", " f ", "a b"]))
    params = "".join(f'{s3.PARAM_OPEN}{draw(st.sampled_from(["city", "", "q"]))}">{draw(_VALUE)}'
                     f'{draw(st.sampled_from([s3.PARAM_CLOSE, s3.PARAM_CLOSE, ""]))}'
                     for _ in range(draw(st.integers(0, 2))))
    end = draw(st.sampled_from([s3.INVOKE_END, s3.INVOKE_END, "", "/>"]))
    head = draw(st.sampled_from(["", f"{s3.CALL_BEGIN}function<｜tool_sep｜>", s3.CALL_BEGIN]))
    tail = draw(st.sampled_from(["", s3.CALL_END, "\n" + s3.CALL_END]))
    return f'{head}{s3.INVOKE_BEGIN} name="{name}">{params}{end}{tail}'


@st.composite
def _reply(draw: st.DrawFn) -> str:
    parts = [draw(st.sampled_from(["", "Sure ", "東京 "]))]
    for _ in range(draw(st.integers(1, 2))):
        calls = "".join(draw(st.lists(_invoke(), max_size=3)))
        parts.append(s3.BEGIN + calls + draw(st.sampled_from([s3.END, s3.END, ""])))
    parts.append(draw(st.sampled_from(["", " after", "x" * 50])))
    return "".join(parts)


def _rows(got: tuple[list[Candidate], str]) -> tuple[list[tuple[object, ...]], str]:
    return [(c.name, c.arguments, c.raw, c.error, c.text_values) for c in got[0]], got[1]


@settings(max_examples=600, deadline=None)
@given(_reply())
def test_reading_the_copied_block_is_reading_it_in_the_reply(text: str) -> None:
    assert _rows(s3.STEP3.parse(text)) == _rows(_reference(text))
