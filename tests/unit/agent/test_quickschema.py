"""The fast schema yes is never more lenient than jsonschema, over generated schemas and values."""

from __future__ import annotations

import os
import random
import subprocess
import sys
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from agentcli.agent.quickschema import conforms
from agentcli.agent.validate import validate_arguments
from agentcli.core.types import Tool

TYPES = ["string", "integer", "number", "boolean", "null", "object", "array", "strin", 5]


def _schema(rng: random.Random, depth: int = 0) -> Any:
    if rng.random() < 0.05:
        return rng.choice([True, {}, 5, [], {"type": []}])
    s: dict[str, Any] = {}
    if rng.random() < 0.8:
        s["type"] = rng.choice(TYPES) if rng.random() < 0.8 else rng.sample(TYPES[:7], 2)
    if rng.random() < 0.2:
        s["enum"] = rng.choice([["a", "b"], [1, 2], ["x", 1.0, True], "a"])
    if depth < 3 and rng.random() < 0.5:
        s["properties"] = {k: _schema(rng, depth + 1) for k in rng.sample("abcd", rng.randint(0, 3))}
    if rng.random() < 0.4:
        s["required"] = rng.choice([["a"], ["a", "b"], [], "a", [1]])
    if rng.random() < 0.3:
        s["additionalProperties"] = rng.choice([True, False, {"type": "string"}, "no"])
    if depth < 3 and rng.random() < 0.3:
        s["items"] = _schema(rng, depth + 1) if rng.random() < 0.9 else [{"type": "string"}]
    for key, value in (("description", "d"), ("description", 5), ("minimum", 3), ("maxLength", 1),
                       ("minItems", 1), ("maximum", True), ("minLength", -1), ("pattern", "^a"), ("pattern", "(["),
                       ("title", None), ("deprecated", True), ("$ref", "#")):
        if rng.random() < 0.08:
            s[key] = value
    return s


def _value(rng: random.Random, depth: int = 0) -> Any:
    kinds = ["s", "i", "f", "fi", "b", "n"] + (["o", "l"] if depth < 3 else [])
    k = rng.choice(kinds)
    if k == "o":
        return {key: _value(rng, depth + 1) for key in rng.sample("abcde", rng.randint(0, 4))}
    if k == "l":
        return [_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    return {"s": rng.choice(["a", "b", "x", ""]), "i": rng.randint(-2, 2), "f": 0.5, "fi": 1.0,
            "b": rng.random() < 0.5, "n": None}[k]


def _full_accepts(schema: Any, value: Any) -> bool:
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError:
        return False
    return Draft202012Validator(schema).is_valid(value)


def test_a_fast_yes_is_always_a_full_yes():
    rng = random.Random(2026)
    fast_yes = 0
    for _ in range(4000):
        schema, value = _schema(rng), _value(rng)
        if rng.random() < 0.5 and isinstance(schema, dict):
            schema = {"type": "object", "properties": {"a": schema}, "required": ["a"]}
            value = {"a": value}
        if conforms(schema, value):
            fast_yes += 1
            assert _full_accepts(schema, value), (schema, value)
    assert fast_yes > 150  # the generator reaches the fast path often enough to mean something


def test_every_builtin_tool_call_that_is_valid_takes_the_fast_path():
    from agentcli.tools.registry import ToolRegistry

    registry = ToolRegistry()
    checked = 0
    for name in registry.names():
        builtin = registry.get(name)
        assert builtin is not None
        tool = builtin.spec
        params = tool.parameters
        args = {}
        for name in params.get("required", []):
            kind = params["properties"][name].get("type", "string")
            args[name] = {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [],
                          "object": {}}.get(kind if isinstance(kind, str) else "string", "x")
            if "enum" in params["properties"][name]:
                args[name] = params["properties"][name]["enum"][0]
        if _full_accepts(params, args):
            assert conforms(params, args), tool.name
            checked += 1
    assert checked


def test_errors_are_still_worded_by_the_full_validator():
    tool = Tool(name="t", description="d", parameters={
        "type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]})
    assert validate_arguments(tool, {"n": 3}) is None
    assert validate_arguments(tool, {"n": 1.0}) is None  # 1.0 is an integer to JSON Schema
    err = validate_arguments(tool, {"n": "three"})
    assert err is not None and "'three' is not of type 'integer'" in err.message


def test_an_offline_run_never_imports_jsonschema_nor_httpx(tmp_path):
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "cfg"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PYTHONPATH": os.pathsep.join(sys.path)}
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "notes.txt").write_text("hello\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agentcli", "run", "list the files", "--profile", "offline"],
        cwd=tmp_path / "ws", env=env, capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "agentcli.agent.validate" in imported  # the run did validate arguments
    assert "jsonschema" not in imported
    assert "httpx" not in imported  # the scripted model makes no HTTP request, so it loads no client
