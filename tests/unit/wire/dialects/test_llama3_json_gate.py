"""Llama 3 JSON (markerless, tried on every reply) looks for its two tags from the first `|` of
the reply, found once: with none, neither tag stands there and the whole reply is not scanned
twice more. The gate turns down only what the searches would: on generated replies (every
dialect's markers inside string values and out, full-width and ASCII bars, fences) the parse
equals the one searching from the start."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import llama3_json

INDEX = pipeline._chain_index(tuple(dialects.DIALECTS))
MARKUP = sorted({*INDEX.markers, "<|python_tag|>", "<|python_start|>", "<|python_end|>", "<|eom_id|>", "<｜python_tag｜>"})
CALL = json.dumps({"name": "get_weather", "parameters": {"city": "Paris"}})
PIECES = [*MARKUP, CALL, "; ", "|", "｜", "<", "<|", 'brave_search.call(query="x")', "```", "\n", " ", "{", "}", "lorem "]
quoted = st.sampled_from(MARKUP).map(lambda m: json.dumps({"name": "f", "parameters": {"text": f"a {m} b"}}))
replies = st.lists(st.one_of(st.sampled_from(PIECES), quoted), max_size=12).map("".join)


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies)
def test_the_first_bar_gate_turns_down_only_what_the_searches_do(text: str) -> None:
    d = dialects.deferred("llama3_json")
    gated = d.parse(text)
    real = llama3_json._first_bar
    llama3_json._first_bar = lambda t: 0 if t else -1  # type: ignore[assignment]  # search from the start
    try:
        plain = d.parse(text)
    finally:
        llama3_json._first_bar = real  # type: ignore[assignment]
    assert gated[1] == plain[1]
    assert [(c.name, c.arguments, c.raw, c.error, c.embedded) for c in gated[0]] == \
           [(c.name, c.arguments, c.raw, c.error, c.embedded) for c in plain[0]]
