"""A tagged-JSON dialect whose bodies are JSON (Dialect.json_bodies) turns a body down in place,
before cutting it and the raw call out of the reply (a copy of a long argument's text each), and
keeps the text it leaves as spans, joined once when it read a call. The gate turns down only what
the body reader does: on generated replies (every dialect's markers inside string values and out,
full-width and ASCII spellings, fences, odd whitespace) the gated parse equals the ungated one."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects.hermes import HermesDialect

INDEX = pipeline._chain_index(tuple(dialects.DIALECTS))
MARKUP = sorted({*INDEX.markers, *(m.replace("｜", "|") for m in INDEX.markers), *(m.replace("|", "｜") for m in INDEX.markers)})
CALL = json.dumps({"name": "get_weather", "arguments": {"city": "Paris"}})
PIECES = [*MARKUP, "<tool_call>", "</tool_call>", CALL, "[" + CALL + "]", '{"name": ', "{", "[", "]", "}", "```", "```json\n",
          "\n", " ", "\t", "\u3000", "\u00a0", "\x1c", '"', "<function=f>", "<parameter=a>", "lorem ipsum "]
quoted = st.sampled_from(MARKUP).map(lambda m: json.dumps({"name": "f", "arguments": {"text": f"a {m} b"}}))
pieces = st.lists(st.one_of(st.sampled_from(PIECES), quoted), max_size=8).map("".join)
space = st.lists(st.sampled_from(["", " ", "\n", "\t", "\u3000", "\u00a0", "\x1c", "\r\n"]), max_size=3).map("".join)
# A tag's body as a model writes it: space, then JSON (an object, a list) or another family's markup.
tagged = st.tuples(pieces, space, st.one_of(st.sampled_from([CALL, "[" + CALL + "]", CALL + ", " + CALL]), quoted, pieces),
                   space, st.sampled_from(["</tool_call>", ""]), pieces).map(lambda t: f"{t[0]}<tool_call>{''.join(t[1:])}")
replies = st.one_of(pieces, tagged, st.lists(tagged, max_size=3).map("".join))


@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies)
def test_hermes_gate_turns_down_only_what_its_body_reader_does(text: str) -> None:
    gated, plain = HermesDialect(), HermesDialect()
    plain.json_bodies = False  # type: ignore[misc]
    got, want = gated.parse(text), plain.parse(text)
    assert [(c.name, c.arguments, c.raw, c.id, c.error) for c in got[0]] == \
           [(c.name, c.arguments, c.raw, c.id, c.error) for c in want[0]]
    assert got[1] == want[1]
