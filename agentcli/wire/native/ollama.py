"""Ollama /api/chat shape: OpenAI-like tools, but arguments are JSON *objects*, results are
`role: tool` messages with `tool_name`, thinking arrives in `message.thinking`, and a
stream is NDJSON where each tool call comes whole in one chunk.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from agentcli.core.types import Role
from agentcli.wire.names import NameMap
from agentcli.wire.native._base import NativeApi, NativeStream
from agentcli.wire.native._common import (
    args_event,
    args_raw,
    as_dict,
    as_list,
    as_str,
    effective_choice,
    result_text,
    start_event,
    text_event,
    thinking_event,
    unique_ids,
    usage,
)
from agentcli.wire.native._history import wire_history
from agentcli.wire.native.openai import function_def
from agentcli.wire.types import Candidate, NativeParse

if TYPE_CHECKING:
    from agentcli.core.events import StreamEvent
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import RequestSettings, WirePlan

DIALECT = "native_ollama"
# The tool list is pasted into the prompt by the model's chat template: long descriptions
# eat a small local model's context, so they are clipped.
DESCRIPTION_LIMIT = 500

_FINISH = {"stop": "stop", "length": "length", "load": "stop", "unload": "stop"}


def render_messages(messages: list[Message], names: NameMap) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        match m.role:
            case Role.SYSTEM | Role.USER:
                out.append({"role": m.role.value, "content": m.text})
            case Role.ASSISTANT:
                msg: dict[str, Any] = {"role": "assistant", "content": m.text}
                if m.tool_calls:
                    msg["tool_calls"] = [
                        {"function": {"name": names.to_wire(c.name), "arguments": c.arguments}}
                        for c in m.tool_calls
                    ]
                out.append(msg)
            case Role.TOOL:
                for r in m.tool_results:
                    out.append({"role": "tool", "content": result_text(r), "tool_name": names.to_wire(r.tool_name)})
            case _:
                raise ValueError(f"unknown message role {m.role!r}")
    return out


class OllamaApi(NativeApi):
    """/api/chat: no tool_choice (none = send no tools), options for sampling."""

    name = "ollama"

    def looks_like(self, body: Any) -> bool:
        return isinstance(body, dict) and isinstance(body.get("message"), dict) and "role" in body["message"]

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> list[dict[str, Any]]:
        names = NameMap.of(tools)
        return [function_def(t, names.to_wire(t.name), strict=False, limit=DESCRIPTION_LIMIT) for t in tools]

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        names = NameMap.of(tools)
        # Ollama streams unless told otherwise, so `stream` is always explicit.
        body: dict[str, Any] = {"model": settings.model, "messages": render_messages(wire_history(messages, plan), names),
                                "stream": bool(settings.stream)}
        choice = effective_choice(plan.tool_choice, tools, names.to_wire_map)
        if tools and plan.native_tools and choice != "none":
            body["tools"] = self.render_tools(tools)
        options: dict[str, Any] = {}
        if settings.temperature is not None:
            options["temperature"] = settings.temperature
        if settings.max_output_tokens is not None:
            options["num_predict"] = settings.max_output_tokens
        if options:
            body["options"] = options
        return body

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        body = as_dict(body)
        out = NativeParse(usage=usage(body.get("prompt_eval_count"), body.get("eval_count")))
        if "message" not in body:
            out.finish_reason = "error"
            return out
        msg = as_dict(body.get("message"))
        out.text = as_str(msg.get("content"))
        out.thinking = as_str(msg.get("thinking"))
        for tc in as_list(msg.get("tool_calls")):
            tc = as_dict(tc)
            fn = as_dict(tc.get("function"))
            name = as_str(fn.get("name"))
            if not name:
                continue
            args = fn.get("arguments")
            if not isinstance(args, (dict, str)):
                args = {} if args is None else json.dumps(args)
            out.candidates.append(Candidate(name=name, arguments=args, raw=args_raw(args), dialect=DIALECT,
                                            id=as_str(tc.get("id")) or None))
        out.finish_reason = _FINISH.get(as_str(body.get("done_reason")), "stop")
        if out.candidates and out.finish_reason == "stop":
            out.finish_reason = "tool_calls"
        unique_ids(out.candidates)
        return out

    def new_stream(self) -> OllamaStream:
        return OllamaStream()


class OllamaStream(NativeStream):
    """NDJSON chunks: content/thinking deltas, whole tool calls, a final `done: true` line."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._calls: list[dict[str, Any]] = []
        self._final: dict[str, Any] = {}
        self._error = False
        self._done = False

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        chunk = as_dict(chunk)
        events: list[StreamEvent] = []
        if "error" in chunk:
            self._error = self._done = True
            return events
        msg = as_dict(chunk.get("message"))
        content = as_str(msg.get("content"))
        if content:
            self._text.append(content)
            events.append(text_event(content))
        thinking = as_str(msg.get("thinking"))
        if thinking:
            self._thinking.append(thinking)
            events.append(thinking_event(thinking))
        for tc in as_list(msg.get("tool_calls")):
            tc = as_dict(tc)
            self._calls.append(tc)
            fn = as_dict(tc.get("function"))
            name = as_str(fn.get("name"))
            if name:
                pos = sum(1 for c in self._calls[:-1] if as_str(as_dict(c.get("function")).get("name")))
                call_id = as_str(tc.get("id")) or None
                events.append(start_event(pos, call_id, name))
                if isinstance(fn.get("arguments"), dict):
                    events.append(args_event(pos, call_id, name, dict(fn["arguments"])))
        if chunk.get("done") is True:
            self._final = chunk
            self._done = True
        return events

    def body(self) -> dict[str, Any]:
        """The non-streamed /api/chat response this stream is equivalent to."""
        if self._error:
            return {"error": "stream error"}
        msg: dict[str, Any] = {"role": "assistant", "content": "".join(self._text)}
        if self._thinking:
            msg["thinking"] = "".join(self._thinking)
        if self._calls:
            msg["tool_calls"] = self._calls
        body = {k: v for k, v in self._final.items() if k != "message"}
        body["message"] = msg
        body["done"] = self._done
        return body

    def finish(self) -> NativeParse:
        return API.parse_body(self.body())


API = OllamaApi()
