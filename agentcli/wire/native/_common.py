"""Small pieces every native adapter shares: result text, usage, choice and chunk helpers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.core.events import StreamEvent, StreamKind
from agentcli.core.types import Usage

if TYPE_CHECKING:
    from agentcli.core.types import Message, Tool, ToolResult
    from agentcli.wire.types import Candidate

CHOICES = ("auto", "none", "required")


def result_text(result: ToolResult) -> str:
    """What the model reads for one result; a failure without text shows its rendered error."""
    if result.content or result.ok:
        return result.content
    render = getattr(result.error, "render", None)
    return render() if callable(render) else str(result.error or "error")


def usage(input_tokens: Any, output_tokens: Any) -> Usage | None:
    """A Usage from provider counters, None when the body carried none."""
    if not isinstance(input_tokens, int) and not isinstance(output_tokens, int):
        return None
    return Usage(input_tokens if isinstance(input_tokens, int) else 0,
                 output_tokens if isinstance(output_tokens, int) else 0)


def dumps(value: Any) -> str:
    """Compact JSON for arguments sent back in history."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def args_raw(arguments: Any) -> str:
    """The raw text of native arguments (kept on the Candidate for reports)."""
    return arguments if isinstance(arguments, str) else dumps(arguments)


def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def effective_choice(choice: str, tools: list[Tool], wire: dict[str, str]) -> str:
    """auto | none | required | a tool's wire name; a named tool not offered falls back to auto
    (it may be hidden at the current tier)."""
    if choice in CHOICES:
        return choice
    for tool in tools:
        if tool.name == choice or wire.get(tool.name) == choice:
            return wire.get(tool.name, tool.name)
    return "auto"


def system_text(messages: list[Message]) -> str:
    from agentcli.core.types import Role

    return "\n\n".join(m.text for m in messages if m.role is Role.SYSTEM and m.text)


def has_tool_traffic(messages: list[Message]) -> bool:
    return any(m.tool_calls or m.tool_results for m in messages)


def text_event(text: str) -> StreamEvent:
    return StreamEvent(StreamKind.TEXT, text=text)


def thinking_event(text: str) -> StreamEvent:
    return StreamEvent(StreamKind.THINKING, text=text)


def start_event(index: int, call_id: str | None, name: str) -> StreamEvent:
    return StreamEvent(StreamKind.TOOL_START, index=index, call_id=call_id, name=name)


def args_event(index: int, call_id: str | None, name: str | None, arguments: dict[str, Any]) -> StreamEvent:
    return StreamEvent(StreamKind.TOOL_ARGS, index=index, call_id=call_id, name=name, arguments=arguments)


def merge_adjacent(items: list[dict[str, Any]], role_key: str, content_key: str) -> list[dict[str, Any]]:
    """Join consecutive entries of the same role (APIs that require alternation)."""
    out: list[dict[str, Any]] = []
    for item in items:
        if out and out[-1][role_key] == item[role_key]:
            out[-1] = {**out[-1], content_key: [*out[-1][content_key], *item[content_key]]}
        else:
            out.append(item)
    return out


def unique_ids(candidates: list[Candidate]) -> None:
    """Ids a reply repeats (c1, c2, c1) get a suffix, so each call keeps its own result and label;
    ids repeated across turns are wire_history's to map when history goes back."""
    seen: set[str] = set()
    for cand in candidates:
        if cand.id is None:
            continue
        if cand.id in seen:
            n = 2
            while f"{cand.id}_{n}" in seen:
                n += 1
            cand.id = f"{cand.id}_{n}"
        seen.add(cand.id)
