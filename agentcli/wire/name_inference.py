"""The tool a call means when the model wrote an id instead of a name.

Kimi K2 writes `functions.NAME:N` as a call's id and its name is read from it. When a client has
rewritten earlier ids (`call_3`, `toolu_01...`, a UUID) or the model writes a bare counter (`5`),
the id names nothing and the model learns to copy that style. The call itself is well formed, so
the tool is inferred from the arguments: the one offered tool whose schema alone accepts them
(every required key present, no undeclared key, every value of its declared type). Ambiguity is
never broken by tool order: handing the client a call to a tool the model did not choose is worse
than reporting the call as unreadable.
"""

from __future__ import annotations

from typing import Any

from agentcli.core.types import Tool


def infer_tool(arguments: Any, tools: dict[str, Tool]) -> str | None:
    """The one offered tool `arguments` fit, or None (none fits, several do, or not an object).
    With a single tool offered the name is unambiguous: the arguments are its to check."""
    if len(tools) == 1:
        return next(iter(tools))  # even with arguments that do not read: the repair layer's to judge
    if not isinstance(arguments, dict):
        return None
    fits = [name for name, tool in tools.items() if _accepts(tool.parameters, arguments)]
    return fits[0] if len(fits) == 1 else None


def _accepts(schema: Any, arguments: dict[str, Any]) -> bool:
    """Whether `schema` accepts `arguments`, undeclared keys refused unless the schema allows them."""
    import jsonschema  # lazy: only a call written without a name gets here

    if schema is True or schema == {}:
        return not arguments
    if not isinstance(schema, dict):
        return False
    closed = schema if "additionalProperties" in schema else {**schema, "additionalProperties": False}
    try:
        validator_cls = jsonschema.validators.validator_for(closed)
        return bool(validator_cls(closed).is_valid(arguments))
    except (jsonschema.exceptions.SchemaError, TypeError, ValueError, RecursionError):
        return False
