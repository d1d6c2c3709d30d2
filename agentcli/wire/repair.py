"""The repair layer: decode call arguments, resolve tool names forgivingly, coerce by schema.

Every fix returns a (kind, detail) pair that the pipeline records as a `Repair`; nothing is
fixed silently. JSON repair itself is the json-repair library's job (imported lazily).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.lazy import lazy_pattern
from agentcli.core.types import Tool

Fix = tuple[str, str]  # (repair kind, detail)

_WRAPPER_KEYS = ("arguments", "parameters", "args", "input")

# json_repair costs a few microseconds per character (string contents included): one call's
# arguments go to it only up to MAX_REPAIR_CHARS, and one reply's calls up to REPAIR_CHARS in all.
# Malformed arguments try the linear fixes below first (the usual slips: raw newlines in strings,
# trailing commas), whatever their size: a megabyte of broken JSON costs milliseconds, and a short
# `{"path": ".",}` is read without importing json_repair (some 35M instructions, 3 % of a cold
# `agent run`). Only what they cannot read goes to the library.
MAX_REPAIR_CHARS = 8_192
REPAIR_CHARS = 8_192
# A string (one that never closes runs to the end) or a comma just before a closing bracket.
_STRING_OR_TRAILING_COMMA = lazy_pattern(r'"(?:[^"\\]++|\\.?)*+"?|,(?=\s*[}\]])')


class RepairBudget:
    """The JSON repair one reply may still spend, in characters handed to json_repair."""

    __slots__ = ("left",)

    def __init__(self, chars: int = REPAIR_CHARS) -> None:
        self.left = chars

    def take(self, s: str) -> bool:
        """Spend len(s); False (nothing spent) when `s` is over either limit."""
        if len(s) > MAX_REPAIR_CHARS or len(s) > self.left:
            return False
        self.left -= len(s)
        return True


def cheap_repair(s: str) -> Any:
    """The fixes that cost one linear pass, tried before the library: raw control characters
    inside strings, and trailing commas. None when the text is still not JSON."""
    for candidate in (s, _STRING_OR_TRAILING_COMMA.sub(lambda m: "" if m.group() == "," else m.group(), s)):
        try:
            return jsonsafe.loads(candidate, strict=False)
        except ValueError:
            continue
        except RecursionError:
            return None
    return None


class ArgumentError(ValueError):
    """The arguments could not be turned into an object (with repairs disabled or impossible)."""


def decode_arguments(
    raw: Any, *, repair: bool = True, schema: dict[str, Any] | None = None, budget: RepairBudget | None = None,
    unwrap: bool = True,
) -> tuple[dict[str, Any], list[Fix]]:
    """Arguments as a dict. Raises ArgumentError when they cannot be recovered (or would cost more
    JSON repair than `budget`, the reply's, has left; a fresh budget when None). unwrap=False for
    forms that name each parameter in markup (XML, key:value): there a lone `input` is a parameter."""
    fixes: list[Fix] = []
    value = raw
    if value is None:
        return {}, fixes
    if type(value) is dict:  # decoded by the dialect (most JSON forms): straight to the object's end
        return _object_arguments(value, schema, repair and unwrap, fixes)
    if type(value) is str:
        # The usual call: an object written as clean JSON. json.loads reads the whitespace strip()
        # would take off the ends, so this is _decode_string's first decode without its layers;
        # anything else (a ValueError) takes the full path below, which decodes again and
        # words the same error or makes the same repair.
        try:
            value = jsonsafe.loads(value)
        except ValueError:
            value = raw
        else:
            if type(value) is dict:
                return _object_arguments(value, schema, repair and unwrap, fixes)
            value = raw
    if budget is None:
        budget = RepairBudget()
    if isinstance(value, str):
        value = _decode_string(value, repair, fixes, budget)
    # A JSON string holding JSON (double encoding): decode once more.
    if isinstance(value, str):
        inner = value.strip()
        if inner[:1] in ("{", "[") or inner == "":
            if not repair:
                raise ArgumentError("arguments are a JSON-encoded string (double-encoded)")
            value = _decode_string(inner, True, fixes, budget) if inner else {}
            fixes.append(("double_encoded", "arguments were a JSON string holding JSON; decoded twice"))
    if not isinstance(value, dict):
        raise ArgumentError(f"arguments must be a JSON object, got {type(value).__name__}")
    return _object_arguments(value, schema, repair and unwrap, fixes)


def _object_arguments(value: dict[str, Any], schema: dict[str, Any] | None, unwrap: bool,
                      fixes: list[Fix]) -> tuple[dict[str, Any], list[Fix]]:
    """decode_arguments' end for an object: unwrapped (only a lone key can be a wrapper), then
    checked for numbers JSON cannot carry."""
    if len(value) == 1 or not (schema is None or type(schema) is dict):
        value, more = unwrap_arguments(value, schema, unwrap)
        fixes.extend(more)
    unfit = unfit_arguments(value)
    if unfit is not None:
        raise ArgumentError(unfit)
    return value, fixes


def unfit_arguments(value: dict[str, Any]) -> str | None:
    """Why decoded arguments cannot go on, or None: a float JSON cannot carry (see finite), or
    nesting past jsonsafe.MAX_DEPTH. The bounded decode (jsonsafe.loads) checks the text it reads;
    a dialect's own decode and a JSON repair build values it never saw (json_repair reads a
    thousand levels), so every object is asked here, where every decode ends."""
    return _unfit(value, jsonsafe.MAX_DEPTH)


def finite(value: Any) -> bool:
    """No float in `value` is infinite or NaN: `1e999` decodes to inf, which would be sent on as the
    literal `Infinity`, and no JSON parser accepts that."""
    return _unfit(value, None) is None


# Types of a value _unfit has nothing to look into (bool is an int; an int is never infinite).
_FLAT = frozenset({str, int, bool, type(None)})
_NOT_FINITE = "arguments hold a number JSON cannot carry (infinite or NaN)"


def _unfit(value: Any, limit: int | None) -> str | None:
    """The first reason `value` cannot go on as JSON: a float infinite or NaN, or (with a `limit`)
    containers nested past it. One pass, no recursion; the usual arguments, an object of text and
    integers, are answered in one loop."""
    if type(value) is dict:
        for v in value.values():
            if type(v) not in _FLAT:
                break
        else:
            return None
    elif not isinstance(value, (dict, list)):
        return _NOT_FINITE if isinstance(value, float) and not math.isfinite(value) else None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        for v in node.values() if isinstance(node, dict) else node:
            if isinstance(v, float):
                if not math.isfinite(v):
                    return _NOT_FINITE
            elif isinstance(v, (dict, list)):
                if limit is not None and level >= limit:
                    return str(jsonsafe.TooDeep(level + 1, limit))
                stack.append((v, level + 1))
    return None


def _decode_string(text: str, repair: bool, fixes: list[Fix], budget: RepairBudget) -> Any:
    s = text.strip()
    if not s:
        return {}
    try:
        return jsonsafe.loads(s)
    except jsonsafe.TooDeep as exc:  # well formed, only too deep: no repair flattens it
        raise ArgumentError(str(exc)) from None
    except ValueError as exc:
        err = exc
    if not repair:
        raise ArgumentError(f"arguments are not valid JSON: {err}")
    if isinstance(err, json.JSONDecodeError) and err.msg == "Extra data":
        value, end = json.JSONDecoder().raw_decode(s)
        fixes.append(("trailing_text", f"ignored {len(s) - end} characters after the arguments object"))
        return value
    cheap = cheap_repair(s)
    if isinstance(cheap, (dict, list)):
        fixes.append(("json_repair", f"repaired malformed JSON arguments ({err.args[0] if err.args else err})"))
        return cheap
    if not budget.take(s):
        raise ArgumentError(f"arguments are not valid JSON and too large to repair ({len(s)} characters): {err}")
    import json_repair  # lazy: only malformed output pays for it

    try:
        value = json_repair.loads(s)
    except Exception as exc:  # the library is total in practice; stay total ourselves
        raise ArgumentError(f"arguments are not valid JSON and could not be repaired: {exc}") from None
    if not isinstance(value, (dict, list)) or (value in ({}, []) and not _looks_empty(s)):
        raise ArgumentError(f"arguments are not valid JSON and could not be repaired: {err}")
    if (where := invented_value(value, s)) is not None:
        raise ArgumentError(f"arguments are not valid JSON: the value of {where} is missing, and a repair would "
                            f"have to invent it ({err.args[0] if err.args else err})")
    fixes.append(("json_repair", f"repaired malformed JSON arguments ({err.args[0] if err.args else err})"))
    return value


_EMPTY_STRING = lazy_pattern(r"""(?:""|'')""")
_NULL = lazy_pattern(r"\b(?:null|None)\b")


def invented_value(value: Any, source: str) -> str | None:
    """Where json_repair filled in a value the text does not hold, or None.

    It reads `{"path": "a", "content": }` as content "" (and a bare key as null): running that call
    would write an empty file the model never asked for. A value can be repaired, never made up, so
    an empty string needs an empty-string literal in the text and a null needs null/None.
    """
    has_empty = _EMPTY_STRING.search(source) is not None
    has_null = _NULL.search(source) is not None
    stack: list[tuple[str, Any]] = [("the arguments", value)]
    while stack:
        where, v = stack.pop()
        if (v == "" and isinstance(v, str) and not has_empty) or (v is None and not has_null):
            return where
        if isinstance(v, dict):
            stack.extend((repr(k), x) for k, x in v.items())
        elif isinstance(v, list):
            stack.extend((f"{where}[{i}]", x) for i, x in enumerate(v))
    return None


def _looks_empty(s: str) -> bool:
    return re.fullmatch(r"[\[{]\s*[\]}]?", s) is not None


def unwrap_arguments(args: dict[str, Any], schema: dict[str, Any] | None, repair: bool = True) -> tuple[dict[str, Any], list[Fix]]:
    """{"arguments": {...}} written inside the arguments: unwrap unless the tool has such a parameter."""
    fixes: list[Fix] = []
    props: dict[str, Any] | None = None  # the schema's properties, looked up once a wrapper key is seen
    while repair and len(args) == 1:
        key = next(iter(args))
        if key not in _WRAPPER_KEYS:
            break  # the usual lone parameter: no wrapper
        if props is None:
            props = (schema or {}).get("properties") or {}
        inner = args[key]
        if key in props or not isinstance(inner, (dict, str)):
            break
        if isinstance(inner, str):
            try:
                inner = jsonsafe.loads(inner)
            except ValueError:
                break
            if not isinstance(inner, dict):
                break
        fixes.append(("unwrap_arguments", f"arguments were wrapped in {key!r}"))
        args = inner
    return args, fixes


def decode_text_values(args: dict[str, Any], schema: dict[str, Any] | None) -> dict[str, Any]:
    """XML-style parameters arrive as text: decode values that are valid JSON, except for string params."""
    props = (schema or {}).get("properties") or {}
    out: dict[str, Any] = {}
    for key, value in args.items():
        if isinstance(value, str) and value.strip() == "null" and "null" in _types(props.get(key)):
            value = None  # `anyOf [string, null]`: the literal null is the null, not the word
        elif isinstance(value, str) and not _is_string_param(props.get(key)) and not _lists_text(props.get(key), value):
            s = value.strip()
            if s and (s[0] in '{["-' or s[0].isdigit() or s in ("true", "false", "null")):
                try:
                    decoded = jsonsafe.loads(s)
                except ValueError:
                    decoded = _repaired_structure(s, _types(props.get(key)), value)
                value = decoded if _admits(props.get(key), decoded) else value
        if isinstance(value, str) and key not in props:
            value = _python_literal(value)  # no schema says it is text: `True`, `None`, `{'a': 1}` as Python wrote them
        out[key] = value
    return out


_PY_WORDS = {"True": True, "False": False, "None": None}
_PY_LITERAL_CHARS = 4_096  # a literal longer than this stays text (literal_eval's cost and depth stay small)


def _python_literal(text: str) -> Any:
    """`text` read as a Python literal when it is one (True/False/None, or a dict, list or tuple of
    literals), else `text` unchanged: values written as Python, for a parameter no schema types."""
    s = text.strip()
    if s in _PY_WORDS:
        return _PY_WORDS[s]
    if not s or s[0] not in "{[(" or len(s) > _PY_LITERAL_CHARS:
        return text
    import ast

    try:
        value = ast.literal_eval(s)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text
    if isinstance(value, tuple):
        value = list(value)
    if not isinstance(value, (dict, list)) or not finite(value):
        return text
    try:
        return jsonsafe.loads(json.dumps(value))  # only what JSON can carry: keys as strings, no sets or bytes
    except (TypeError, ValueError):
        return text


def _lists_text(prop: Any, text: str) -> bool:
    """The text itself is one of the values the parameter's `enum` or `const` names: it stays text."""
    if not isinstance(prop, dict):
        return False
    members = prop.get("enum")
    return (isinstance(members, list) and text in members) or ("const" in prop and prop["const"] == text)


_JSON_TYPE = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"), (list, "array"), (dict, "object"))


def _admits(prop: Any, decoded: Any) -> bool:
    """Whether a parameter that may also be text takes the decoded JSON value: `["string",
    "integer"]` takes `7` but keeps `true` and `1e2` as written. Without a string type, any value."""
    types = _types(prop)
    if "string" not in types:
        return True
    if decoded is None:
        return "null" in types
    kind = next(name for cls, name in _JSON_TYPE if isinstance(decoded, cls))
    return kind in types or (kind == "integer" and "number" in types)


def _repaired_structure(s: str, types: set[str], fallback: Any) -> Any:
    """A text value the schema types as an array or object, written as near-JSON (`'pending'`, a
    trailing comma): repaired within the usual budget when the repair gives that type; else unchanged."""
    want = (list if "array" in types else None, dict if "object" in types else None)
    if s[0] not in "[{" or not any(want) or '\\"' in s:  # escaped JSON is the pipeline's escaped_json repair
        return fallback
    try:
        value = _decode_string(s, True, [], RepairBudget())
    except ArgumentError:
        return fallback
    return value if any(w is not None and isinstance(value, w) for w in want) else fallback


def _types(prop: Any) -> set[str]:
    if not isinstance(prop, dict):
        return set()
    t = prop.get("type")
    if isinstance(t, str):
        return {t}
    if isinstance(t, list):
        return {x for x in t if isinstance(x, str)}
    found: set[str] = set()
    for key in ("anyOf", "oneOf"):
        for sub in prop.get(key) or ():
            found |= _types(sub)
    return found


def _is_string_param(prop: Any) -> bool:
    return _types(prop) == {"string"} or _types(prop) == {"string", "null"}


_INT = lazy_pattern(r"[-+]?\d+")
_NUM = lazy_pattern(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def coerce_arguments(args: dict[str, Any], schema: dict[str, Any] | None) -> tuple[dict[str, Any], list[Fix]]:
    """Top-level values whose JSON type contradicts the schema but convert losslessly ("5" -> 5)."""
    props = (schema or {}).get("properties") or {}
    if not props:
        return args, []
    fixes: list[Fix] = []
    out = dict(args)
    for key, value in args.items():
        prop = props.get(key)
        if type(prop) is dict and type(prop.get("type")) is str and type(value) in _ALREADY.get(prop["type"], ()):
            continue  # a scalar of its schema's one type (the usual case): _matches, asked without sets
        types = _types(prop)
        if types and isinstance(value, (dict, list)) and _matches(value, types):
            inner = _coerce_within(value, props.get(key), fixes, key)
            if inner is not value:
                out[key] = inner
            continue
        if not types or _matches(value, types):
            continue
        new = _convert(value, types)
        if new is not _NO:
            out[key] = new
            fixes.append(("coerce_type", f"{key}: {type(value).__name__} -> {'/'.join(sorted(types))}"))
    return out, fixes


_NO = object()


def _coerce_within(value: Any, prop: Any, fixes: list[Fix], path: str, depth: int = 0) -> Any:
    """Leaves inside an object or array typed by the nested schema (`"018956"` -> 18956 for an
    integer `zip`), for forms that write nested values as text; the same lossless rule."""
    if depth > 16 or not isinstance(prop, dict):
        return value
    if isinstance(value, dict) and isinstance(prop.get("properties"), dict):
        sub, fixed = coerce_arguments(value, prop)
        fixes.extend((kind, f"{path}.{detail}") for kind, detail in fixed)
        return {k: _coerce_within(v, prop["properties"].get(k), fixes, f"{path}.{k}", depth + 1) for k, v in sub.items()}
    items = prop.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        types = _types(items)
        out: list[Any] = []
        for i, v in enumerate(value):
            if types and not _matches(v, types):
                new = _convert(v, types)
                if new is not _NO:
                    fixes.append(("coerce_type", f"{path}[{i}]: {type(v).__name__} -> {'/'.join(sorted(types))}"))
                    v = new
            out.append(_coerce_within(v, items, fixes, f"{path}[{i}]", depth + 1))
        return out
    return value


# JSON-schema type -> the Python types a decoded value of it has (bool is an int subclass, so it is
# told apart by exact type). Built once: the per-value check runs for every argument of every call.
_PY_TYPES: dict[str, tuple[type, ...]] = {
    "string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,), "array": (list,),
    "object": (dict,), "null": (type(None),),
}


# A schema's one type -> the exact scalar types of a value _matches admits for it, asked before the
# type sets are built (a dict or list value takes the full path: its insides may need coercion).
_ALREADY: dict[str, frozenset[type]] = {t: frozenset(py) for t, py in _PY_TYPES.items() if t not in ("array", "object")}


def _matches(value: Any, types: set[str]) -> bool:
    kind = type(value)
    for t in types:
        want = _PY_TYPES.get(t)
        if want is None:
            return True  # a type this check does not know admits anything
        if kind in want or (kind is not bool and isinstance(value, want)):
            return True
    return False


def _convert(value: Any, types: set[str]) -> Any:
    if isinstance(value, str):
        s = value.strip()
        if "integer" in types and _INT.fullmatch(s):
            try:
                return int(s)
            except ValueError:  # past Python's limit on digits (4300): no integer to give, the text stays
                return _NO
        if "number" in types and _NUM.fullmatch(s):
            f = float(s)
            return int(f) if f.is_integer() and "." not in s and "e" not in s.lower() else f
        if "boolean" in types and s.lower() in ("true", "false"):
            return s.lower() == "true"
        if ("array" in types or "object" in types) and s[:1] in "[{":
            try:
                decoded = jsonsafe.loads(s)
            except ValueError:
                return _NO
            if ("array" in types and isinstance(decoded, list)) or ("object" in types and isinstance(decoded, dict)):
                return decoded
        if "null" in types and s in ("null", "None"):
            return None
        return _NO
    if "string" in types and isinstance(value, (int, float, bool)):
        return json.dumps(value)
    if "integer" in types and isinstance(value, float) and value.is_integer():
        return int(value)
    if "array" in types and not isinstance(value, (list, dict)) and value is not None:
        return [value]
    return _NO


def _norm(name: str) -> str:
    return name.lower().replace("-", "_").replace(".", "_")


_PREFIXES = ("functions.", "function.", "tools.", "tool.", "default_api.", "functions:", "functions/", "mcp__")


# Heads that make a name of their own rather than a namespace: `tool_search` is the deferred-tool
# search (not offered in this request), never the `search` tool.
_GENERIC_HEADS = frozenset({"tool", "tools", "function", "functions", "fn", "func"})


def _namespaced_as(called: str, tool: str) -> bool:
    """`called` is `tool` behind a namespace ("my_server_read_file"), not a generic word + a name."""
    return called.endswith("_" + tool) and called[: -len(tool) - 1] not in _GENERIC_HEADS


def resolve_name(name: str, tools: dict[str, Tool], *, repair: bool = True) -> tuple[str | None, Fix | None]:
    """The offered tool `name` means, and the fix applied; (None, None) when it resolves to nothing."""
    if name in tools:
        return name, None
    if not repair or not tools:
        return None, None
    stripped = name.strip().strip("`'\"")
    for prefix in _PREFIXES:
        if stripped.lower().startswith(prefix):
            stripped = stripped[len(prefix):]
            break
    m = re.fullmatch(r"(.+?)[:#]\d+", stripped)  # functions.read_file:0 (Kimi-style indices)
    if m:
        stripped = m.group(1)
    if stripped in tools:
        return stripped, ("name_prefix", f"{name!r} -> {stripped!r}")
    by_norm: dict[str, list[str]] = {}
    for t in tools:
        by_norm.setdefault(_norm(t), []).append(t)
    hits = by_norm.get(_norm(stripped), [])
    if len(hits) == 1:
        kind = "name_case" if hits[0].lower() == stripped.lower() else "name_separator"
        return hits[0], (kind, f"{name!r} -> {hits[0]!r}")
    # A unique suffix: "read" for "fs_read"? No - only the tool's name as the called name's suffix
    # ("my_server.read_file" -> "read_file") or the reverse for namespaced tools.
    n = _norm(stripped)
    suffix_hits = [t for t in tools if _namespaced_as(n, _norm(t)) or _norm(t).endswith("_" + n)]
    if len(suffix_hits) == 1:
        return suffix_hits[0], ("name_suffix", f"{name!r} -> {suffix_hits[0]!r}")
    return None, None


# A reply that is nothing but one call object, maybe in a ```json fence that never closes, maybe in
# `functools[...]` or `[...]` whose `]` never came.
