"""JSON-Schema transforms for what each API accepts in tool parameters.

Every transform returns a new dict (tool schemas are shared) and never a schema the API
would reject: `to_strict` gives up (None) rather than guess, `for_gemini` drops what
Gemini's OpenAPI subset lacks. Loosened constraints are safe because arguments are
validated later against the tool's original schema.
"""

from __future__ import annotations

import copy
from typing import Any

Schema = dict[str, Any]

# OpenAI strict mode: limits from the Structured Outputs guide.
STRICT_MAX_DEPTH = 10
STRICT_MAX_PROPERTIES = 5000
STRICT_MAX_ENUM = 1000
_STRICT_KEEP = frozenset({
    "type", "properties", "required", "additionalProperties", "items", "anyOf", "enum", "const",
    "$ref", "$defs", "definitions", "description", "title",
    "pattern", "format",
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
    "minItems", "maxItems",
})
_STRICT_FORMATS = frozenset({"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"})
# Keywords that change what is valid in ways strict mode cannot express: give up.
_STRICT_BLOCKERS = frozenset({
    "not", "if", "then", "else", "patternProperties", "dependentRequired", "dependentSchemas",
    "dependencies", "prefixItems", "propertyNames", "unevaluatedProperties", "unevaluatedItems",
    "contains", "additionalItems",
})


class _NotStrict(Exception):
    pass


def object_root(schema: Schema | None) -> Schema:
    """A copy whose root is an object with `properties` (what every tool API expects)."""
    out = copy.deepcopy(schema) if isinstance(schema, dict) else {}
    if out.get("type") != "object":
        out["type"] = "object"
    if not isinstance(out.get("properties"), dict):
        out["properties"] = {}
    return out


def for_anthropic(schema: Schema | None) -> Schema:
    """input_schema: an object root without top-level anyOf/oneOf/allOf (the API refuses them).

    Object variants are folded into one object: every property they name, required only
    when all variants require it. Local validation still applies the original schema.
    """
    out = object_root(schema)
    variants = [*out.pop("allOf", []), *out.pop("anyOf", []), *out.pop("oneOf", [])]
    if not variants:
        return out
    all_of = isinstance(schema, dict) and "allOf" in schema
    props = dict(out["properties"])
    required_sets: list[set[str]] = []
    for v in variants:
        if isinstance(v, dict) and isinstance(v.get("properties"), dict):
            for k, sub in v["properties"].items():
                props.setdefault(k, sub)
            required_sets.append(set(v.get("required") or ()))
    base = set(out.get("required") or ())
    if required_sets:
        extra = set.union(*required_sets) if all_of else set.intersection(*required_sets)
        base |= extra
    out["properties"] = props
    if base:
        out["required"] = [k for k in props if k in base]
    return out


def to_strict(schema: Schema | None) -> Schema | None:
    """The schema in OpenAI strict form, or None when it cannot be made strict.

    Every object lists all its properties in `required` and sets `additionalProperties:
    false`; properties that were optional become nullable (the model sends null for
    "not given", which `drop_optional_nulls` removes again).
    """
    root = object_root(schema)
    if "anyOf" in root or "oneOf" in root:
        return None
    counter = [0]
    try:
        out = _strict_node(root, depth=1, counter=counter, root=True)
        for key in ("$defs", "definitions"):
            if isinstance(root.get(key), dict):
                out[key] = {k: _strict_node(v, 1, counter) for k, v in root[key].items()}
    except (_NotStrict, RecursionError):
        return None
    return out


def _strict_node(node: Any, depth: int, counter: list[int], root: bool = False) -> Schema:
    if not isinstance(node, dict) or depth > STRICT_MAX_DEPTH:
        raise _NotStrict
    if _STRICT_BLOCKERS & node.keys():
        raise _NotStrict
    node = dict(node)
    if "oneOf" in node:  # exclusivity is checked by local validation; anyOf is the strict spelling
        node["anyOf"] = node.pop("oneOf") + node.pop("anyOf", [])
    if "allOf" in node:
        parts = node.pop("allOf")
        if not isinstance(parts, list) or len(parts) != 1 or not isinstance(parts[0], dict):
            raise _NotStrict
        node = {**parts[0], **node}
        if _STRICT_BLOCKERS & node.keys() or "allOf" in node:
            raise _NotStrict
    if "format" in node and node["format"] not in _STRICT_FORMATS:
        node.pop("format")
    out: Schema = {k: v for k, v in node.items() if k in _STRICT_KEEP and k not in ("$defs", "definitions")}
    if not ({"type", "anyOf", "$ref", "enum", "const"} & out.keys()):
        raise _NotStrict  # an "any value" schema has no strict spelling
    if "enum" in out and (not isinstance(out["enum"], list) or len(out["enum"]) > STRICT_MAX_ENUM):
        raise _NotStrict
    if "$ref" in out and len(out) > 1:
        # strict mode wants $ref alone; keep the description one level up via anyOf
        ref = {"$ref": out.pop("$ref")}
        out = {k: v for k, v in out.items() if k in ("description", "title")}
        out["anyOf"] = [ref]
    if "anyOf" in out:
        if not isinstance(out["anyOf"], list) or not out["anyOf"]:
            raise _NotStrict
        out["anyOf"] = [_strict_node(s, depth + 1, counter) for s in out["anyOf"]]
    types = out.get("type")
    type_list = types if isinstance(types, list) else [types]
    if "object" in type_list:
        props = node.get("properties")
        extra = node.get("additionalProperties", False)
        if extra not in (False, None):
            raise _NotStrict  # free-form maps cannot be strict
        if not isinstance(props, dict):
            props = {}
        if not props and not root:
            raise _NotStrict  # a nested free-form object would be forced to {}
        counter[0] += len(props)
        if counter[0] > STRICT_MAX_PROPERTIES:
            raise _NotStrict
        required = set(node.get("required") or ())
        new_props: Schema = {}
        for name, sub in props.items():
            strict_sub = _strict_node(sub, depth + 1, counter)
            new_props[name] = strict_sub if name in required else _nullable(strict_sub)
        out["properties"] = new_props
        out["required"] = list(props)
        out["additionalProperties"] = False
    if "array" in type_list:
        items = node.get("items")
        if items is None:
            raise _NotStrict
        out["items"] = _strict_node(items, depth + 1, counter)
    return out


def _nullable(node: Schema) -> Schema:
    """`node` that also accepts null (how strict mode spells an optional property)."""
    out = dict(node)
    t = out.get("type")
    if "anyOf" in out and "type" not in out:
        if not any(s.get("type") == "null" for s in out["anyOf"]):
            out["anyOf"] = [*out["anyOf"], {"type": "null"}]
        return out
    if isinstance(t, str) and "const" not in out:
        out["type"] = [t, "null"] if t != "null" else t
    elif isinstance(t, list) and "const" not in out:
        if "null" not in t:
            out["type"] = [*t, "null"]
    else:
        keep: dict[str, Any] = {k: out.pop(k) for k in ("description", "title") if k in out}
        return {**keep, "anyOf": [out, {"type": "null"}]}
    if "enum" in out and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out


def drop_optional_nulls(args: dict[str, Any], schema: Schema | None) -> dict[str, Any]:
    """Remove nulls a strict-mode model wrote for properties the original schema made optional."""
    if not isinstance(schema, dict):
        return args
    defs = {**schema.get("definitions", {}), **schema.get("$defs", {})}
    return _drop(args, schema, defs, 0)


def _resolve(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, dict) and isinstance(node.get("$ref"), str):
        return defs.get(node["$ref"].rsplit("/", 1)[-1], node)
    return node


def _drop(value: Any, node: Any, defs: dict[str, Any], depth: int) -> Any:
    node = _resolve(node, defs)
    if depth > 32 or not isinstance(node, dict):
        return value
    if isinstance(value, dict):
        props = node.get("properties")
        if not isinstance(props, dict):
            return value
        required = set(node.get("required") or ())
        return {
            k: _drop(v, props.get(k), defs, depth + 1)
            for k, v in value.items()
            if not (v is None and k in props and k not in required)
        }
    if isinstance(value, list) and isinstance(node.get("items"), dict):
        return [_drop(v, node["items"], defs, depth + 1) for v in value]
    return value


# -- Gemini ---------------------------------------------------------------------------

# Gemini's Schema object (an OpenAPI 3.0 subset). Anything else is rejected with a 400.
_GEMINI_KEEP = frozenset({
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "anyOf", "items", "minimum", "maximum", "propertyOrdering",
})
_GEMINI_FORMATS = {"string": {"enum", "date-time"}, "integer": {"int32", "int64"}, "number": {"float", "double"}}


def for_gemini(schema: Schema | None) -> Schema | None:
    """Parameters for a Gemini functionDeclaration; None when the tool takes no arguments
    (Gemini rejects an OBJECT with empty properties)."""
    root = object_root(schema)
    defs = {**root.get("definitions", {}), **root.get("$defs", {})}
    out = _gemini_node(root, defs, 0, frozenset())
    if not out.get("properties"):
        return None
    return out


def _merge_all_of(node: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """`allOf` folded into the node itself (Gemini has no allOf): properties and required lists joined."""
    for part in node.pop("allOf", None) or ():
        if isinstance(part, dict):
            part = _resolve(part, defs)
            for k, v in part.items():
                if k == "properties" and isinstance(v, dict):
                    node["properties"] = {**node.get("properties", {}), **v}
                elif k == "required" and isinstance(v, list):
                    node["required"] = [*node.get("required", []), *v]
                else:
                    node.setdefault(k, v)
    return node


def _gemini_node(node: Any, defs: dict[str, Any], depth: int, seen: frozenset[str]) -> Schema:
    if not isinstance(node, dict) or depth > 24:
        return {"type": "string"}
    ref = node.get("$ref")
    if isinstance(ref, str):
        name = ref.rsplit("/", 1)[-1]
        if name in seen or name not in defs:  # recursive schemas cannot be inlined
            return {"type": "object", "description": node.get("description", "")} if name in seen else {"type": "string"}
        merged = {**defs[name], **{k: v for k, v in node.items() if k != "$ref"}}
        return _gemini_node(merged, defs, depth + 1, seen | {name})
    node = _merge_all_of(dict(node), defs)
    if "oneOf" in node:
        node["anyOf"] = [*node.pop("oneOf"), *node.get("anyOf", [])]
    if "const" in node:
        node["enum"] = [node.pop("const")]
    out: Schema = {}
    t = node.get("type")
    nullable = False
    if isinstance(t, list):
        non_null = [x for x in t if x != "null"]
        nullable = len(non_null) < len(t)
        if len(non_null) > 1:
            variants = [_gemini_node({**node, "type": x}, defs, depth + 1, seen) for x in non_null]
            out = {"anyOf": variants}
            if nullable:
                out["nullable"] = True
            if "description" in node:
                out["description"] = node["description"]
            return out
        t = non_null[0] if non_null else None
    if t is None and "enum" in node:
        t = "string"
    if t == "null":
        return {"type": "string", "nullable": True}
    if t is not None:
        out["type"] = t
    if nullable or node.get("nullable") is True:
        out["nullable"] = True
    for key, value in node.items():
        if key not in _GEMINI_KEEP or key in ("type", "nullable"):
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {k: _gemini_node(v, defs, depth + 1, seen) for k, v in value.items()}
        elif key == "items":
            out[key] = _gemini_node(value, defs, depth + 1, seen)
        elif key == "anyOf" and isinstance(value, list):
            out[key] = [_gemini_node(v, defs, depth + 1, seen) for v in value]
        elif key == "enum":
            if isinstance(value, list) and all(isinstance(v, str) for v in value) and t == "string":
                out[key] = value
            elif isinstance(value, list):  # Gemini enums are strings only: say it in words
                allowed = ", ".join(str(v) for v in value)
                out["description"] = f"{node.get('description', '')} Allowed values: {allowed}.".strip()
        elif key == "format":
            if value in _GEMINI_FORMATS.get(str(t), ()):
                out[key] = value
        elif key == "required" and isinstance(value, list):
            props = node.get("properties") or {}
            kept = [r for r in value if r in props]
            if kept:
                out[key] = kept
        elif key == "description" and "description" in out:
            continue  # already extended by an enum note
        else:
            out[key] = value
    if "anyOf" in out and "type" in out:
        out.pop("type")
    if out.get("type") == "array" and "items" not in out:
        out["items"] = {"type": "string"}
    return out
