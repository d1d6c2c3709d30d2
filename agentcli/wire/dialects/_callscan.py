"""Small scanning helpers shared by text dialects: balanced JSON spans and call-shaped objects.

Everything here is linear in the input: JSON spans are found with the C decoder first and
a regex tokenizer (strings skipped in one step) second, never by backtracking.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DECODER = json.JSONDecoder()
# One token per match: a whole (possibly unterminated) string, or a bracket.
_TOKENS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\]]', re.S)
_IDENT = re.compile(r"[A-Za-z_][\w.\-:/]{0,127}")

# Keys that may name the tool / hold its arguments in a JSON call object.
NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name", "action")
ARG_KEYS = ("arguments", "parameters", "args", "input", "tool_arguments", "tool_input", "action_input", "params")
_META_KEYS = frozenset(("id", "type", "call_id", "tool_call_id", "index"))
_ALLOWED = frozenset(NAME_KEYS) | frozenset(ARG_KEYS) | _META_KEYS


def skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in " \t\r\n":
        i += 1
    return i


def json_end(text: str, start: int) -> int | None:
    """Index just past the bracket that closes text[start] ('{' or '['), or None if it never closes."""
    depth = 0
    for m in _TOKENS.finditer(text, start):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if len(tok) == 1 or not tok.endswith('"') or _odd_backslashes(tok):
                return None  # unterminated string runs to the end
            continue
        if c in "{[":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return m.end()
    return None


def _odd_backslashes(tok: str) -> bool:
    """True when the closing quote of a matched string token is itself escaped (token truncated)."""
    k = len(tok) - 2
    count = 0
    while k > 0 and tok[k] == "\\":
        count += 1
        k -= 1
    return count % 2 == 1


def decode_at(text: str, start: int) -> tuple[Any, int] | None:
    """Strict JSON value starting at `start` (no leading whitespace), with its end; None if invalid."""
    try:
        return _DECODER.raw_decode(text, start)
    except (ValueError, RecursionError):
        return None


def is_tool_name(value: Any) -> bool:
    return isinstance(value, str) and _IDENT.fullmatch(value) is not None


def call_from_obj(obj: Any, *, need_args: bool = True) -> tuple[str, Any, str | None] | None:
    """(name, arguments, id) when `obj` is shaped like one tool call, else None.

    Shapes: {"name", "arguments"|"parameters"|...}, {"tool", "args"}, {"tool_name", "tool_arguments"},
    {"action", "action_input"}, and the OpenAI item {"type": "function", "function": {...}} /
    {"function": {"name", "arguments"}}. Extra keys (a description, an email...) mean it is not a call.
    """
    if not isinstance(obj, dict) or not obj:
        return None
    fn = obj.get("function")
    if isinstance(fn, dict):
        if set(obj) - _META_KEYS - {"function"}:
            return None
        inner = call_from_obj(fn, need_args=False)
        if inner is None:
            return None
        name, args, _ = inner
        if isinstance(args, dict) and args.get("type") == "object" and "properties" in args:
            return None  # a tool definition's JSON schema, not arguments
        cid = obj.get("id") if isinstance(obj.get("id"), str) else None
        return name, args, cid
    if set(obj) - _ALLOWED:
        return None
    name_keys = [k for k in NAME_KEYS if k in obj]
    arg_keys = [k for k in ARG_KEYS if k in obj]
    if len(name_keys) != 1 or len(arg_keys) > 1:
        return None
    name = obj[name_keys[0]]
    if not is_tool_name(name):
        return None
    if (name_keys[0] == "action") != (arg_keys == ["action_input"]) and arg_keys:
        return None  # LangChain pairs action with action_input only
    if arg_keys:
        args = obj[arg_keys[0]]
        if args is None:
            args = {}
        if not isinstance(args, (dict, str)):
            return None
    elif need_args:
        return None
    else:
        args = {}
    if "type" in obj and obj["type"] not in ("function", "tool_call", "tool_use", "function_call"):
        return None
    cid = obj.get("id") if isinstance(obj.get("id"), str) else None
    return name, args, cid


def calls_from_value(value: Any, *, need_args: bool = True) -> list[tuple[str, Any, str | None]] | None:
    """Calls in a decoded JSON value: one call object, a non-empty list of them, or {"tool_calls": [...]}.
    None unless every element is call-shaped."""
    if isinstance(value, dict) and set(value) == {"tool_calls"}:
        value = value["tool_calls"]
    if isinstance(value, list):
        if not value:
            return None
        out = []
        for item in value:
            c = call_from_obj(item, need_args=need_args)
            if c is None:
                return None
            out.append(c)
        return out
    c = call_from_obj(value, need_args=need_args)
    return [c] if c else None


_NAME_FIELD = re.compile(r'["\']?(?:name|tool|tool_name|function)["\']?\s*:\s*["\']([A-Za-z_][\w.\-:/]{0,127})["\']')
_ARGS_FIELD = re.compile(r'["\']?(?:arguments|parameters|args|input)["\']?\s*:\s*')


def salvage_call(body: str) -> tuple[str, str] | None:
    """(name, raw arguments text) from a call object that is not valid JSON, for the repair layer.

    Used only inside an explicit call wrapper (a tag or token), never on free text.
    """
    m = _NAME_FIELD.search(body)
    if not m:
        return None
    a = _ARGS_FIELD.search(body)
    if not a:
        return m.group(1), "{}"
    start = a.end()
    if start < len(body) and body[start] in "{[":
        end = json_end(body, start)
        if end is not None:
            return m.group(1), body[start:end]
        return m.group(1), body[start:]  # never closes: the repair layer decides
    return m.group(1), body[start:].rstrip().removesuffix("}")


def complete_json(text: str) -> bool:
    """True when `text` (stripped) is one balanced JSON object/array, even if otherwise malformed."""
    t = text.strip()
    if not t or t[0] not in "{[":
        return False
    end = json_end(t, 0)
    return end is not None
