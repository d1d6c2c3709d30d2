"""OpenAI Responses API output items (parse only): `function_call` items with a `call_id`
and a JSON-string `arguments`, `message` items of `output_text`, `reasoning` items.

Requests are sent through Chat Completions; this adapter reads Responses bodies and
streams (from servers or recordings that only speak it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.wire.native._base import NativeApi, NativeStream
from agentcli.wire.native._common import (
    args_event,
    args_raw,
    as_dict,
    as_list,
    as_str,
    start_event,
    text_event,
    thinking_event,
    unique_ids,
    usage,
)
from agentcli.wire.native._partial import PartialArgs
from agentcli.wire.types import Candidate, NativeParse

if TYPE_CHECKING:
    from agentcli.core.events import StreamEvent
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import RequestSettings, WirePlan

DIALECT = "native_openai_responses"
KEY = "openai_responses"  # provider_data: {"reasoning": [items carrying encrypted_content]}

_INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}


class OpenAIResponsesApi(NativeApi):
    name = "openai_responses"
    forces_tool_choice = True

    def looks_like(self, body: Any) -> bool:
        return isinstance(body, dict) and isinstance(body.get("output"), list)

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> Any:
        raise NotImplementedError("openai_responses is parse-only; send requests with the openai API")

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        raise NotImplementedError("openai_responses is parse-only; send requests with the openai API")

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        body = as_dict(body)
        if isinstance(body.get("response"), dict):  # a response.completed event
            body = body["response"]
        u = as_dict(body.get("usage"))
        out = NativeParse(usage=usage(u.get("input_tokens"), u.get("output_tokens")))
        if "output" not in body or body.get("status") == "failed":
            out.finish_reason = "error"
            return out
        text: list[str] = []
        thinking: list[str] = []
        kept: list[dict[str, Any]] = []
        for item in as_list(body.get("output")):
            item = as_dict(item)
            kind = item.get("type")
            if kind == "message":
                for c in as_list(item.get("content")):
                    c = as_dict(c)
                    if c.get("type") == "output_text":
                        text.append(as_str(c.get("text")))
                    elif c.get("type") == "refusal":
                        text.append(as_str(c.get("refusal")))
            elif kind == "reasoning":
                parts = [as_str(as_dict(s).get("text")) for s in as_list(item.get("summary"))]
                parts += [as_str(as_dict(c).get("text")) for c in as_list(item.get("content"))]
                thinking.append("\n".join(p for p in parts if p))
                if item.get("encrypted_content"):
                    kept.append(item)
            elif kind == "function_call":
                name = as_str(item.get("name"))
                if not name:
                    continue
                args = item.get("arguments")
                args = args if isinstance(args, (str, dict)) else ""
                out.candidates.append(Candidate(name=name, arguments=args, raw=args_raw(args), dialect=DIALECT,
                                                id=as_str(item.get("call_id")) or as_str(item.get("id")) or None))
        out.text = "".join(text)
        out.thinking = "\n".join(t for t in thinking if t)
        if kept:
            out.provider_data[KEY] = {"reasoning": kept}
        status = body.get("status")
        if status == "incomplete":
            reason = as_str(as_dict(body.get("incomplete_details")).get("reason"))
            out.finish_reason = _INCOMPLETE.get(reason, "length")
        else:
            out.finish_reason = "tool_calls" if out.candidates else "stop"
        unique_ids(out.candidates)
        return out

    def new_stream(self) -> ResponsesStream:
        return ResponsesStream()


class ResponsesStream(NativeStream):
    """Typed SSE events (`response.output_text.delta`, `response.function_call_arguments.delta`,
    `response.output_item.done`, `response.completed`, ...)."""

    def __init__(self) -> None:
        self._items: dict[int, dict[str, Any]] = {}
        self._args: dict[int, PartialArgs] = {}
        self._pos: dict[int, int] = {}
        self._last: dict[int, dict[str, Any]] = {}
        self._text: dict[int, list[str]] = {}
        self._final: dict[str, Any] | None = None
        self._done = False

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        chunk = as_dict(chunk)
        kind = as_str(chunk.get("type"))
        events: list[StreamEvent] = []
        index = chunk.get("output_index")
        if kind == "response.output_item.added" and isinstance(index, int):
            item = dict(as_dict(chunk.get("item")))
            self._items[index] = item
            if item.get("type") == "function_call":
                self._pos[index] = len(self._pos)
                self._args[index] = PartialArgs()
                events.append(start_event(self._pos[index], as_str(item.get("call_id")) or None, as_str(item.get("name"))))
        elif kind == "response.function_call_arguments.delta" and index in self._args:
            args = self._args[index]
            args.append(as_str(chunk.get("delta")))
            snap = args.snapshot()
            if snap is not None and snap != self._last.get(index):
                self._last[index] = dict(snap)
                item = self._items[index]
                events.append(args_event(self._pos[index], as_str(item.get("call_id")) or None,
                                         as_str(item.get("name")), self._last[index]))
        elif kind == "response.output_text.delta":
            delta = as_str(chunk.get("delta"))
            if delta and isinstance(index, int):
                self._text.setdefault(index, []).append(delta)
                events.append(text_event(delta))
        elif kind in ("response.reasoning_summary_text.delta", "response.reasoning_text.delta"):
            delta = as_str(chunk.get("delta"))
            if delta:
                events.append(thinking_event(delta))
        elif kind == "response.output_item.done" and isinstance(index, int):
            self._items[index] = dict(as_dict(chunk.get("item")))
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._final = as_dict(chunk.get("response"))
            self._done = True
        elif kind == "error":
            self._final = {"status": "failed"}
            self._done = True
        return events

    def body(self) -> dict[str, Any]:
        """The final Response: the one the server sent at the end, else rebuilt from items."""
        if self._final is not None and ("output" in self._final or self._final.get("status") == "failed"):
            return self._final
        output = []
        for index in sorted(self._items):
            item = dict(self._items[index])
            if item.get("type") == "function_call" and index in self._args and not item.get("arguments"):
                item["arguments"] = self._args[index].buf
            if item.get("type") == "message" and not item.get("content") and index in self._text:
                item["content"] = [{"type": "output_text", "text": "".join(self._text[index])}]
            output.append(item)
        body = dict(self._final or {})
        body["output"] = output
        return body

    def finish(self) -> NativeParse:
        return API.parse_body(self.body())


API = OpenAIResponsesApi()
