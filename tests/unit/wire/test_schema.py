"""JSON-Schema transforms: OpenAI strict mode and the Gemini subset."""

from __future__ import annotations

import copy

import jsonschema
import pytest

from agentcli.wire.schema import drop_optional_nulls, for_gemini, object_root, to_strict

NESTED = {
    "type": "object",
    "properties": {
        "query": {"type": "string", "minLength": 1},
        "filters": {
            "type": "object",
            "properties": {
                "lang": {"type": "string", "default": "en"},
                "since": {"type": "string", "format": "date"},
            },
            "required": ["since"],
        },
        "tags": {"type": "array", "items": {"type": "object", "properties": {"k": {"type": "string"}}}},
        "limit": {"type": "integer", "minimum": 1, "default": 10},
    },
    "required": ["query"],
}


def test_nested_objects_and_arrays_become_strict():
    assert to_strict(NESTED) == {
        "type": "object",
        "properties": {
            "query": {"type": "string"},
            "filters": {
                "type": ["object", "null"],
                "properties": {
                    "lang": {"type": ["string", "null"]},
                    "since": {"type": "string", "format": "date"},
                },
                "required": ["lang", "since"],
                "additionalProperties": False,
            },
            "tags": {
                "type": ["array", "null"],
                "items": {"type": "object", "properties": {"k": {"type": ["string", "null"]}},
                          "required": ["k"], "additionalProperties": False},
            },
            "limit": {"type": ["integer", "null"], "minimum": 1},
        },
        "required": ["query", "filters", "tags", "limit"],
        "additionalProperties": False,
    }


def test_strict_does_not_mutate_input():
    before = copy.deepcopy(NESTED)
    to_strict(NESTED)
    assert before == NESTED


@pytest.mark.parametrize("schema", [
    {"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}},
    {"type": "object", "properties": {"meta": {"type": "object"}}},  # free-form nested object
    {"type": "object", "properties": {"x": {}}},  # any value
    {"type": "object", "properties": {"x": {"not": {"type": "string"}}}},
    {"type": "object", "properties": {"x": {"type": "string"}}, "patternProperties": {"^y": {"type": "string"}}},
    {"type": "object", "properties": {"x": {"allOf": [{"type": "string"}, {"maxLength": 3}]}}},
    {"type": "object", "additionalProperties": True, "properties": {}},
    {"anyOf": [{"type": "object"}, {"type": "null"}]},
    {"type": "object", "properties": {"x": {"type": "array"}}},  # array without items
    {"type": "object", "properties": {"x": {"type": "string", "enum": [str(i) for i in range(1001)]}}},
])
def test_schemas_that_cannot_be_strict(schema):
    assert to_strict(schema) is None


def test_too_deep_cannot_be_strict():
    node: dict = {"type": "string"}
    for _ in range(11):
        node = {"type": "object", "properties": {"n": node}, "required": ["n"]}
    assert to_strict(node) is None


def test_refs_enums_oneof_and_single_allof():
    schema = {
        "type": "object",
        "properties": {
            "mode": {"enum": ["a", "b"]},
            "target": {"$ref": "#/$defs/T", "description": "Where."},
            "value": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "base": {"allOf": [{"$ref": "#/$defs/T"}]},
        },
        "required": ["target", "value", "base"],
        "$defs": {"T": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}},
    }
    out = to_strict(schema)
    assert out is not None
    props = out["properties"]
    assert props["mode"] == {"anyOf": [{"enum": ["a", "b"]}, {"type": "null"}]}
    assert props["target"] == {"description": "Where.", "anyOf": [{"$ref": "#/$defs/T"}]}
    assert props["value"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert props["base"] == {"$ref": "#/$defs/T"}
    assert out["$defs"]["T"]["additionalProperties"] is False
    # the strict schema still accepts what the original accepted (plus explicit nulls)
    jsonschema.validate({"mode": None, "target": {"id": "x"}, "value": 3, "base": {"id": "y"}}, out)


def test_drop_optional_nulls_restores_original_shape():
    args = {"query": "q", "filters": {"lang": None, "since": "2024-01-01"}, "tags": [{"k": None}], "limit": None}
    cleaned = drop_optional_nulls(args, NESTED)
    assert cleaned == {"query": "q", "filters": {"since": "2024-01-01"}, "tags": [{}]}
    jsonschema.validate(cleaned, NESTED)


def test_required_null_is_kept():
    schema = {"type": "object", "properties": {"a": {"type": ["string", "null"]}}, "required": ["a"]}
    assert drop_optional_nulls({"a": None}, schema) == {"a": None}


def test_object_root_fills_missing_parts():
    assert object_root(None) == {"type": "object", "properties": {}}
    assert object_root({"properties": {"a": {"type": "string"}}})["type"] == "object"


def test_gemini_subset():
    out = for_gemini({
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "null"}], "examples": ["x"]},
            "b": {"type": ["integer", "string"]},
            "c": {"const": "fixed"},
            "d": {"type": "array"},
            "e": {"type": "number", "exclusiveMinimum": 0, "format": "double"},
        },
        "required": ["a", "missing"],
        "additionalProperties": False,
    })
    assert out == {
        "type": "object",
        "properties": {
            "a": {"anyOf": [{"type": "string"}, {"type": "string", "nullable": True}]},
            "b": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
            "c": {"type": "string", "enum": ["fixed"]},
            "d": {"type": "array", "items": {"type": "string"}},
            "e": {"type": "number", "format": "double"},
        },
        "required": ["a"],
    }


def test_gemini_recursive_ref_stops():
    schema = {"type": "object", "properties": {"node": {"$ref": "#/$defs/N"}},
              "$defs": {"N": {"type": "object", "properties": {"child": {"$ref": "#/$defs/N"}}}}}
    out = for_gemini(schema)
    assert out["properties"]["node"]["properties"]["child"]["type"] == "object"
