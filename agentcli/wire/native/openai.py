"""OpenAI Chat Completions shape (also OpenRouter, vLLM, SGLang, LM Studio, llama.cpp, Groq...).

Calls arrive in `message.tool_calls` with arguments as a JSON *string* (kept as a string
so the repair layer sees exactly what the model wrote), or in the legacy `function_call`.
Reasoning servers put thinking in `reasoning_content` (DeepSeek, vLLM) or `reasoning`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agentcli.core.lazy import lazy_pattern
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
    dumps,
    effective_choice,
    result_text,
    start_event,
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

DIALECT = "native_openai"
DESCRIPTION_LIMIT = 1024  # OpenAI rejects longer function descriptions

_FINISH = {
    "stop": "stop",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "length": "length",
    "content_filter": "content_filter",
    "eos": "stop",
}


def function_def(tool: Tool, wire: str, *, strict: bool, limit: int | None = DESCRIPTION_LIMIT) -> dict[str, Any]:
    """One `{"type": "function", ...}` entry; strict only when the schema can be made strict."""
    description = tool.description if limit is None else _clip(tool.description, limit)
    fn: dict[str, Any] = {"name": wire, "description": description}
    strict_schema = schemas.to_strict(tool.parameters) if strict else None
    if strict_schema is not None:
        fn["parameters"] = strict_schema
        fn["strict"] = True
    else:
        fn["parameters"] = schemas.object_root(tool.parameters)
    return {"type": "function", "function": fn}


def _clip(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut) + "…"


def render_messages(messages: list[Message], names: NameMap) -> list[dict[str, Any]]:
    """History in Chat Completions form; also used by the Ollama-compatible OpenAI endpoints."""
    out: list[dict[str, Any]] = []
    for m in messages:
        match m.role:
            case Role.SYSTEM | Role.USER:
                out.append({"role": m.role.value, "content": m.text})
            case Role.ASSISTANT:
                # Always a string: llama-cpp-python's request model rejects null with HTTP 500, and
                # through LiteLLM the null key is dropped and the chat template fails instead.
                # Servers that want null get it from the `null_content_when_blank` transform.
                msg: dict[str, Any] = {"role": "assistant", "content": m.text or ""}
                if m.tool_calls:
                    msg["tool_calls"] = [
                        {
                            "id": safe_id(c.id),
                            "type": "function",
                            "function": {"name": names.to_wire(c.name), "arguments": dumps(c.arguments)},
                        }
                        for c in m.tool_calls
                    ]
                out.append(msg)
            case Role.TOOL:
                for r in m.tool_results:
                    out.append({"role": "tool", "tool_call_id": safe_id(r.call_id), "content": result_text(r)})
            case _:
                raise ValueError(f"unknown message role {m.role!r}")
    return out


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    # some servers send content as a list of parts
    return "".join(as_str(as_dict(p).get("text")) for p in as_list(content))


class OpenAIApi(NativeApi):
    """Chat Completions: `tools` + `tool_choice`, `role: tool` results."""

    name = "openai"
    forces_tool_choice = True
    strict_schemas = True

    def looks_like(self, body: Any) -> bool:
        return isinstance(body, dict) and "choices" in body

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> list[dict[str, Any]]:
        names = NameMap.of(tools)
        return [function_def(t, names.to_wire(t.name), strict=strict) for t in tools]

    def render_tool_choice(self, choice: str, tools: list[Tool]) -> Any:
        wire = effective_choice(choice, tools, NameMap.of(tools).to_wire_map)
        if wire in ("auto", "none", "required"):
            return wire
        return {"type": "function", "function": {"name": wire}}

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        names = NameMap.of(tools)
        body: dict[str, Any] = {"model": settings.model, "messages": render_messages(wire_history(messages, plan), names)}
        if tools and plan.native_tools:
            body["tools"] = self.render_tools(tools, strict=plan.strict)
            # Sent even when "auto": llama-cpp-python's chatml-function-calling renders no tools
            # at all when tool_choice is missing, and the model then never calls one.
            body["tool_choice"] = self.render_tool_choice(plan.tool_choice, tools)
            if not plan.parallel:
                body["parallel_tool_calls"] = False
        if settings.temperature is not None:
            body["temperature"] = settings.temperature
        if settings.max_output_tokens is not None:
            body["max_tokens"] = settings.max_output_tokens
        if settings.stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        return body

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        body = as_dict(body)
        choices = as_list(body.get("choices"))
        u = as_dict(body.get("usage"))
        out = NativeParse(usage=usage(u.get("prompt_tokens"), u.get("completion_tokens")))
        if not choices:
            out.finish_reason = "error"
            return out
        choice = as_dict(choices[0])
        msg = as_dict(choice.get("message"))
        out.text = _content_text(msg.get("content")) or as_str(msg.get("refusal"))
        out.thinking = as_str(msg.get("reasoning_content")) or as_str(msg.get("reasoning"))
        for tc in as_list(msg.get("tool_calls")):
            tc = as_dict(tc)
            fn = as_dict(tc.get("function"))
            cand = _candidate(fn, tc.get("id"))
            if cand is not None:
                out.candidates.append(cand)
        legacy = as_dict(msg.get("function_call"))
        if legacy and not out.candidates:
            cand = _candidate(legacy, None)
            if cand is not None:
                out.candidates.append(cand)
        if not out.candidates:
            forced = _forced_call(out.text)
            if forced is not None:
                out.text, out.candidates = "", [forced]
        out.finish_reason = _FINISH.get(as_str(choice.get("finish_reason")), "stop")
        if out.candidates and out.finish_reason == "stop":
            out.finish_reason = "tool_calls"
        unique_ids(out.candidates)
        return out

    def new_stream(self) -> OpenAIStream:
        return OpenAIStream()


# llama-cpp-python's chatml-function-calling: when its model picks "message:", the reply is decoded
# under a grammar that allows only `functions.NAME:` or the end, so a call's head lands in `content`
# with no arguments. It is the start of a call, not an answer: a malformed call the model is asked
# to write again (arguments after it, if a server ever sends them, make it a whole call).
_FORCED_CALL = lazy_pattern(r"\s*functions\.([A-Za-z0-9_.:-]+?):\s*(\{.*\})?\s*", re.DOTALL)


def _forced_call(text: str) -> Candidate | None:
    m = _FORCED_CALL.fullmatch(text) if text.lstrip().startswith("functions.") else None
    if m is None:
        return None
    name, args = m.group(1), m.group(2)
    error = None if args else f"the reply holds only the head of a call ({text.strip()!r}), without its arguments"
    return Candidate(name=name, arguments=args, raw=text, dialect=DIALECT, error=error)


def _candidate(fn: dict[str, Any], call_id: Any) -> Candidate | None:
    name = as_str(fn.get("name"))
    if not name:
        return None
    args = fn.get("arguments")
    if not isinstance(args, (str, dict)):
        args = None if args is None else dumps(args)
    return Candidate(
        name=name,
        arguments=args,
        raw=args_raw(args if args is not None else ""),
        dialect=DIALECT,
        id=call_id if isinstance(call_id, str) and call_id else None,
    )


class _Call:
    __slots__ = ("id", "name", "args", "started", "last")

    def __init__(self, call_id: str | None) -> None:
        self.id = call_id
        self.name = ""
        self.args = PartialArgs()
        self.started = False
        self.last: dict[str, Any] | None = None


class OpenAIStream(NativeStream):
    """Chunks of `chat.completion.chunk`; tool-call deltas are keyed by `index`."""

    def __init__(self) -> None:
        self._text: list[str] = []
        self._thinking: list[str] = []
        self._refusal: list[str] = []  # shown as the text when there is no content, as in a body
        self._calls: list[_Call] = []
        self._by_index: dict[int, _Call] = {}
        self._finish: str | None = None
        self._usage: dict[str, Any] | None = None
        self._legacy = False
        self._done = False

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        chunk = as_dict(chunk)
        events: list[StreamEvent] = []
        if isinstance(chunk.get("usage"), dict):
            self._usage = chunk["usage"]
        if "error" in chunk and not chunk.get("choices"):
            self._finish, self._done = "error", True
            return events
        # With n > 1 each chunk carries one choice's delta; only the first choice is the answer,
        # as parse_body reads choices[0]. A choice without an index is the only one.
        firsts = [as_dict(c) for c in as_list(chunk.get("choices")) if as_dict(c).get("index", 0) in (0, None)]
        for choice in firsts[:1]:
            delta = as_dict(choice.get("delta") or choice.get("message"))
            content = _content_text(delta.get("content"))
            if content:
                self._text.append(content)
                events.append(text_event(content))
            refusal = as_str(delta.get("refusal"))
            if refusal:
                self._refusal.append(refusal)
                events.append(text_event(refusal))
            reasoning = as_str(delta.get("reasoning_content")) or as_str(delta.get("reasoning"))
            if reasoning:
                self._thinking.append(reasoning)
                events.append(thinking_event(reasoning))
            tool_calls = as_list(delta.get("tool_calls"))
            for tc in tool_calls:
                events.extend(self._tool_delta(as_dict(tc)))
            # llama-cpp-python repeats every fragment in the legacy `function_call` next to
            # `tool_calls`; the legacy field counts only when it comes alone.
            if isinstance(delta.get("function_call"), dict) and not tool_calls:
                self._legacy = True
                events.extend(self._tool_delta({"index": 0, "function": delta["function_call"]}))
            if choice.get("finish_reason"):
                self._finish = as_str(choice.get("finish_reason"))
                self._done = True
        return events

    def _tool_delta(self, tc: dict[str, Any]) -> list[StreamEvent]:
        index = tc.get("index")
        tc_id = tc.get("id") if isinstance(tc.get("id"), str) and tc.get("id") else None
        call: _Call | None
        if isinstance(index, int):
            call = self._by_index.get(index)
            if call is None:
                call = self._by_index[index] = _Call(tc_id)
                self._calls.append(call)
        else:  # servers that omit index: a new id starts a new call
            call = self._calls[-1] if self._calls else None
            if call is None or (tc_id and call.id and tc_id != call.id):
                call = _Call(tc_id)
                self._calls.append(call)
        if tc_id and not call.id:
            call.id = tc_id
        fn = as_dict(tc.get("function"))
        name = as_str(fn.get("name"))
        if name and name != call.name:
            call.name = name if not call.name or name.startswith(call.name) else call.name + name
        args = fn.get("arguments")
        if isinstance(args, dict):
            args = dumps(args)
        if isinstance(args, str) and args:
            call.args.append(args)
        events: list[StreamEvent] = []
        pos = self._calls.index(call)
        if call.name and not call.started:
            call.started = True
            events.append(start_event(pos, call.id, call.name))
        if call.started and call.args.size:
            snap = call.args.snapshot()
            if snap is not None and snap != call.last:
                call.last = dict(snap)
                events.append(args_event(pos, call.id, call.name, call.last))
        return events

    def body(self) -> dict[str, Any]:
        """The non-streamed body this stream is equivalent to."""
        msg: dict[str, Any] = {"role": "assistant", "content": "".join(self._text) or None}
        if self._refusal:
            msg["refusal"] = "".join(self._refusal)
        if self._thinking:
            msg["reasoning_content"] = "".join(self._thinking)
        calls = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.args.buf}}
            for c in self._calls
        ]
        if self._legacy and len(calls) == 1:
            msg["function_call"] = calls[0]["function"]
        elif calls:
            msg["tool_calls"] = calls
        body: dict[str, Any] = {"choices": [{"index": 0, "message": msg, "finish_reason": self._finish}]}
        if self._usage is not None:
            body["usage"] = self._usage
        if self._finish == "error":
            body = {"error": {"message": "stream error"}}
        return body

    def finish(self) -> NativeParse:
        return API.parse_body(self.body())


API = OpenAIApi()
