"""The streaming assembler: provider chunks in, StreamEvents out, one ParsedResponse at the end.

Native deltas go through the API's NativeStream; the text they carry goes through the
text-dialect TextStream (calls written into text). finish() runs the same finalisation as
a non-streamed parse, so any chunking of a response ends in the same ParsedResponse.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from agentcli.core import jsonsafe
from agentcli.core.events import StreamEvent, StreamKind
from agentcli.wire.names import NameMap

if TYPE_CHECKING:
    from agentcli.core.types import ParsedResponse
    from agentcli.wire.types import NativeParse, ParseContext, WirePlan


def complete_parse(plan: WirePlan, native: NativeParse, ctx: ParseContext) -> ParsedResponse:
    """NativeParse -> ParsedResponse: map wire names back, undo strict-mode nulls, then run
    the shared pipeline (text dialects, name resolution, repair, coercion)."""
    from agentcli.wire import pipeline
    from agentcli.wire import schema as schemas

    names = NameMap.of(list(ctx.tools.values()))
    for cand in native.candidates:
        cand.name = names.from_wire(cand.name)
        tool = ctx.tools.get(cand.name)
        if plan.strict and tool is not None and schemas.to_strict(tool.parameters) is not None:
            args = cand.arguments
            if isinstance(args, str):
                try:
                    decoded = jsonsafe.loads(args)
                except ValueError:
                    decoded = None
                if isinstance(decoded, dict):
                    args = decoded
            if isinstance(args, dict):
                cand.arguments = schemas.drop_optional_nulls(args, tool.parameters)
    return pipeline.finalize(native, ctx, plan.parsers)


class StreamAssembler:
    """Per-response state: feed() decoded provider chunks, then finish() once."""

    def __init__(self, plan: WirePlan, ctx: ParseContext) -> None:
        from agentcli.wire import native as natives
        from agentcli.wire.textstream import TextStream

        self.plan = plan
        self.ctx = ctx
        self._native = natives.get(plan.api).new_stream()
        self._text = TextStream(plan.parsers, ctx)
        self._names = NameMap.of(list(ctx.tools.values()))
        self._index: dict[tuple[str, int], int] = {}  # (source, source index) -> turn index
        self._started: list[tuple[int, str | None, str | None]] = []  # (index, call id, name)
        self._finished = False
        # an emoji sent as two escaped UTF-16 halves, split over two chunks, is joined whole
        self._joiners = {StreamKind.TEXT: jsonsafe.SurrogateJoiner(), StreamKind.THINKING: jsonsafe.SurrogateJoiner()}

    @property
    def complete(self) -> bool:
        """True once the provider signalled the end of the message."""
        return bool(self._native.complete)

    def feed(self, chunk: dict[str, Any]) -> list[StreamEvent]:
        if self._finished:
            raise RuntimeError("stream already finished")
        out: list[StreamEvent] = []
        for event in self._native.feed(chunk):
            joiner = self._joiners.get(event.kind)
            if joiner is not None and event.text:
                event = dataclasses.replace(event, text=joiner.feed(event.text))
            if event.kind is StreamKind.TEXT:
                out.extend(self._route("text", self._text.feed(event.text)))
            else:
                out.extend(self._route("native", [event]))
        return out

    def _route(self, source: str, events: list[StreamEvent]) -> list[StreamEvent]:
        out: list[StreamEvent] = []
        for e in events:
            if e.kind in (StreamKind.TOOL_START, StreamKind.TOOL_ARGS):
                key = (source, e.index)
                index = self._index.get(key)
                name = self._names.from_wire(e.name) if e.name else e.name
                if index is None:
                    index = self._index[key] = len(self._index)
                    self._started.append((index, e.call_id, name))
                out.append(dataclasses.replace(e, index=index, name=name))
            else:
                out.append(e)
        return out

    def finish(self) -> tuple[list[StreamEvent], ParsedResponse]:
        """Flush, finalise, and report every call complete (TOOL_END) and the turn (DONE)."""
        if self._finished:
            raise RuntimeError("stream already finished")
        self._finished = True
        held = self._joiners[StreamKind.TEXT].flush()
        events = self._route("text", self._text.feed(held) + self._text.flush())
        thought = self._joiners[StreamKind.THINKING].flush()
        if thought:
            events.append(StreamEvent(StreamKind.THINKING, text=thought))
        parsed = complete_parse(self.plan, self._native.finish(), self.ctx)
        parsed.text = jsonsafe.join_surrogates(parsed.text or "")
        parsed.thinking = jsonsafe.join_surrogates(parsed.thinking or "")
        unused = list(self._started)
        next_index = len(self._index)
        for call in parsed.tool_calls:
            match = next((s for s in unused if s[1] and s[1] == call.id), None)
            match = match or next((s for s in unused if s[2] == call.name), None)
            if match is not None:
                unused.remove(match)
                index = match[0]
            else:
                index, next_index = next_index, next_index + 1
            events.append(StreamEvent(StreamKind.TOOL_END, index=index, call_id=call.id, name=call.name,
                                      arguments=dict(call.arguments), call=call))
        events.append(StreamEvent(StreamKind.DONE, response=parsed))
        return events, parsed
