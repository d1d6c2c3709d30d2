"""Small scanning helpers shared by text dialects: balanced JSON spans and call-shaped objects.

Everything here is linear in the input: JSON spans are found with the C decoder first and
a regex tokenizer (strings skipped in one step) second, never by backtracking.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from agentcli.core.lazy import lazy_pattern

_DECODER = json.JSONDecoder()
# The decoder's C scanner: raw_decode minus a Python frame, and a miss raises StopIteration
# instead of building a JSONDecodeError (which counts the lines before the failure).
# (public: a dialect that decodes an argument where it stands, DeepSeek's and Kimi K3's lanes, calls it too)
SCAN_ONCE: Callable[[str, int], tuple[Any, int]] = _DECODER.scan_once  # type: ignore[attr-defined]  # typeshed omits this attribute set in __init__
# One token per match: a whole (possibly unterminated) string, or a bracket.
_TOKENS = lazy_pattern(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[{}\[\]]', re.S)
# A whole fence, opener to closer, as one match (CommonMark: a closer uses the opener's character, at
# least as many of them, and no info string): the opener line, where its info string ends (`eol`:
# the body starts on the next line), then line after line, each skipped in one step, until a closer
# (`close`, its start). The closer's marker run is possessive: a backtick given back would pass for
# the end of its info string. No closer: the group is empty and the fence runs to the end. The first
# fence is matched at the start, every other one from the newline before it (the engine skips ahead
# to line breaks).
_FENCE_BODY = (r"(?P<indent>[ \t]{0,3})(?P<mark>`{3,}|~{3,})[^\S\n]*(?P<lang>[^\s`]*)[^\n`]*(?P<eol>)[^\n]*+"
               r"(?:\n(?:[^\n]*+\n)*?(?P<close>[ \t]{0,3})(?P=mark)(?:(?<=`)`*+|(?<=~)~*+)[^\S\n]*+(?![^\s`]))?")
_FIRST_FENCE = lazy_pattern(_FENCE_BODY)
_FENCE = lazy_pattern(r"\n" + _FENCE_BODY)
_IDENT = lazy_pattern(r"[A-Za-z_][\w.\-:/]{0,127}")

# Keys that may name the tool / hold its arguments in a JSON call object.
NAME_KEYS = ("name", "tool", "tool_name", "function", "function_name", "action")
ARG_KEYS = ("arguments", "parameters", "args", "input", "tool_arguments", "tool_input", "action_input", "params")
_META_KEYS = frozenset(("id", "type", "call_id", "tool_call_id", "index"))
_NAME_SET = frozenset(NAME_KEYS)
_ARG_SET = frozenset(ARG_KEYS)
_CALL_TYPES = frozenset(("function", "tool_call", "tool_use", "function_call"))
_WRAPPERS = frozenset(("tool_call", "function_call", "tool_use"))


def skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in " \t\r\n":
        i += 1
    return i


def json_end(text: str, start: int, stop: int | None = None) -> int | None:
    """Index just past the bracket that closes text[start] ('{' or '['), or None if it never closes
    (before `stop`, when given: callers bound the scan so unclosed openers cost no more than their span)."""
    depth = 0
    for m in _TOKENS.finditer(text, start, len(text) if stop is None else stop):
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


def scan_brackets(text: str, start: int, stop: int | None = None) -> tuple[int | None, str | None]:
    """One pass over the value opened at text[start]: (end, None) where json_end finds its end; else
    (None, the brackets it still needs at the end of `text` (or `stop`), innermost first), with None
    for those when a bracket mismatches or the text ends inside a string (cut off, not a forgotten brace)."""
    stack: list[str] = []
    depth = 0
    ok = True
    for m in _TOKENS.finditer(text, start, len(text) if stop is None else stop):
        tok = m.group()
        c = tok[0]
        if c == '"':
            if len(tok) == 1 or not tok.endswith('"') or _odd_backslashes(tok):
                return None, None
            continue
        if c in "{[":
            depth += 1
            stack.append("}" if c == "{" else "]")
        else:
            depth -= 1
            if depth == 0:
                return m.end(), None
            ok = ok and stack.pop() == c
    return None, ("".join(reversed(stack)) if ok and stack else None)


def _odd_backslashes(tok: str) -> bool:
    """True when the closing quote of a matched string token is itself escaped (token truncated)."""
    k = len(tok) - 2
    count = 0
    while k > 0 and tok[k] == "\\":
        count += 1
        k -= 1
    return count % 2 == 1


# A failed decode costs O(position) in the stdlib (its error counts the lines before the failure),
# so from the thousandth opener of a megabyte each miss would cost a megabyte. A value starting
# within the first _DIRECT characters is decoded in place (a miss there counts at most that many
# lines' worth of characters besides how far the value got); one further in is decoded in a window,
# four times wider each time the decoder ran into its edge: the cost of a miss stays proportional
# to how far the value got, never to where it starts or what follows it. Windows re-decode what
# the last one held (about twice the value in all), so the usual value, a call body or arguments
# near the start of their text, is decoded once.
_FIRST_WINDOW = 256
_EDGE = 64  # a failure this close to the window's edge may just be the window ending
_DIRECT = 1024


def decode_at(text: str, start: int) -> tuple[Any, int] | None:
    """Strict JSON value starting at `start` (no leading whitespace), with its end; None if invalid."""
    if start <= _DIRECT:
        try:
            return SCAN_ONCE(text, start)
        except (StopIteration, ValueError, RecursionError):
            return None
    avail = len(text) - start
    size = _FIRST_WINDOW
    while size < avail:
        try:
            value, end = SCAN_ONCE(text[start : start + size], 0)
        except StopIteration as exc:  # no value where one was due, at exc.value
            if not exc.value or exc.value < size - _EDGE:
                return None  # failed well inside the window: not JSON, however long the text
            size *= 4
            continue
        except json.JSONDecodeError as exc:
            # A string still open at the window's edge reports where it began: that ran out too.
            if exc.pos < size - _EDGE and not exc.msg.startswith("Unterminated string"):
                return None
            size *= 4
            continue
        except (ValueError, RecursionError):
            return None
        if isinstance(value, (dict, list)) or end < size:
            return value, start + end  # a number touching the window's edge may be cut: widen
        size *= 4
    try:
        if start == 0:
            return SCAN_ONCE(text, 0)
        value, end = SCAN_ONCE(text[start:], 0)  # on a slice, a miss counts lines from `start` only
    except (StopIteration, ValueError, RecursionError):
        return None
    return value, start + end


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
        for k in obj:
            if k != "function" and k not in _META_KEYS:
                return None
        inner = call_from_obj(fn, need_args=False)
        if inner is None:
            return None
        name, args, _ = inner
        if isinstance(args, dict) and args.get("type") == "object" and "properties" in args:
            return None  # a tool definition's JSON schema, not arguments
        cid = obj.get("id")
        return name, args, cid if isinstance(cid, str) else None
    # One pass over the (few) keys: exactly one name key, at most one arguments key, else metadata.
    name_key = arg_key = None
    for k in obj:
        if k in _NAME_SET:
            if name_key is not None:
                return None
            name_key = k
        elif k in _ARG_SET:
            if arg_key is not None:
                return None
            arg_key = k
        elif k not in _META_KEYS:
            return None
    if name_key is None:
        return None
    name = obj[name_key]
    if not is_tool_name(name):
        return None
    if arg_key is not None and (name_key == "action") != (arg_key == "action_input"):
        return None  # LangChain pairs action with action_input only
    if arg_key is not None:
        args = obj[arg_key]
        if args is None:
            args = {}
        elif not isinstance(args, (dict, str)):
            return None
    elif need_args:
        return None
    else:
        args = {}
    if "type" in obj and not (isinstance(obj["type"], str) and obj["type"] in _CALL_TYPES):
        return None
    cid = obj.get("id")
    return name, args, cid if isinstance(cid, str) else None


def calls_from_value(value: Any, *, need_args: bool = True) -> list[tuple[str, Any, str | None]] | None:
    """Calls in a decoded JSON value: one call object, a non-empty list of them, or {"tool_calls": [...]}.
    None unless every element is call-shaped."""
    if isinstance(value, dict) and len(value) == 1:
        key = next(iter(value))
        if key == "tool_calls" or (key in _WRAPPERS and isinstance(value[key], dict)):
            value = value[key]  # {"tool_calls": [...]}, {"tool_call": {...}}
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


# Both start at the key's word, not at an optional quote before it: a literal start lets the regex
# engine skip ahead (five times faster over a megabyte), and the groups and ends used are the same.
_NAME_FIELD = lazy_pattern(r'(?:name|tool|tool_name|function)["\']?\s*:\s*["\']([A-Za-z_][\w.\-:/]{0,127})["\']')
_ARGS_FIELD = lazy_pattern(r'(?:arguments|parameters|args|input)["\']?\s*:\s*')


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


def top_objects(body: str) -> list[tuple[int, int]]:
    """Spans of the top-level {...} objects inside a [...] array text (the last may run to the end),
    so each call of a list that is not valid JSON as a whole can be judged on its own."""
    spans: list[tuple[int, int]] = []
    i = 0
    while True:
        i = body.find("{", i)
        if i < 0:
            return spans
        end = json_end(body, i)
        if end is None:
            spans.append((i, len(body)))
            return spans
        spans.append((i, end))
        i = end


def close_call(src: str) -> tuple[str, Any, str | None, str] | None:
    """(name, arguments, id, closers added) for the call object `src` that ends the text missing only
    its own closing brace(s): closing them gives strict JSON of exactly one call whose arguments are
    themselves complete. Never a call whose arguments were cut off (that one is truncated)."""
    end, closers = scan_brackets(src, 0)
    if end is not None or not closers or len(closers) > 2 or closers.strip("}"):
        return None
    try:
        value = json.loads(src.rstrip() + closers)
    except (ValueError, RecursionError):
        return None
    calls = calls_from_value(value) if isinstance(value, dict) else None
    if not calls or len(calls) != 1:
        return None
    # Open brackets form a chain from the root: more of them than wrapper levels (the call object,
    # plus "function" in the OpenAI item) means the arguments were cut off, not a brace forgotten.
    wrappers = 2 if isinstance(value.get("function"), dict) else 1
    name, args, cid = calls[0]
    if len(closers) > wrappers:
        return None
    if isinstance(args, str):
        try:
            if not isinstance(json.loads(args), dict):
                return None
        except ValueError:
            return None
    return name, args, cid, closers


def complete_json(text: str) -> bool:
    """True when `text` (stripped) is one balanced JSON object/array, even if otherwise malformed."""
    t = text.strip()
    if not t or t[0] not in "{[":
        return False
    end = json_end(t, 0)
    return end is not None


Fence = tuple[int, int, int, int, str, bool]


def fences(text: str) -> list[Fence]:
    """(fence start, fence end, body start, body end, language, closed) for each fence, in order.

    One match per fence (_FENCE): a megabyte of fences is ~20k of them, each paired by the
    engine instead of by a Python step per fence line. An unclosed fence runs to the end; nothing
    after it is a fence (its content is not read: truncated output)."""
    if "```" not in text and "~~~" not in text:
        return []
    return list(fences_in_order(text))


def fences_in_order(text: str) -> Iterator[Fence]:
    """fences(text), found as they are taken: each fence is paired from the text before its end, so
    a caller asking about the fences around one place stops there (a megabyte of fences read
    whole costs some 15 ms)."""
    n = len(text)
    first = _FIRST_FENCE.match(text)
    rest = _FENCE.finditer(text, 0 if first is None else first.end())
    for m in rest if first is None else itertools.chain((first,), rest):
        close = m.start("close")
        if close < 0:
            yield m.start("indent"), n, min(m.end("eol") + 1, n), n, m["lang"], False
            return
        yield m.start("indent"), m.end(), m.end("eol") + 1, close, m["lang"], True
