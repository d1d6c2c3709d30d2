"""The repair layer: argument decoding, name resolution, schema coercion - each fix recorded."""

from __future__ import annotations

import pytest

from agentcli.core.types import Tool
from agentcli.wire import repair

SCHEMA = {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "limit": {"type": "integer"},
        "ratio": {"type": "number"},
        "force": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "opts": {"type": "object"},
    },
}


@pytest.mark.parametrize(
    ("raw", "expected", "kinds"),
    [
        ('{"a": 1}', {"a": 1}, []),
        ({"a": 1}, {"a": 1}, []),
        (None, {}, []),
        ("", {}, []),
        ('{"a": 1,}', {"a": 1}, ["json_repair"]),
        ("{'a': 'x', 'b': True, 'c': None}", {"a": "x", "b": True, "c": None}, ["json_repair"]),
        ("{a: 1}", {"a": 1}, ["json_repair"]),
        ('{"a": 1} and then some words', {"a": 1}, ["trailing_text"]),
        ('"{\\"a\\": 1}"', {"a": 1}, ["double_encoded"]),
        ('{"arguments": {"a": 1}}', {"a": 1}, ["unwrap_arguments"]),
        ({"arguments": {"arguments": {"a": 1}}}, {"a": 1}, ["unwrap_arguments", "unwrap_arguments"]),
    ],
)
def test_decode_arguments(raw, expected, kinds):
    args, fixes = repair.decode_arguments(raw)
    assert args == expected
    assert [k for k, _ in fixes] == kinds


@pytest.mark.parametrize("raw", ["hello", "[1, 2]", "42", '"just a string"'])
def test_unrecoverable_arguments_raise(raw):
    with pytest.raises(repair.ArgumentError):
        repair.decode_arguments(raw)


def test_repair_off_refuses_what_needs_repair():
    with pytest.raises(repair.ArgumentError):
        repair.decode_arguments('{"a": 1,}', repair=False)
    assert repair.decode_arguments('{"a": 1}', repair=False) == ({"a": 1}, [])


def test_unwrap_kept_when_the_tool_has_that_parameter():
    schema = {"type": "object", "properties": {"input": {"type": "object"}}}
    args, fixes = repair.decode_arguments({"input": {"a": 1}}, schema=schema)
    assert args == {"input": {"a": 1}} and fixes == []


def test_coerce_by_schema():
    args, fixes = repair.coerce_arguments(
        {"path": 7, "limit": "5", "ratio": "0.5", "force": "TRUE", "tags": '["a", "b"]', "opts": '{"x": 1}'}, SCHEMA
    )
    assert args == {"path": "7", "limit": 5, "ratio": 0.5, "force": True, "tags": ["a", "b"], "opts": {"x": 1}}
    assert all(k == "coerce_type" for k, _ in fixes) and len(fixes) == 6


def test_coerce_leaves_unsafe_values():
    args, fixes = repair.coerce_arguments({"limit": "five", "force": "maybe", "tags": "not json"}, SCHEMA)
    assert args == {"limit": "five", "force": "maybe", "tags": "not json"}
    assert fixes == []  # validation reports these; guessing would be worse


def test_text_values_decode_json_but_keep_string_params():
    out = repair.decode_text_values({"path": "123", "limit": "5", "flag": "true", "name": "Paris", "zip": "007"}, SCHEMA)
    assert out == {"path": "123", "limit": 5, "flag": True, "name": "Paris", "zip": "007"}


TOOLS = {t: Tool(t, "") for t in ("read_file", "write_file", "search.web", "mcp_github_create_issue")}


@pytest.mark.parametrize(
    ("name", "resolved", "kind"),
    [
        ("read_file", "read_file", None),
        ("Read_File", "read_file", "name_case"),
        ("functions.read_file", "read_file", "name_prefix"),
        ("functions.read_file:0", "read_file", "name_prefix"),
        ("read-file", "read_file", "name_separator"),
        ("search_web", "search.web", "name_separator"),
        ("create_issue", "mcp_github_create_issue", "name_suffix"),
        ("delete_everything", None, None),
        ("file", None, None),  # suffix of two tools: ambiguous
        ("mcp_server_read_file", "read_file", "name_suffix"),
    ],
)
def test_resolve_name(name, resolved, kind):
    got, fix = repair.resolve_name(name, TOOLS)
    assert got == resolved
    assert (fix[0] if fix else None) == kind


@pytest.mark.parametrize("name", ["tool_search", "tools_search", "function_search", "functions_search"])
def test_a_generic_word_and_a_name_is_another_tool_not_a_namespace(name):
    """`tool_search` when it is not offered is an unknown tool (the model hears so), never `search`."""
    got, fix = repair.resolve_name(name, {"search": Tool("search", ""), "read_file": Tool("read_file", "")})
    assert (got, fix) == (None, None)


def test_resolve_name_without_repair_is_exact():
    assert repair.resolve_name("Read_File", TOOLS, repair=False) == (None, None)


@pytest.mark.parametrize("raw, where", [
    ('{"path": "a.txt", "content": }', "'content'"),
    ('{"path": "a.txt", "content": , "mode": "w"}', "'content'"),
    ('{"path": "a.txt", "opts": {"force": }}', "'force'"),
    ('{"paths": ["a", , "b"], "x": }', "'x'"),
])
def test_repair_never_invents_a_missing_value(raw, where):
    """json_repair reads a missing value as "" (or null); running that call would act on a value the
    model never wrote, so the call is reported broken instead (the model is asked again)."""
    with pytest.raises(repair.ArgumentError, match=f"value of {where} is missing"):
        repair.decode_arguments(raw)


@pytest.mark.parametrize("raw, expected", [
    ('{"path": "a.txt" "content": ""}', {"path": "a.txt", "content": ""}),  # the empty string is written
    ('{"path": "a.txt", "note": null,}', {"path": "a.txt", "note": None}),
    ("{path: a.txt, content: 'hi there'}", {"path": "a.txt", "content": "hi there"}),
    ('{"xs": [1, 2,, 3]}', {"xs": [1, 2, 3]}),
])
def test_repair_keeps_values_the_text_holds(raw, expected):
    value, fixes = repair.decode_arguments(raw)
    assert value == expected
    assert [k for k, _ in fixes] == ["json_repair"]
