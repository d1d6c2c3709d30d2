"""Gates on a forced parse's path outside the dialect, each held to the full path it skips, on
generated inputs: the reasoning split's short-reply gate (the reasoning markup asked where its
rarest character stands, instead of each probe) answers "nothing to split" only where the full
split finds nothing; a dialect's decoded object takes decode_arguments' fast path
to the same arguments and fixes."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import pipeline, repair
from agentcli.wire.dialects import _markup

MARKUP = _markup.collected()
TAGS = sorted({t for pair in MARKUP.reasoning_tags for t in pair} | {s.trigger for s in MARKUP.reasoning_splits})
PIECES = [*TAGS, *MARKUP.probes, *(t[:-1] for t in TAGS), "channel", "think", "THINK", "<tool_call>", "</tool_call>",
          '{"name": "f", "arguments": {"a": "</think>"}}', "```", "\n", " ", "lorem ipsum ", "|", "<", ">", "[", "]"]
texts = st.lists(st.sampled_from(PIECES), max_size=12).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=texts)
def test_the_short_reasoning_gate_turns_down_only_what_the_split_leaves(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    got = pipeline.split_thinking(text)
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_holds_markup", lambda *a: True)  # the gate open: the full split decides
        full = pipeline.split_thinking(text)
    assert got == full
    if not pipeline._holds_markup(text):
        assert full == (text, "")


def test_the_gate_does_not_ask_a_letter_probe_of_prose() -> None:
    """`channel` in prose is no reasoning markup: the gate says so without the full split."""
    assert not pipeline._holds_markup("the channel is open; think about it")
    assert pipeline._holds_markup("<|channel>analysis<channel|>")


values = st.recursive(st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=5)),
                      lambda inner: st.one_of(st.lists(inner, max_size=3),
                                              st.dictionaries(st.text(max_size=5), inner, max_size=3)), max_leaves=8)
keys = st.sampled_from(["arguments", "parameters", "args", "input", "city", "a"])
objects = st.dictionaries(keys, st.one_of(values, st.dictionaries(keys, values, max_size=2)
                                          .map(json.dumps)), min_size=0, max_size=2)
schemas = st.sampled_from([None, {"type": "object"}, {"type": "object", "properties": {"input": {"type": "string"}}},
                           {"type": "object", "properties": {"args": {"type": "object"}}}])


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(obj=objects, schema=schemas, fix=st.booleans(), unwrap=st.booleans())
def test_a_decoded_object_reads_as_its_json_text(obj: dict, schema: dict | None, fix: bool, unwrap: bool) -> None:
    """The dict a dialect decoded and the same object as JSON text decode to the same arguments
    and fixes (the text takes the full path)."""
    def run(raw: object) -> object:
        try:
            return repair.decode_arguments(raw, repair=fix, schema=schema, unwrap=unwrap)
        except repair.ArgumentError as exc:
            return str(exc)
    assert run(obj) == run(json.dumps(obj))


TOKENS = ["<｜tool▁call▁begin｜>", "<｜tool▁calls▁begin｜>", "<|tool▁call▁begin|>", "<tool_call>", "<", "▁", "｜",
          "lorem ipsum ", "\n"]
marker_sets = st.sampled_from([("<｜tool▁calls▁begin｜>", "<｜tool▁call▁begin｜>", "<|tool▁call▁begin|>"),
                               ("<tool_call>",), ("<tool_call>", "[TOOL_CALLS]")])
long_texts = st.tuples(st.lists(st.sampled_from(TOKENS), max_size=60).map("".join), st.integers(0, 400),
                       st.lists(st.sampled_from(TOKENS), max_size=60).map("".join)).map(
    lambda t: t[0] + "lorem ipsum dolor sit amet " * t[1] + t[2])


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=long_texts, markers=marker_sets, limit=st.sampled_from([4, 16, 64, 256]))
def test_the_tag_bound_reaches_where_the_counts_do(text: str, markers: tuple[str, ...], limit: int,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    import re

    rx = re.compile("|".join(re.escape(m) for m in sorted(markers, key=len, reverse=True)))
    got = pipeline._reach(text, markers, rx, limit)
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_all_tags", lambda ms: False)
        assert got == pipeline._reach(text, markers, rx, limit)
    seen = pipeline._seen(text)
    assert pipeline._present(seen, markers) == any(mk in text for mk in markers)
