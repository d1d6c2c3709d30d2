"""Partial-JSON arguments while streaming, and provider-safe names."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire.names import NameMap, safe_id, sanitize, split_namespace, wire_name
from agentcli.wire.native._partial import PartialArgs, parse_partial


@pytest.mark.parametrize(("text", "expected"), [
    ("", None),
    ("{", {}),
    ('{"pa', {}),
    ('{"path"', {}),
    ('{"path": ', {}),
    ('{"path": "src/ma', {"path": "src/ma"}),
    ('{"path": "a", "n": 12', {"path": "a"}),
    ('{"path": "a", "n": 12,', {"path": "a", "n": 12}),
    ('{"a": [1, {"b": tr', {"a": [1, {}]}),
    ('{"a": "x\\', {"a": "x"}),
    ('{"a": "x\\u00e', {"a": "x"}),
    ('{"a": "q\\"uote', {"a": 'q"uote'}),
    ('{"a": {"b": "c"}}', {"a": {"b": "c"}}),
])
def test_closing(text, expected):
    assert parse_partial(text) == expected


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=10,
)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.text(max_size=6), json_values, max_size=4), st.data())
def test_every_prefix_parses_and_the_whole_is_exact(obj, data):
    text = json.dumps(obj, ensure_ascii=bool(data.draw(st.booleans())))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=6)))
    p = PartialArgs()
    prev = 0
    for cut in [*cuts, len(text)]:
        p.append(text[prev:cut])
        prev = cut
        snap = p.snapshot(force=True)
        assert snap is None or isinstance(snap, dict)
    assert p.snapshot(force=True) == obj


def test_large_arguments_are_throttled():
    p = PartialArgs()
    p.append('{"content": "')
    for _ in range(5000):
        p.append("abcdefghij")
        p.snapshot()
    p.append('"}')
    assert p.snapshot(force=True) == {"content": "abcdefghij" * 5000}


def test_names():
    assert sanitize("get_weather") == "get_weather"
    assert sanitize("fs.read/file") == "fs_read_file"
    long = sanitize("x" * 100)
    assert len(long) == 64 and long != sanitize("x" * 99)
    assert wire_name(Tool("search", "", namespace="github")) == "github_search"
    assert wire_name(Tool("github_search", "", namespace="github")) == "github_search"
    assert split_namespace("github_search") == ("github", "search")
    assert split_namespace("search") == (None, "search")
    assert safe_id("toolu_01A09q90qw90lq917835lq9") == "toolu_01A09q90qw90lq917835lq9"
    odd = safe_id("functions.get_weather:0")
    assert odd == safe_id("functions.get_weather:0") and len(odd) <= 40 and ":" not in odd


def test_name_map_round_trip_and_collisions():
    tools = [Tool("a.b", ""), Tool("a_b", ""), Tool("search", "", namespace="jira")]
    m = NameMap.of(tools)
    wires = [m.to_wire(t.name) for t in tools]
    assert len(set(wires)) == 3
    assert all(m.from_wire(w) == t.name for w, t in zip(wires, tools, strict=True))
    assert m.from_wire("unknown") == "unknown"
