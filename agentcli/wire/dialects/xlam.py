"""Salesforce xLAM tool calls: a JSON array of {"name", "arguments"} in any of its wrappings.

[{"name": "get_current_weather", "arguments": {"city": "Dallas"}}]          (the whole answer)
<think>...</think>[{...}]                                                  (after reasoning)
```json\\n[{...}]\\n```   [TOOL_CALLS][{...}]   <tool_call>[{...}]</tool_call>
A bare array counts only where the answer starts (after any <think> block), so JSON
quoted mid-prose is never taken for a call; every element must be a call object.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import (
    WS,
    ParseResult,
    calls_from_json,
    decode_json_at,
    decode_json_from,
    prefixed_json_calls,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import key, locate
from agentcli.wire.types import Candidate

THINK_END = "</think>"
def _last(text: str, tag: str) -> int:
    """text.rfind(tag) for a tag that cannot overlap itself, found forward where its rare character
    stands: a reverse search walks the text from its end character by character, all of it when
    the tag is absent (as once the reasoning split took the block out) or near the start. Where
    that character stands nowhere (a memchr says so), neither does the tag."""
    if key(tag)[0] not in text:
        return -1
    last, at = -1, locate(text, tag)
    while at != -1:
        last, at = at, locate(text, tag, at + len(tag))
    return last


class _XLam(Dialect):
    name = "xlam"
    markers = ('"name"',)  # every wrapping holds call objects; no token is common to all
    name_strict = True  # fenced or bare JSON: with offered tools, an unknown name is an example, not a call
    # the JSON its lane opens with, as xLAM writes it: outside its strings no `<` stands in a reply the lane takes
    lane_tokens = ('[{"name"',)

    @total
    def parse(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(
            text, ("[TOOL_CALLS]", "<tool_call>"), self.name, closers=("</tool_call>",), require_args=True
        )
        fc, fs = self._fences(text)
        cands += fc
        spans += fs
        if not cands:
            got = self._leading(text)
            if got is None:
                return [], text
            cands, spans = got
        return cands, remove_spans(text, spans)

    def lane(self, text: str) -> ParseResult | None:
        """The usual reply (Dialect.lane): one JSON array (or call object) of calls opening it,
        decoded in place. The pipeline takes it only when the text left is plain prose, so no
        prefix, fence or other wrapping stands outside the JSON for the parse to find first, and
        inside it the full path's mask hides what those searches would find."""
        got = self._calls_at(text, skip_ws(text, 0))
        if got is None:
            return None
        return got[0], remove_spans(text, got[1])

    def _leading(self, text: str) -> tuple[list[Candidate], list[tuple[int, int]]] | None:
        """A JSON array (or single call object) that opens the answer."""
        think = _last(text, THINK_END)
        start = think + len(THINK_END) if think != -1 else 0
        if start < len(text) and text[start] in WS:
            start = skip_ws(text, start)
        return self._calls_at(text, start)

    def _calls_at(self, text: str, start: int) -> tuple[list[Candidate], list[tuple[int, int]]] | None:
        """The calls of the JSON array (or call object) decoded at `start`, with its span."""
        if start >= len(text) or text[start] not in "[{":
            return None
        got = decode_json_from(text, start)
        if got is None:
            return None
        found = calls_from_json(got[0], text[start : got[1]], self.name, require_args=True)
        if not found:
            return None
        return found, [(start, got[1])]

    def _fences(self, text: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """```json fences whose whole content is one call or a list of calls."""
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        if "`" not in text:  # a memchr: no backtick, no fence (a search for ``` steps a few characters at a time)
            return cands, spans
        pos = 0
        while (at := locate(text, "```", pos)) != -1:  # by its backticks' places (a memchr each)
            nl = text.find("\n", at)
            if nl == -1:
                break
            pos = nl + 1
            if text[at + 3 : nl].strip() not in ("", "json", "JSON"):
                continue
            got = decode_json_at(text, nl + 1)
            if got is None:
                continue
            k = skip_ws(text, got[1])
            if not text.startswith("```", k):
                continue
            end = k + 3
            found = calls_from_json(got[0], text[at:end], self.name, require_args=True)
            if found:
                cands.extend(found)
                spans.append((at, end))
            pos = end
        return cands, spans


XLAM = _XLam()
