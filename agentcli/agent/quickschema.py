"""A fast yes for the simple JSON Schemas nearly every tool has, so jsonschema loads only when needed.

Importing jsonschema and building a validator costs about a fifth of a run's cold start, yet
nearly every tool's schema is an object of typed properties with `required`, `enum` and
`additionalProperties`. `conforms` answers True only when it is certain the full validator
would accept the value; anything it does not understand, and every failure, answers False, and
the caller asks jsonschema (which also words the error). So the fast path can make validation
cheaper, never more lenient.
"""

from __future__ import annotations

import re
from typing import Any

# Keywords that only describe (no effect on validity), with the type the meta-schema wants for
# each, and the ones this module checks itself.
_ANNOTATIONS: dict[str, type | tuple[type, ...]] = {
    "description": str, "title": str, "$comment": str, "default": object, "examples": list,
    "deprecated": bool, "readOnly": bool, "writeOnly": bool,
}
_CHECKED = frozenset({"type", "enum", "properties", "required", "additionalProperties", "items",
                      "minimum", "maximum", "minLength", "maxLength", "minItems", "maxItems", "pattern"})
_BOUNDS = {"minimum": (float, 1), "maximum": (float, -1), "minLength": (str, 1), "maxLength": (str, -1),
           "minItems": (list, 1), "maxItems": (list, -1)}  # keyword -> (what it bounds, direction)
_MAX_DEPTH = 8  # nested schemas deeper than this go to jsonschema
_TYPES = frozenset({"string", "integer", "number", "boolean", "null", "object", "array"})


def _is_type(value: Any, name: str) -> bool | None:
    """Whether `value` is of JSON type `name`; None when only jsonschema can tell (1.0 as integer)."""
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if isinstance(value, bool):
        return False if name in ("integer", "number") else None
    if name == "integer":
        if isinstance(value, int):
            return True
        return None if isinstance(value, float) else False
    if name == "number":
        return isinstance(value, int | float)
    return None  # an unknown type name: a schema error jsonschema reports


def _type_ok(schema: dict[str, Any], value: Any) -> bool | None:
    kind = schema.get("type")
    if kind is None:
        return True
    names = [kind] if isinstance(kind, str) else kind
    answers = [_is_type(value, n) for n in names]
    if any(a is True for a in answers):
        return True
    return None if any(a is None for a in answers) else False


def _compiles(pattern: str) -> re.Pattern[str] | None:
    try:
        return re.compile(pattern)
    except (re.error, RecursionError, OverflowError):
        return None


def _simple(schema: Any, depth: int = 0) -> bool:
    """Whether the whole schema uses only what this module checks, each keyword well formed.

    Checked up front, not only along the value's path: jsonschema refuses a schema with a bad
    part anywhere, so the fast path must too.
    """
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict) or depth > _MAX_DEPTH:
        return False
    for key, item in schema.items():
        if key in _CHECKED:
            continue
        kind = _ANNOTATIONS.get(key)
        if kind is None or not isinstance(item, kind):
            return False
    kind = schema.get("type")
    names = [kind] if isinstance(kind, str) else kind
    if kind is not None and (not isinstance(names, list) or not names
                             or not all(isinstance(n, str) and n in _TYPES for n in names)
                             or len(set(names)) != len(names)):
        return False
    enum = schema.get("enum", [])
    if not isinstance(enum, list) or not all(isinstance(e, str) for e in enum):
        return False  # 1 == 1.0 == True questions are jsonschema's
    props = schema.get("properties", {})
    required = schema.get("required", [])
    if not isinstance(props, dict) or not isinstance(required, list):
        return False
    if not all(isinstance(r, str) for r in required) or len(set(required)) != len(required):
        return False
    extra = schema.get("additionalProperties", True)
    if extra not in (True, False) and not _simple(extra, depth + 1):
        return False
    pattern = schema.get("pattern", "")
    if not isinstance(pattern, str) or _compiles(pattern) is None:
        return False
    for key, (kind, _) in _BOUNDS.items():
        bound = schema.get(key, 0)
        if isinstance(bound, bool) or not isinstance(bound, int | float):
            return False
        if kind is not float and (not isinstance(bound, int) or bound < 0):
            return False
    children = list(props.values()) + ([schema["items"]] if "items" in schema else [])
    return all(_simple(child, depth + 1) for child in children)


def _conforms(schema: Any, value: Any) -> bool:
    if schema is True or schema == {}:
        return True
    if _type_ok(schema, value) is not True:
        return False
    if "enum" in schema and value not in schema["enum"]:
        return False
    if not _within(schema, value):
        return False
    if "pattern" in schema and isinstance(value, str) and re.search(schema["pattern"], value) is None:
        return False  # jsonschema's own check is this re.search
    if isinstance(value, dict):
        return _object(schema, value)
    if isinstance(value, list) and "items" in schema:
        return all(_conforms(schema["items"], item) for item in value)
    return True


def _within(schema: dict[str, Any], value: Any) -> bool:
    for key, (kind, direction) in _BOUNDS.items():
        if key not in schema:
            continue
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            size: float = value
        elif isinstance(value, str | list) and isinstance(value, kind):
            size = len(value)
        else:
            continue
        if (size - schema[key]) * direction < 0:
            return False
    return True


def _object(schema: dict[str, Any], value: dict[str, Any]) -> bool:
    props = schema.get("properties", {})
    if any(name not in value for name in schema.get("required", ())):
        return False
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in props:
            if not _conforms(props[key], item):
                return False
        elif extra is False or (extra is not True and not _conforms(extra, item)):
            return False
    return True


# id -> (the schema, kept alive so its id stays its own; simple?). Tool schemas are not mutated
# after a tool is built, so an answer per object holds.
_seen: dict[int, tuple[Any, bool]] = {}


def _is_simple(schema: Any) -> bool:
    hit = _seen.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    answer = _simple(schema)
    if len(_seen) >= 512:
        _seen.clear()
    _seen[id(schema)] = (schema, answer)
    return answer


def conforms(schema: Any, value: Any) -> bool:
    """True when `value` certainly satisfies `schema`; False when the full validator must decide
    (the value may be wrong, or the schema uses what only jsonschema checks)."""
    return _is_simple(schema) and _conforms(schema, value)
