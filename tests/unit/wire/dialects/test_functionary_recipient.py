"""Functionary's bare `NAME\\n{json}` opening takes a line as a recipient only when it is a name: a
line of prose that ends a sentence (`Checking.`, `Done -`) is text, and the JSON after it is read by
the dialect whose call it is."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire.pipeline import parse_text

_CALL = '{"name": "get_current_weather", "parameters": {"city": "SF"}}'


@settings(max_examples=60, deadline=None)
@given(word=st.text(alphabet=st.characters(whitelist_categories=("Lu", "Ll", "Nd")), min_size=1, max_size=12),
       end=st.sampled_from([".", "-", "..."]))
def test_a_sentence_before_a_bare_json_call_is_not_a_recipient(word, end):
    resp = parse_text(f"{word}{end}\n{_CALL}")
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("get_current_weather", {"city": "SF"})]


def test_a_dotted_recipient_is_still_a_name():
    resp = parse_text('>>>ns.get_time\n{"tz": "UTC"}', parsers=("functionary",))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("ns.get_time", {"tz": "UTC"})]
