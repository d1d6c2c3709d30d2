"""Hermes / Qwen2.5 / Qwen3: <tool_call>{"name": .., "arguments": ..}</tool_call>.

Inside the <tool_call> wrapper the object is the call, so its name need not look like an identifier
(`get current temperature`, `获取天气`): the wrapper is the signal, and the name is checked against
the offered tools later like any other. The object may nest the call under "function".

Also the emulation style "hermes": tools listed as JSON inside <tools></tools>, results
returned in <tool_response> blocks, as the Hermes and Qwen chat templates do.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._callscan import decode_at
from agentcli.wire.dialects._tagged import TaggedJsonDialect
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult


_CALL_KEYS = frozenset(("name", "arguments", "id", "type"))


def _wrapped_call(body: str) -> tuple[str, dict[str, Any], str | None] | None:
    """The one call object filling a <tool_call> body whose name is any one-line text, or None."""
    src = body.strip()
    hit = decode_at(src, 0) if src.startswith("{") else None
    if hit is None or hit[1] != len(src):
        return None
    obj = hit[0]
    if isinstance(obj, dict) and isinstance(obj.get("function"), dict) and set(obj) <= {"function", "id", "type"}:
        obj = {**obj["function"], **({"id": obj["id"]} if "id" in obj else {})}
    if not isinstance(obj, dict) or not set(obj) <= _CALL_KEYS:
        return None
    name, args, cid = obj.get("name"), obj.get("arguments", {}), obj.get("id")
    if not isinstance(name, str) or not name.strip() or len(name) > 200 or any(ch in name for ch in "\n<>"):
        return None
    if not isinstance(args, dict):
        return None
    return name.strip(), args, cid if isinstance(cid, str) else None


def _call(name: str, args: dict[str, Any]) -> str:
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False) + "\n</tool_call>"


class HermesDialect(TaggedJsonDialect):
    emulation = True
    # A special token of the Qwen3 / Qwen3.5 and Hermes tokenizers, opened mid-thought: it ends a
    # reasoning left open; its inside is a call's arguments.
    section_openers = ("<tool_call>",)
    call_wrappers = (("<tool_call>", "</tool_call>"),)
    json_bodies = True  # the frame's JSON bodies, or one call object (_wrapped_call): JSON either way

    def __init__(self) -> None:
        super().__init__("hermes", "tool_call")

    def _parse_body(self, body: str, raw: str, closed: bool) -> list[Candidate] | None:
        found = super()._parse_body(body, raw, closed)
        if found is not None or not closed:
            return found
        call = _wrapped_call(body)
        if call is None:
            return None
        return [Candidate(call[0], call[1], raw, self.name, id=call[2])]

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        if compact:
            return _prompt.instructions(tools, True, _call)
        listing = "<tools>\n" + "\n".join(
            json.dumps(
                {"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}},
                ensure_ascii=False,
            )
            for t in tools
        ) + "\n</tools>"
        return _prompt.instructions(
            tools, False, _call, listing="Function signatures, inside <tools></tools>:\n" + listing,
            results_hint=" inside <tool_response></tool_response>",
        )

    def render_call(self, call: ToolCall) -> str:
        return _call(call.name, call.arguments)

    def render_results(self, results: list[ToolResult]) -> str:
        return "\n".join(
            "<tool_response>\n"
            + json.dumps({"name": r.tool_name, "content": _prompt.result_text(r)}, ensure_ascii=False)
            + "\n</tool_response>"
            for r in results
        )


HERMES = HermesDialect()
HERMES.empty_lists = ((HERMES.open, HERMES.close),)
