"""Gemini generateContent shape: `functionDeclarations`, `functionCall` / `functionResponse` parts.

Thinking models attach a `thoughtSignature` to parts; Gemini 3 rejects a replayed
function call without one. Signatures are kept in provider_data and sent back on the
same parts; calls from other providers get Google's documented placeholder signature.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agentcli.core.types import Role
from agentcli.wire import schema as schemas
from agentcli.wire.names import NameMap
from agentcli.wire.native._base import NativeApi, NativeStream
from agentcli.wire.native._common import (
    args_event,
    args_raw,
    as_dict,
    as_list,
    as_str,
    effective_choice,
    merge_adjacent,
    result_text,
    start_event,
    system_text,
    text_event,
    thinking_event,
    unique_ids,
    usage,
)
from agentcli.wire.types import Candidate, NativeParse

if TYPE_CHECKING:
    from agentcli.core.events import StreamEvent
    from agentcli.core.types import Message, Tool
    from agentcli.wire.types import RequestSettings, WirePlan

DIALECT = "native_gemini"
KEY = "gemini"  # provider_data: {"call_signatures": [sig|None per functionCall], "text_signature": sig}
# Google's documented value for replaying a call that has no signature of its own.
PLACEHOLDER_SIGNATURE = "skip_thought_signature_validator"

_FINISH = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    "SAFETY": "content_filter",
    "RECITATION": "content_filter",
    "BLOCKLIST": "content_filter",
    "PROHIBITED_CONTENT": "content_filter",
    "SPII": "content_filter",
    "IMAGE_SAFETY": "content_filter",
    "LANGUAGE": "content_filter",
    "MALFORMED_FUNCTION_CALL": "error",
    "UNEXPECTED_TOOL_CALL": "error",
    "OTHER": "stop",
}


def _model_parts(m: Message, names: NameMap) -> list[dict[str, Any]]:
    data = as_dict(m.provider_data.get(KEY))
    signatures = as_list(data.get("call_signatures"))
    parts: list[dict[str, Any]] = []
    if m.text:
        part: dict[str, Any] = {"text": m.text}
        if isinstance(data.get("text_signature"), str):
            part["thoughtSignature"] = data["text_signature"]
        parts.append(part)
    native_index = 0
    calls: list[dict[str, Any]] = []
    for c in m.tool_calls:
        part = {"functionCall": {"name": names.to_wire(c.name), "args": c.arguments}}
        if c.dialect == DIALECT:
            sig = signatures[native_index] if native_index < len(signatures) else None
            native_index += 1
            if isinstance(sig, str) and sig:
                part["thoughtSignature"] = sig
        calls.append(part)
    if calls and not any("thoughtSignature" in p for p in calls):
        calls[0]["thoughtSignature"] = PLACEHOLDER_SIGNATURE
    return parts + calls


def render_contents(messages: list[Message], names: NameMap) -> list[dict[str, Any]]:
    """History as `contents` (roles user/model); system goes to systemInstruction."""
    out: list[dict[str, Any]] = []
    for m in messages:
        match m.role:
            case Role.SYSTEM:
                continue
            case Role.USER:
                if m.text:
                    out.append({"role": "user", "parts": [{"text": m.text}]})
            case Role.ASSISTANT:
                parts = _model_parts(m, names)
                if parts:
                    out.append({"role": "model", "parts": parts})
            case Role.TOOL:
                parts = []
                for r in m.tool_results:
                    key = "result" if r.ok else "error"
                    parts.append({"functionResponse": {"name": names.to_wire(r.tool_name),
                                                       "response": {key: result_text(r)}}})
                if parts:
                    out.append({"role": "user", "parts": parts})
            case _:
                raise ValueError(f"unknown message role {m.role!r}")
    merged = merge_adjacent(out, "role", "parts")
    for content in merged:  # function responses answer the previous model turn: keep them first
        if content["role"] == "user":
            content["parts"] = sorted(content["parts"], key=lambda p: "functionResponse" not in p)
    return merged


class GeminiApi(NativeApi):
    """generateContent: `tools[].functionDeclarations`, `toolConfig.functionCallingConfig`."""

    name = "gemini"
    forces_tool_choice = True

    def looks_like(self, body: Any) -> bool:
        return isinstance(body, dict) and "candidates" in body

    def render_tools(self, tools: list[Tool], *, strict: bool = False) -> list[dict[str, Any]]:
        names = NameMap.of(tools)
        decls = []
        for t in tools:
            decl: dict[str, Any] = {"name": names.to_wire(t.name), "description": t.description}
            params = schemas.for_gemini(t.parameters)
            if params is not None:
                decl["parameters"] = params
            decls.append(decl)
        return [{"functionDeclarations": decls}] if decls else []

    def render_tool_choice(self, choice: str, tools: list[Tool]) -> dict[str, Any] | None:
        wire = effective_choice(choice, tools, NameMap.of(tools).to_wire_map)
        if wire == "auto":
            return None
        if wire == "none":
            return {"functionCallingConfig": {"mode": "NONE"}}
        if wire == "required":
            return {"functionCallingConfig": {"mode": "ANY"}}
        return {"functionCallingConfig": {"mode": "ANY", "allowedFunctionNames": [wire]}}

    def build_body(
        self, messages: list[Message], tools: list[Tool], plan: WirePlan, settings: RequestSettings
    ) -> dict[str, Any]:
        names = NameMap.of(tools)
        # History goes as is (no wire_history): Gemini sends no call ids back, pairs results by name,
        # takes several calls per turn from every model, and checks thought signatures per turn.
        body: dict[str, Any] = {"contents": render_contents(messages, names)}
        system = system_text(messages)
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        if tools and plan.native_tools:
            body["tools"] = self.render_tools(tools)
            config = self.render_tool_choice(plan.tool_choice, tools)
            if config is not None:
                body["toolConfig"] = config
        gen: dict[str, Any] = {}
        if settings.temperature is not None:
            gen["temperature"] = settings.temperature
        if settings.max_output_tokens is not None:
            gen["maxOutputTokens"] = settings.max_output_tokens
        if gen:
            body["generationConfig"] = gen
        return body

    def parse_body(self, body: dict[str, Any]) -> NativeParse:
        body = as_dict(body)
        um = as_dict(body.get("usageMetadata"))
        out_tokens = um.get("candidatesTokenCount")
        if isinstance(um.get("thoughtsTokenCount"), int):
            out_tokens = (out_tokens if isinstance(out_tokens, int) else 0) + um["thoughtsTokenCount"]
        out = NativeParse(usage=usage(um.get("promptTokenCount"), out_tokens))
        candidates = as_list(body.get("candidates"))
        if not candidates:
            blocked = as_dict(body.get("promptFeedback")).get("blockReason")
            out.finish_reason = "content_filter" if blocked else "error"
            return out
        cand = as_dict(candidates[0])
        text: list[str] = []
        thinking: list[str] = []
        signatures: list[str | None] = []
        text_sig: str | None = None
        for part in as_list(as_dict(cand.get("content")).get("parts")):
            part = as_dict(part)
            sig = part.get("thoughtSignature") if isinstance(part.get("thoughtSignature"), str) else None
            fc = part.get("functionCall")
            if isinstance(fc, dict):
                name = as_str(fc.get("name"))
                if not name:
                    continue
                args = fc.get("args")
                args = args if isinstance(args, (dict, str)) else {}
                out.candidates.append(Candidate(name=name, arguments=args, raw=args_raw(args), dialect=DIALECT,
                                                id=as_str(fc.get("id")) or None))
                signatures.append(sig)
            elif "text" in part:
                (thinking if part.get("thought") is True else text).append(as_str(part.get("text")))
                if sig and part.get("thought") is not True:
                    text_sig = sig
        out.text = "".join(text)
        out.thinking = "".join(thinking)
        if any(signatures) or text_sig:
            data: dict[str, Any] = {}
            if any(signatures):
                data["call_signatures"] = signatures
            if text_sig:
                data["text_signature"] = text_sig
            out.provider_data[KEY] = data
        reason = as_str(cand.get("finishReason"))
        out.finish_reason = _FINISH.get(reason, "stop")
        if reason == "MALFORMED_FUNCTION_CALL" and isinstance(cand.get("finishMessage"), str):
            out.provider_data.setdefault(KEY, {})["finish_message"] = cand["finishMessage"]
        if out.candidates and out.finish_reason == "stop":
            out.finish_reason = "tool_calls"
        unique_ids(out.candidates)
        return out

    def new_stream(self) -> GeminiStream:
        return GeminiStream()


class GeminiStream(NativeStream):
    """streamGenerateContent?alt=sse: each event is a GenerateContentResponse holding new parts."""

    def __init__(self) -> None:
        self._parts: list[dict[str, Any]] = []
        self._finish: str | None = None
        self._finish_message: Any = None
        self._usage: dict[str, Any] | None = None
        self._feedback: Any = None
        self._calls = 0
        self._seen_candidate = False

    @property
    def complete(self) -> bool:
        return self._finish is not None

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        chunk = as_dict(chunk)
        events: list[StreamEvent] = []
        if isinstance(chunk.get("usageMetadata"), dict):
            self._usage = chunk["usageMetadata"]
        if chunk.get("promptFeedback") is not None:
            self._feedback = chunk["promptFeedback"]
        candidates = as_list(chunk.get("candidates"))
        if not candidates:
            return events
        self._seen_candidate = True
        cand = as_dict(candidates[0])
        for part in as_list(as_dict(cand.get("content")).get("parts")):
            part = as_dict(part)
            self._parts.append(part)
            fc = part.get("functionCall")
            if isinstance(fc, dict) and as_str(fc.get("name")):
                pos, call_id, name = self._calls, as_str(fc.get("id")) or None, fc["name"]
                self._calls += 1
                events.append(start_event(pos, call_id, name))
                if isinstance(fc.get("args"), dict):
                    events.append(args_event(pos, call_id, name, dict(fc["args"])))
            elif as_str(part.get("text")):
                events.append((thinking_event if part.get("thought") is True else text_event)(part["text"]))
        if cand.get("finishReason"):
            self._finish = as_str(cand["finishReason"])
            self._finish_message = cand.get("finishMessage")
        return events

    def body(self) -> dict[str, Any]:
        """The non-streamed response this stream is equivalent to."""
        body: dict[str, Any] = {}
        if self._seen_candidate:
            cand: dict[str, Any] = {"content": {"role": "model", "parts": self._parts}}
            if self._finish:
                cand["finishReason"] = self._finish
            if self._finish_message is not None:
                cand["finishMessage"] = self._finish_message
            body["candidates"] = [cand]
        if self._feedback is not None:
            body["promptFeedback"] = self._feedback
        if self._usage is not None:
            body["usageMetadata"] = self._usage
        return body

    def finish(self) -> NativeParse:
        return API.parse_body(self.body())


API = GeminiApi()
