"""Calls written among prose or bare: taken for offered tools only, examples never; broken calls are
reported beside their good siblings; arguments are always JSON a peer can read."""

from __future__ import annotations

import json

from agentcli.core.types import Tool
from agentcli.wire.model_parse import parse_for
from agentcli.wire.pipeline import parse_text
from agentcli.wire.types import ParseContext

WEATHER = Tool("get_weather", "", {"type": "object", "properties": {"city": {"type": "string"}, "location": {"type": "string"}}})
SEARCH = Tool("search", "", {"type": "object", "properties": {"query": {"type": "string"}}})
CTX = ParseContext.of([WEATHER, SEARCH])


def calls(resp):
    return [(c.name, c.arguments) for c in resp.tool_calls if not c.error]


def test_pythonic_list_inside_a_sentence_is_a_call_for_an_offered_tool():
    resp = parse_text("Here's a tool call: [get_weather(location='New York')] and more.", CTX)
    assert calls(resp) == [("get_weather", {"location": "New York"})]
    assert resp.text == "Here's a tool call:  and more."


def test_pythonic_list_inside_a_sentence_naming_no_offered_tool_stays_text():
    text = "In Python you might write [print(end='')] to flush."
    resp = parse_text(text, CTX)
    assert resp.tool_calls == [] and resp.text == text


def test_fenced_and_inline_code_examples_are_not_calls():
    text = "Like this:\n```python\nx = [get_weather(city='Paris')]\n```\nor `[get_weather(city='Rome')]` later."
    resp = parse_text(text, CTX)
    assert resp.tool_calls == [] and resp.text == text


def test_bare_calls_as_the_whole_message():
    assert calls(parse_text('get_weather(city="Tromsø")', CTX)) == [("get_weather", {"city": "Tromsø"})]
    assert calls(parse_text('get_weather{"city": "Toulouse"}', CTX)) == [("get_weather", {"city": "Toulouse"})]
    assert parse_text('print(end="")', CTX).tool_calls == []
    assert parse_text('config{"debug": true}', CTX).tool_calls == []


def test_bare_call_lines_ending_the_message():
    # Granite 3.3 writes its calls bare, one to a line, after its prose or alone (vLLM granite_pythonic).
    both = parse_text('get_weather(city="Paris")\nsearch(query="vLLM release notes")', CTX)
    assert calls(both) == [("get_weather", {"city": "Paris"}), ("search", {"query": "vLLM release notes"})]
    assert both.text == ""
    after = parse_text('Sure, let me check the weather.\n\nget_weather(location="London")', CTX)
    assert calls(after) == [("get_weather", {"location": "London"})] and after.text == "Sure, let me check the weather."
    for text in ("That is all for now.\nThanks (really)", "Run it:\nprint(end='')\nget_weather(city='Oslo', 3)",
                 "Try this:\nsetup(debug=True)"):
        assert parse_text(text, CTX).tool_calls == [] and parse_text(text, CTX).text == text
    # Read from the last line up: a line that is not one good call ends the calls, and stays text.
    mixed = parse_text("get_weather(city='Rome')\nthen\nsearch(query='x')", CTX)
    assert calls(mixed) == [("search", {"query": "x"})] and mixed.text == "get_weather(city='Rome')\nthen"
    noted = parse_text("Note (see below)\nget_weather(city='Oslo')", CTX)
    assert calls(noted) == [("get_weather", {"city": "Oslo"})] and noted.text == "Note (see below)"


def test_json_call_inline_in_a_sentence_needs_an_offered_name():
    ok = parse_text('I will run {"name": "search", "arguments": {"query": "x"}} now.', CTX)
    assert calls(ok) == [("search", {"query": "x"})] and ok.text == "I will run  now."
    other = 'The API takes {"name": "delete_all", "arguments": {}} as input.'
    assert parse_text(other, CTX).tool_calls == []


def test_prose_naming_the_tags_is_not_a_call():
    text = "Wrap each call in <tool_call> and </tool_call> tags, or use [TOOL_CALLS] and <|python_tag|>."
    resp = parse_text(text, CTX, ("hermes", "mistral", "llama3_json", "functionary", "pythonic", "json_block"))
    assert resp.tool_calls == []


def test_one_broken_pythonic_call_is_reported_beside_its_good_sibling():
    resp = parse_text("[bad(x=b'z'), get_weather(city='Oslo')]", CTX)
    assert [(c.name, bool(c.error)) for c in resp.tool_calls] == [("bad", True), ("get_weather", False)]
    resp = parse_text("[get_weather(city='Oslo'), search(query='x 'y')]", CTX)
    assert [(c.name, bool(c.error)) for c in resp.tool_calls] == [("get_weather", False), ("search", True)]


def test_a_list_with_no_readable_call_is_text():
    text = "[f(a='x 'y' 'z), g(b='p 'q' 'r)]"
    resp = parse_text(text, CTX)
    assert resp.tool_calls == [] and resp.text == text


def test_non_finite_numbers_never_reach_the_arguments():
    for text in ("[get_weather(city=1e999)]", '<tool_call>{"name": "get_weather", "arguments": {"city": 1e999}}</tool_call>'):
        resp = parse_text(text, CTX)
        for c in resp.tool_calls:
            assert c.error or json.loads(json.dumps(c.arguments, allow_nan=False)) is not None


def test_a_second_python_tag_json_call_is_not_a_python_tool_call():
    text = '<|python_tag|>{"name": "get_weather", "parameters": {}}<|python_tag|>{"name": "search", "parameters": {"query": "q"}}'
    for model in ("meta-llama/Llama-3.1-8B-Instruct", "meetkai/functionary-small-v3.1"):
        assert calls(parse_for(text, model, [WEATHER, SEARCH])) == [("get_weather", {}), ("search", {"query": "q"})]


def test_llama31_builtin_tool_call():
    brave = Tool("brave_search", "", {"type": "object", "properties": {"query": {"type": "string"}}})
    resp = parse_for('<|python_tag|>brave_search.call(query="gold price")<|eom_id|>', "meta-llama/Llama-3.1-8B-Instruct", [brave])
    assert calls(resp) == [("brave_search", {"query": "gold price"})] and resp.text == ""


def test_tool_call_wrapper_object_and_unclosed_call_at_the_end():
    resp = parse_text('{"tool_call": {"name": "search", "arguments": {"query": "x"}}}', CTX)
    assert calls(resp) == [("search", {"query": "x"})]
    resp = parse_text('<tool_call>\n{"name": "search", "arguments": {"query": "x"}}', CTX)
    assert calls(resp) == [("search", {"query": "x"})]
    cut = parse_text('<tool_call>\n{"name": "search", "arguments": {"query": "x", "limit": 3', CTX)
    assert calls(cut) == [] and cut.tool_calls and cut.tool_calls[0].error
