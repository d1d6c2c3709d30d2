"""Core types <-> JSON-ready dicts, for transcripts and `--json` output."""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from enum import Enum
from typing import Any

from agentcli.core.errors import ToolError
from agentcli.core.types import Message, ParsedResponse, Repair, Role, ToolCall, ToolResult, Usage


def call_to_dict(c: ToolCall) -> dict[str, Any]:
    d: dict[str, Any] = {"id": c.id, "name": c.name, "arguments": c.arguments, "dialect": c.dialect}
    if c.unknown:
        d["unknown"] = True
    if c.error:
        d["error"] = c.error
    return d


def call_from_dict(d: dict[str, Any]) -> ToolCall:
    return ToolCall(
        d["name"], dict(d.get("arguments") or {}), d.get("id") or "", None,
        d.get("dialect", ""), bool(d.get("unknown")), d.get("error"),
    )


def result_to_dict(r: ToolResult) -> dict[str, Any]:
    d: dict[str, Any] = {"call_id": r.call_id, "tool_name": r.tool_name, "ok": r.ok, "content": r.content}
    if isinstance(r.error, ToolError):
        d["error"] = r.error.to_dict()
    return d


def result_from_dict(d: dict[str, Any]) -> ToolResult:
    err = ToolError.from_dict(d["error"]) if d.get("error") else None
    return ToolResult(d["call_id"], d["tool_name"], bool(d["ok"]), d.get("content", ""), err)


def message_to_dict(m: Message) -> dict[str, Any]:
    d: dict[str, Any] = {"role": m.role.value}
    if m.text:
        d["text"] = m.text
    if m.thinking:
        d["thinking"] = m.thinking
    if m.tool_calls:
        d["tool_calls"] = [call_to_dict(c) for c in m.tool_calls]
    if m.tool_results:
        d["tool_results"] = [result_to_dict(r) for r in m.tool_results]
    if m.provider_data:
        d["provider_data"] = m.provider_data
    return d


def message_from_dict(d: dict[str, Any]) -> Message:
    return Message(
        Role(d["role"]),
        d.get("text", ""),
        d.get("thinking", ""),
        [call_from_dict(c) for c in d.get("tool_calls", ())],
        [result_from_dict(r) for r in d.get("tool_results", ())],
        dict(d.get("provider_data") or {}),
    )


def jsonable(obj: Any) -> Any:
    """Best-effort JSON form of an event or value (dataclasses, enums, core types)."""
    if isinstance(obj, Message):
        return message_to_dict(obj)
    if isinstance(obj, ToolCall):
        return call_to_dict(obj)
    if isinstance(obj, ToolResult):
        return result_to_dict(obj)
    if isinstance(obj, ToolError):
        return obj.to_dict()
    if isinstance(obj, ParsedResponse):
        return {
            "text": obj.text, "thinking": obj.thinking, "finish_reason": obj.finish_reason,
            "tool_calls": [call_to_dict(c) for c in obj.tool_calls],
            "repairs": [asdict(r) for r in obj.repairs],
        }
    if isinstance(obj, (Repair, Usage)):
        return asdict(obj)
    if isinstance(obj, Enum):
        return obj.value
    if is_dataclass(obj) and not isinstance(obj, type):
        return {f: jsonable(getattr(obj, f)) for f in obj.__dataclass_fields__}
    if isinstance(obj, dict):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return obj
