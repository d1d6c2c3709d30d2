"""One malformed call as the whole reply: the last reading of a reply no dialect took.

A model that answers with nothing but one JSON call object, broken in a way only a repair reads
(trailing commas, single quotes, Python literals, an unclosed fence), meant that call. This lives
beside the repair layer rather than in it because it reads a reply as a call object, which is the
dialects' call scanner's knowledge (`dialects._callscan`); the repair layer itself reads no dialect.
"""

from __future__ import annotations

from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.lazy import lazy_pattern
from agentcli.core.types import Tool
from agentcli.wire.dialects._callscan import NAME_KEYS, call_from_obj, json_end
from agentcli.wire.repair import MAX_REPAIR_CHARS, Fix, RepairBudget, invented_value, resolve_name

_WHOLE_FENCE = lazy_pattern(r"\A(?:`{3,}|~{3,})[ \t]*(?:json5?|jsonc|tool_call|tool_calls?)?[ \t]*\n")
_WHOLE_FENCE_END = lazy_pattern(r"\n?[ \t]*(?:`{3,}|~{3,})\Z")
_CALL_OBJECT_KEYS = frozenset(("name", "tool", "tool_name", "function", "function_name", "arguments", "parameters",
                               "args", "input", "tool_arguments", "tool_input", "params", "id", "type"))
_WHOLE_PREFIX = lazy_pattern(r"\A(?:functools|tool_calls?|tools?)?\s*\[\s*(?=\{)")


def whole_reply_call(text: str, tools: dict[str, Tool], budget: RepairBudget) -> tuple[str, Any, str | None, list[Fix], str | None] | None:
    """(name, arguments, id, fixes, error) when the whole reply is one JSON call object for an offered
    tool that only a repair reads: trailing commas, single quotes, unquoted keys, Python True/False/
    None, raw newlines in strings, an unclosed fence, `functools[` without its `]`, or no arguments
    key at all (a call with no arguments). A repair never invents a value: a call whose repair would
    have to is returned with the error, never run. None when the reply is not such a call."""
    src = text.strip()
    if not tools or not src or len(src) > MAX_REPAIR_CHARS:
        return None
    fixes: list[Fix] = []
    fence = _WHOLE_FENCE.match(src)
    if fence:
        body = src[fence.end():]
        end = _WHOLE_FENCE_END.search(body)
        src = body[:end.start()] if end else body
        if not end:
            fixes.append(("unclosed_fence", "the reply's ```json fence was never closed"))
    lead = _WHOLE_PREFIX.match(src)
    if lead:
        src = src[lead.end():].rstrip()
        if src.endswith("]"):
            src = src[:-1].rstrip()
        else:
            fixes.append(("close_brackets", "the list of calls was missing its closing bracket"))
    src = src.strip()
    if not src.startswith("{") or json_end(src, 0) != len(src):
        return None  # not one whole object: a reply cut off inside a call is truncated, not repaired
    try:
        value = jsonsafe.loads(src)
    except ValueError as exc:
        if not budget.take(src):
            return None
        import json_repair

        try:
            value = json_repair.loads(src)
        except Exception:  # noqa: BLE001 - the library is total in practice; stay total ourselves
            return None
        fixes.append(("json_repair", f"repaired the reply's malformed call object ({exc.args[0] if exc.args else exc})"))
    if not isinstance(value, dict):
        return None
    found = call_from_obj(value, need_args=False)
    if found is None:
        # A call object whose arguments the repair could not make an object of (`{"path"}`): the
        # call was meant, so it is reported malformed, never run and never silently text.
        named = [value[k] for k in NAME_KEYS if isinstance(value.get(k), str)]
        if len(named) == 1 and set(value) <= _CALL_OBJECT_KEYS and resolve_name(named[0], tools)[0] is not None:
            return named[0], None, None, fixes, "malformed tool call: its arguments are not a JSON object"
        return None
    name, args, cid = found
    if resolve_name(name, tools)[0] is None:
        return None
    where = invented_value(value, src) if fixes else None
    if where is not None:
        return name, None, cid, fixes, (f"malformed tool call: the value of {where} is missing, and a repair "
                                        "would have to invent it")
    return name, args, cid, fixes, None
