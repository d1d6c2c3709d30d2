"""Provider quirks as named, opt-in transforms (seed 002), plus request overrides.

A profile lists `transforms = ["deepseek_reasoning_content", ...]`. Each name maps to a
stage and a function over the JSON body: "request" runs on the body before it is sent,
"response" on a non-streamed body (and on each stream chunk when `streams` is set) before
the wire parser sees it. They work on OpenAI-shaped bodies (`choices[].message|delta`,
`messages[]`), which is where these quirks live; on other shapes they change nothing.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable, Iterator
from typing import Any

from agentcli.core import jsonsafe
from agentcli.core.errors import ConfigError
from agentcli.core.record import record

Body = dict[str, Any]


@record(frozen=True)
class Transform:
    stage: str  # request | response
    fn: Callable[[Body], Body]
    streams: bool  # also safe on a stream chunk (a delta)
    doc: str


def _messages_out(body: Body) -> Iterator[dict[str, Any]]:
    for msg in body.get("messages") or ():
        if isinstance(msg, dict):
            yield msg


def _messages_in(body: Body) -> Iterator[dict[str, Any]]:
    """Assistant messages of a response body or deltas of a chunk (OpenAI shape), or Ollama's message."""
    for choice in body.get("choices") or ():
        if isinstance(choice, dict):
            for key in ("message", "delta"):
                if isinstance(choice.get(key), dict):
                    yield choice[key]
    if isinstance(body.get("message"), dict):
        yield body["message"]


def _calls(msg: dict[str, Any]) -> list[dict[str, Any]]:
    calls = msg.get("tool_calls")
    return [c for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []


def function_call_to_tool_calls(body: Body) -> Body:
    """Legacy `function_call` (one call, no id) -> `tool_calls` with a minted id."""
    for choice in body.get("choices") or ():
        if not isinstance(choice, dict):
            continue
        for key in ("message", "delta"):
            msg = choice.get(key)
            if not isinstance(msg, dict) or not isinstance(msg.get("function_call"), dict):
                continue
            fc = msg.pop("function_call")
            call: dict[str, Any] = {"type": "function", "function": dict(fc)}
            if key == "delta":
                call["index"] = 0
                if fc.get("name"):
                    call["id"] = "call_" + secrets.token_hex(8)
            else:
                call["id"] = "call_" + secrets.token_hex(8)
            msg.setdefault("tool_calls", []).append(call)
        if choice.get("finish_reason") == "function_call":
            choice["finish_reason"] = "tool_calls"
    return body


def tool_calls_object_to_array(body: Body) -> Body:
    """`tool_calls: {...}` (one call as an object, or an index-keyed map) -> a list."""
    for msg in _messages_in(body):
        calls = msg.get("tool_calls")
        if isinstance(calls, dict):
            looks_like_call = "function" in calls or "name" in calls
            msg["tool_calls"] = [calls] if looks_like_call else [v for v in calls.values() if isinstance(v, dict)]
    return body


def arguments_object_to_string(body: Body) -> Body:
    """Response calls whose `arguments` arrive as an object -> the JSON string OpenAI promises."""
    for msg in _messages_in(body):
        for call in _calls(msg):
            fn = call.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), (dict, list)):
                fn["arguments"] = json.dumps(fn["arguments"], ensure_ascii=False)
    return body


def arguments_string_to_object(body: Body) -> Body:
    """Request history calls with string `arguments` -> objects, for servers that insist on objects."""
    for msg in _messages_out(body):
        for call in _calls(msg):
            fn = call.get("function")
            if isinstance(fn, dict) and isinstance(fn.get("arguments"), str):
                try:
                    value = jsonsafe.loads(fn["arguments"] or "{}")
                except ValueError:
                    continue  # leave it: the server will say what it dislikes
                if isinstance(value, dict):
                    fn["arguments"] = value
    return body


def blank_arguments_to_empty_object(body: Body) -> Body:
    """Calls with "" / null / whitespace arguments -> "{}" (a no-argument call some servers write blank)."""
    for msg in _messages_in(body):
        for call in _calls(msg):
            fn = call.get("function")
            if isinstance(fn, dict):
                args = fn.get("arguments")
                if args is None or (isinstance(args, str) and not args.strip()):
                    fn["arguments"] = "{}"
    return body


def null_content_when_blank(body: Body) -> Body:
    """Assistant tool-call messages with blank content -> `content: null` (strict servers reject "")."""
    for msg in _messages_out(body):
        if msg.get("role") == "assistant" and _calls(msg):
            content = msg.get("content")
            if content is None or (isinstance(content, str) and not content.strip()):
                msg["content"] = None
    return body


def deepseek_reasoning_content(body: Body) -> Body:
    """DeepSeek reasoner routes reject tool-call history without `reasoning_content`: add an empty one."""
    for msg in _messages_out(body):
        if msg.get("role") == "assistant" and _calls(msg) and "reasoning_content" not in msg:
            msg["reasoning_content"] = ""
    return body


_OPEN, _CLOSE = "<tool_call>", "</tool_call>"


def content_tag_fallback(body: Body) -> Body:
    """`<tool_call>{json}</tool_call>` in content with no structured calls -> `tool_calls`."""
    for choice in body.get("choices") or ():
        msg = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(msg, dict) or _calls(msg) or not isinstance(msg.get("content"), str):
            continue
        text, calls, kept, pos = msg["content"], [], [], 0
        while (start := text.find(_OPEN, pos)) != -1:
            end = text.find(_CLOSE, start + len(_OPEN))
            if end == -1:
                break
            try:
                obj = jsonsafe.loads(text[start + len(_OPEN) : end])
            except ValueError:
                obj = None
            if isinstance(obj, dict) and isinstance(obj.get("name"), str):
                args = obj.get("arguments", obj.get("parameters", {}))
                calls.append({
                    "id": "call_" + secrets.token_hex(8),
                    "type": "function",
                    "function": {"name": obj["name"], "arguments": args if isinstance(args, str) else json.dumps(args)},
                })
                kept.append(text[pos:start])
            else:
                kept.append(text[pos : end + len(_CLOSE)])
            pos = end + len(_CLOSE)
        if calls:
            kept.append(text[pos:])
            msg["content"] = "".join(kept).strip() or None
            msg["tool_calls"] = calls
            if choice.get("finish_reason") in (None, "stop"):
                choice["finish_reason"] = "tool_calls"
    return body


TRANSFORMS: dict[str, Transform] = {
    "function_call_to_tool_calls": Transform("response", function_call_to_tool_calls, True, function_call_to_tool_calls.__doc__ or ""),
    "tool_calls_object_to_array": Transform("response", tool_calls_object_to_array, True, tool_calls_object_to_array.__doc__ or ""),
    "arguments_object_to_string": Transform("response", arguments_object_to_string, True, arguments_object_to_string.__doc__ or ""),
    # a stream's first argument fragment is legitimately "": only whole bodies are fixed
    "blank_arguments_to_empty_object": Transform("response", blank_arguments_to_empty_object, False, blank_arguments_to_empty_object.__doc__ or ""),
    "content_tag_fallback": Transform("response", content_tag_fallback, False, content_tag_fallback.__doc__ or ""),
    "arguments_string_to_object": Transform("request", arguments_string_to_object, False, arguments_string_to_object.__doc__ or ""),
    "null_content_when_blank": Transform("request", null_content_when_blank, False, null_content_when_blank.__doc__ or ""),
    "deepseek_reasoning_content": Transform("request", deepseek_reasoning_content, False, deepseek_reasoning_content.__doc__ or ""),
}

# Keys a profile's [request] table may not set: the wire layer owns them.
RESERVED_KEYS = frozenset({"model", "messages", "tools", "contents", "system", "input", "stream"})


@record(frozen=True)
class Pipeline:
    """The transforms one profile asked for, in its order, split by stage."""

    request: tuple[Transform, ...] = ()
    response: tuple[Transform, ...] = ()

    def on_request(self, body: Body) -> Body:
        for t in self.request:
            body = t.fn(body)
        return body

    def on_response(self, body: Body) -> Body:
        for t in self.response:
            body = t.fn(body)
        return body

    def on_chunk(self, chunk: Body) -> Body:
        for t in self.response:
            if t.streams:
                chunk = t.fn(chunk)
        return chunk


def pipeline(names: list[str] | tuple[str, ...]) -> Pipeline:
    """Resolve transform names; an unknown name is a profile error listing the known ones."""
    unknown = [n for n in names if n not in TRANSFORMS]
    if unknown:
        raise ConfigError(
            f"unknown transform {unknown[0]!r}",
            key="transforms",
            hint="known transforms: " + ", ".join(sorted(TRANSFORMS)),
        )
    chosen = [TRANSFORMS[n] for n in names]
    return Pipeline(
        tuple(t for t in chosen if t.stage == "request"),
        tuple(t for t in chosen if t.stage == "response"),
    )


def check_overrides(overrides: dict[str, Any]) -> None:
    """Refuse [request] keys the wire layer owns, as a profile error naming the key."""
    bad = sorted(k for k in overrides if k in RESERVED_KEYS)
    if bad:
        raise ConfigError(
            f"[request] may not set {', '.join(repr(k) for k in bad)}",
            key=f"request.{bad[0]}",
            hint="model, messages and tools come from the profile and the session; remove these keys",
        )


def apply_overrides(body: Body, overrides: dict[str, Any]) -> Body:
    """Merge a profile's [request] table into the body (nested tables merge); reserved keys are refused."""
    check_overrides(overrides)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(body.get(key), dict):
            body[key] = {**body[key], **value}
        else:
            body[key] = value
    return body
