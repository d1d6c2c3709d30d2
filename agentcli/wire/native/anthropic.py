"""Anthropic Messages shape: `tool_use` / `tool_result` content blocks, top-level `system`.

Thinking blocks keep their `signature` (and redacted blocks their `data`) in
provider_data so they can be sent back verbatim: the API checks them when a tool-use
turn continues. Tool results open the next user message, and same-role messages are
merged because the API requires strict user/assistant alternation.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.core import jsonsafe
from agentcli.core.types import Role
from agentcli.wire import schema as schemas
from agentcli.wire.names import NameMap, safe_id
from agentcli.wire.native._base import NativeApi, NativeStream
from agentcli.wire.native._common import (
    args_event,
    args_raw,
    as_dict,
    as_list,
    as_str,
    effective_choice,
    has_tool_traffic,
    merge_adjacent,
    result_text,
    start_event,
    system_text,
    text_event,
    thinking_event,
    unique_ids,
    usage,
)
from agentcli.wire.native._history import wire_history
from agentcli.wire.native._partial import PartialArgs
from agentcli.wire.types import Candidate, NativeParse

if TYPE_CHECKING:
    from agentcli.core.events import StreamEvent
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import RequestSettings, WirePlan

DIALECT = "native_anthropic"
DEFAULT_MAX_TOKENS = 4096
KEY = "anthropic"  # provider_data key: {"thinking": [raw thinking / redacted_thinking blocks]}

_FINISH = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "pause_turn": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "model_context_window_exceeded": "length",
    "refusal": "content_filter",
}


def _assistant_blocks(m: Message, names: NameMap) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for b in as_list(as_dict(m.provider_data.get(KEY)).get("thinking")):
        if isinstance(b, dict) and b.get("type") in ("thinking", "redacted_thinking"):
            blocks.append(dict(b))
    if m.text.strip():
        blocks.append({"type": "text", "text": m.text})
    for c in m.tool_calls:
        blocks.append({"type": "tool_use", "id": safe_id(c.id), "name": names.to_wire(c.name), "input": c.arguments})
    return blocks


def render_messages(messages: list[Message], names: NameMap) -> list[dict[str, Any]]:
    """History as alternating user/assistant messages of content blocks (system excluded)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        match m.role:
            case Role.SYSTEM:
                continue
            case Role.USER:
                if m.text:
                    out.append({"role": "user", "content": [{"type": "text", "text": m.text}]})
            case Role.ASSISTANT:
                blocks = _assistant_blocks(m, names)
                if blocks:  # the API rejects empty assistant content
                    out.append({"role": "assistant", "content": blocks})
            case Role.TOOL:
                results = []
                for r in m.tool_results:
                    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": safe_id(r.call_id)}
                    text = result_text(r)
                    if text:
                        block["content"] = text
                    block["is_error"] = not r.ok
                    results.append(block)
                if results:
                    out.append({"role": "user", "content": results})
            case _:
                raise ValueError(f"unknown message role {m.role!r}")
    merged = merge_adjacent(out, "role", "content")
    for msg in merged:  # tool_result blocks must come first in a user message
        if msg["role"] == "user":
            msg["content"] = sorted(msg["content"], key=lambda b: b.get("type") != "tool_result")
    return merged


# Tools the Messages API defines itself (a spec's `native_form` -> the block sent). The name is
# fixed by the API; the version is the one current Claude models are trained on (Claude 4.x:
# text_editor_20250728, whose commands are view, create, str_replace and insert).
NATIVE_TOOL_TYPES: dict[str, dict[str, str]] = {
    "text_editor": {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
}


class AnthropicApi(NativeApi):
    """Messages API: `tools` with `input_schema`, `tool_choice` {auto|any|tool|none}."""

    name = "anthropic"
    forces_tool_choice = True

    def looks_like(self, body: Any) -> bool:
        content = body.get("content") if isinstance(body, dict) else None
        return isinstance(content, list) and any(isinstance(b, dict) and "type" in b for b in content)

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> list[dict[str, Any]]:
        names = NameMap.of(tools)
        out: list[dict[str, Any]] = []
        for t in tools:
            native = NATIVE_TOOL_TYPES.get(t.native_form or "")
            if native is not None and native["name"] == t.name:
                out.append(dict(native))  # schema-less: Claude knows this tool's input from training
            else:
                out.append({"name": names.to_wire(t.name), "description": t.description,
                            "input_schema": schemas.for_anthropic(t.parameters)})
        return out

    def render_tool_choice(self, choice: str, tools: list[Tool], *, parallel: bool = True) -> dict[str, Any] | None:
        """None means: send no tool_choice (auto, the default)."""
        wire = effective_choice(choice, tools, NameMap.of(tools).to_wire_map)
        out: dict[str, Any]
        if wire == "none":
            return {"type": "none"}
        if wire == "auto":
            out = {"type": "auto"}
        elif wire == "required":
            out = {"type": "any"}
        else:
            out = {"type": "tool", "name": wire}
        if not parallel:
            out["disable_parallel_tool_use"] = True
        elif out == {"type": "auto"}:
            return None
        return out

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        names = NameMap.of(tools)
        body: dict[str, Any] = {
            "model": settings.model,
            "max_tokens": settings.max_output_tokens or DEFAULT_MAX_TOKENS,
        }
        system = system_text(messages)
        if system:
            body["system"] = system
        body["messages"] = render_messages(wire_history(messages, plan), names)
        if tools and plan.native_tools:
            choice = effective_choice(plan.tool_choice, tools, names.to_wire_map)
            # tool_choice none = no tools, unless history holds tool blocks (the API then
            # requires the definitions), where {"type": "none"} keeps them unused.
            if choice != "none" or has_tool_traffic(messages):
                body["tools"] = self.render_tools(tools)
                tc = self.render_tool_choice(choice, tools, parallel=plan.parallel)
                if tc is not None:
                    body["tool_choice"] = tc
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if settings.stream:
            body["stream"] = True
        return body

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        body = as_dict(body)
        u = as_dict(body.get("usage"))
        out = NativeParse(usage=_usage(u))
        if body.get("type") == "error" or "content" not in body:
            out.finish_reason = "error"
            return out
        text: list[str] = []
        thinking: list[str] = []
        kept: list[dict[str, Any]] = []
        for block in as_list(body.get("content")):
            block = as_dict(block)
            kind = block.get("type")
            if kind == "text":
                text.append(as_str(block.get("text")))
            elif kind == "thinking":
                thinking.append(as_str(block.get("thinking")))
                kept.append({"type": "thinking", "thinking": as_str(block.get("thinking")),
                             "signature": as_str(block.get("signature"))})
            elif kind == "redacted_thinking":
                kept.append({"type": "redacted_thinking", "data": as_str(block.get("data"))})
            elif kind == "tool_use":
                name = as_str(block.get("name"))
                if not name:
                    continue
                args = block.get("input")
                if not isinstance(args, (dict, str)):
                    args = {} if args is None else json.dumps(args)
                out.candidates.append(Candidate(
                    name=name, arguments=args, raw=args_raw(args), dialect=DIALECT,
                    id=as_str(block.get("id")) or None,
                ))
        out.text = "".join(text)
        out.thinking = "".join(thinking)
        if kept:
            out.provider_data[KEY] = {"thinking": kept}
        out.finish_reason = _FINISH.get(as_str(body.get("stop_reason")), "stop")
        if out.candidates and out.finish_reason == "stop":
            out.finish_reason = "tool_calls"
        unique_ids(out.candidates)
        return out

    def new_stream(self) -> AnthropicStream:
        return AnthropicStream()


def _usage(u: dict[str, Any]) -> Any:
    inp = u.get("input_tokens")
    if isinstance(inp, int):
        inp += sum(v for k in ("cache_creation_input_tokens", "cache_read_input_tokens")
                   if isinstance(v := u.get(k), int))
    return usage(inp, u.get("output_tokens"))


class _Block:
    __slots__ = ("kind", "data", "args", "last", "pos")

    def __init__(self, kind: str, data: dict[str, Any]) -> None:
        self.kind = kind
        self.data = data
        self.args = PartialArgs()
        self.last: dict[str, Any] | None = None
        self.pos = -1


class AnthropicStream(NativeStream):
    """SSE events of the Messages API, already decoded to dicts (`type` names the event)."""

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._order: list[int] = []
        self._message: dict[str, Any] = {}
        self._usage: dict[str, Any] = {}
        self._stop: str | None = None
        self._tools = 0
        self._error = False
        self._done = False

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        chunk = as_dict(chunk)
        kind = chunk.get("type")
        events: list[StreamEvent] = []
        if kind == "message_start":
            self._message = as_dict(chunk.get("message"))
            self._usage.update(as_dict(self._message.get("usage")))
        elif kind == "content_block_start":
            index = chunk.get("index")
            cb = dict(as_dict(chunk.get("content_block")))
            if not isinstance(index, int):
                index = len(self._order)
            prev = self._blocks[self._order[-1]] if self._order else None
            if (cb.get("type") == "tool_use" and prev is not None and prev.kind == "tool_use"
                    and as_str(cb.get("id")) and as_str(cb.get("id")) == as_str(prev.data.get("id"))):
                # The LiteLLM proxy, relaying an OpenAI stream, opens a new block with the same id
                # for every argument fragment: one call, continued under a new index.
                self._blocks[index] = prev
                return events
            block = _Block(as_str(cb.get("type")), cb)
            self._blocks[index] = block
            self._order.append(index)
            if block.kind == "text" and as_str(cb.get("text")):
                events.append(text_event(cb["text"]))
            elif block.kind == "thinking" and as_str(cb.get("thinking")):
                events.append(thinking_event(cb["thinking"]))
            elif block.kind == "tool_use":
                block.pos = self._tools
                self._tools += 1
                inp = cb.get("input")
                if isinstance(inp, dict) and inp:  # complete input in the start event
                    block.args.append(json.dumps(inp))
                events.append(start_event(block.pos, as_str(cb.get("id")) or None, as_str(cb.get("name"))))
        elif kind == "content_block_delta":
            index = chunk.get("index")
            target = self._blocks.get(index) if isinstance(index, int) else None
            delta = as_dict(chunk.get("delta"))
            dkind = delta.get("type")
            if target is None:
                return events
            if dkind == "text_delta":
                t = as_str(delta.get("text"))
                target.data["text"] = as_str(target.data.get("text")) + t
                if t:
                    events.append(text_event(t))
            elif dkind == "thinking_delta":
                t = as_str(delta.get("thinking"))
                target.data["thinking"] = as_str(target.data.get("thinking")) + t
                if t:
                    events.append(thinking_event(t))
            elif dkind == "signature_delta":
                target.data["signature"] = as_str(target.data.get("signature")) + as_str(delta.get("signature"))
            elif dkind == "input_json_delta":
                part = as_str(delta.get("partial_json"))
                if part:
                    target.args.append(part)
                    snap = target.args.snapshot()
                    if snap is not None and snap != target.last:
                        target.last = dict(snap)
                        events.append(args_event(target.pos, as_str(target.data.get("id")) or None,
                                                 as_str(target.data.get("name")), target.last))
        elif kind == "message_delta":
            delta = as_dict(chunk.get("delta"))
            if delta.get("stop_reason"):
                self._stop = as_str(delta.get("stop_reason"))
            self._usage.update(as_dict(chunk.get("usage")))
        elif kind == "message_stop":
            self._done = True
        elif kind == "error":
            self._error = self._done = True
        return events

    def body(self) -> dict[str, Any]:
        """The non-streamed Message this stream is equivalent to."""
        if self._error:
            return {"type": "error", "error": {"type": "stream_error", "message": "stream error"}}
        content = []
        for index in self._order:
            block = self._blocks[index]
            data = dict(block.data)
            if block.kind == "tool_use":
                raw = block.args.buf
                if not raw.strip():
                    data["input"] = data.get("input") if isinstance(data.get("input"), dict) else {}
                else:
                    try:
                        data["input"] = jsonsafe.loads(raw)
                    except ValueError:
                        data["input"] = raw  # truncated: the repair layer gets the text
            content.append(data)
        return {
            "type": "message",
            "role": "assistant",
            "content": content,
            "stop_reason": self._stop,
            "usage": self._usage,
        }

    def finish(self) -> NativeParse:
        return API.parse_body(self.body())


API = AnthropicApi()
