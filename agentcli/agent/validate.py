"""Argument validation against each tool's JSON Schema, with messages a model can act on
(seed 000 §10: what was wrong, expected vs received, how to fix)."""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from agentcli.agent.quickschema import conforms
from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.types import Tool, ToolCall

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator


@lru_cache(maxsize=256)
def _validator(schema_json: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = json.loads(schema_json)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def _expected(tool: Tool) -> str:
    props = tool.parameters.get("properties", {})
    required = set(tool.parameters.get("required", ()))
    parts = []
    for name, spec in props.items():
        typ = spec.get("type", "any")
        if "enum" in spec:
            typ = "|".join(map(str, spec["enum"]))
        parts.append(f"{name}: {typ}{'' if name in required else ' (optional)'}")
    return "{" + ", ".join(parts) + "}"


def validate_arguments(tool: Tool, arguments: dict[str, Any]) -> ToolError | None:
    """None when valid; otherwise one VALIDATION error listing every problem."""
    if conforms(tool.parameters, arguments):
        return None  # certain without jsonschema (most calls): it loads only to decide or word the rest
    validator = _validator(json.dumps(tool.parameters, sort_keys=True))
    errors = sorted(validator.iter_errors(arguments), key=lambda e: list(e.absolute_path))
    if not errors:
        return None
    problems = []
    for e in errors[:5]:
        where = ".".join(str(p) for p in e.absolute_path)
        problems.append(f"{where}: {e.message}" if where else e.message)
    received = json.dumps(arguments, default=str)
    if len(received) > 300:
        received = received[:300] + "..."
    return ToolError.of(
        ErrorCode.VALIDATION,
        f"Invalid arguments for {tool.name}: " + "; ".join(problems),
        f"Call {tool.name} again with arguments matching {_expected(tool)}. You sent: {received}",
        problems=problems,
    )


def terse(error: ToolError, call: ToolCall, known: bool) -> ToolError:
    """The error a naive client gives (eval's `messages` layer off): that the call failed, not why
    nor how to fix it. Only the model's own mistakes are shortened; refusals keep their reasons."""
    if error.code is not ErrorCode.VALIDATION:
        return error
    if call.unknown or not known:
        return ToolError.of(ErrorCode.VALIDATION, f"Unknown tool {call.name!r}.")
    return ToolError.of(ErrorCode.VALIDATION, f"Invalid arguments for {call.name}.")
