"""JSON calls wrapped in an XML-ish tag: <tool_use>, <function_call>, <tools> (and Hermes' <tool_call>).

The tag is the explicit signal, so inside it a malformed object is salvaged for the repair layer;
a tag left open at the end of the text with unfinished JSON is a truncated call (reported, never run).
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import calls_from_value, complete_json, decode_at, salvage_call, skip_ws
from agentcli.wire.types import Candidate


class TaggedJsonDialect(Dialect):
    """<tag>{"name": .., "arguments": ..}</tag>; several objects (or an array) per tag are allowed."""

    def __init__(self, name: str, tag: str) -> None:
        self.name = name
        self.open = f"<{tag}>"
        self.close = f"</{tag}>"
        self.markers = (self.open,)

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        if self.open not in text:
            return [], text
        out: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        while True:
            start = text.find(self.open, pos)
            if start < 0:
                break
            body_start = start + len(self.open)
            end = text.find(self.close, body_start)
            closed = end >= 0
            # An unclosed tag ends at the next opening tag or at the end of the text.
            nxt = text.find(self.open, body_start)
            if not closed or (0 <= nxt < end):
                closed = False
                end = nxt if nxt >= 0 else len(text)
            body = text[body_start:end]
            stop = end + len(self.close) if closed and text.startswith(self.close, end) else end
            cands = self._parse_body(body, text[start:stop], closed)
            if cands is None:  # not a JSON call: leave the text for other dialects
                kept.append(text[pos:stop])
            else:
                kept.append(text[pos:start])
                out.extend(cands)
            pos = stop
        kept.append(text[pos:])
        return out, "".join(kept)

    def _parse_body(self, body: str, raw: str, closed: bool) -> list[Candidate] | None:
        i = skip_ws(body, 0)
        if i >= len(body) or body[i] not in "{[":
            return None
        found: list[Candidate] = []
        while i < len(body) and body[i] in "{[":
            hit = decode_at(body, i)
            if hit is None:
                break
            calls = calls_from_value(hit[0], need_args=False)
            if calls is None:
                return None if not found else found
            found.extend(Candidate(n, a, raw, self.name, id=cid) for n, a, cid in calls)
            i = skip_ws(body, hit[1])
            if i < len(body) and body[i] in ",;":
                i = skip_ws(body, i + 1)
        rest = body[i:].strip()
        if not rest:
            return found
        # Malformed JSON inside the tag: salvage the name, let the repair layer fix the arguments.
        salvaged = salvage_call(rest)
        if salvaged is None:
            return found or None
        name, args = salvaged
        if not closed and not complete_json(rest):
            found.append(Candidate(name, None, raw, self.name, error="truncated tool call (output ended inside it)"))
        else:
            found.append(Candidate(name, args, raw, self.name))
        return found


TOOL_USE_TAG = TaggedJsonDialect("tool_use_tag", "tool_use")
FUNCTION_CALL_TAG = TaggedJsonDialect("function_call_tag", "function_call")
TOOLS_TAG = TaggedJsonDialect("tools_tag", "tools")
