"""Llama 3.x JSON calls: `<|python_tag|>{"name": .., "parameters": ..}` or a whole message of them.

Several calls are separated by `;` (vLLM's llama3_json convention) or by another python tag.
Without the python tag the message must consist of call objects only, and those are embedded
calls (kept only for an offered tool's name); a call object inside prose belongs to json_block.
A message that opens with a broken call object and goes on with good ones keeps the good ones.
Llama 3.1's built-in tools, `<|python_tag|>brave_search.call(query="...")`, are calls too.
Llama 4 sometimes writes these JSON objects between its pythonic tags,
`<|python_start|>{...}<|python_end|>` (vllm#16214); a pythonic list there stays the pythonic dialect's.
"""

from __future__ import annotations

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import (
    calls_from_value,
    complete_json,
    decode_at,
    salvage_call,
    skip_ws,
)
from agentcli.wire.dialects._seen import find_char, locate
from agentcli.wire.types import Candidate

TAG = "<|python_tag|>"
PY_START = "<|python_start|>"
PY_END = "<|python_end|>"
_EOM = ("<|eom_id|>", "<|eot_id|>")
# Llama 3.1 built-in tools: `brave_search.call(query="...")` (brave_search, wolfram_alpha, photogen...).
_BUILTIN = lazy_pattern(r"\s*([A-Za-z_]\w{0,63})\.call\(")
_NEXT_CALL = lazy_pattern(r'\{\s*"name"\s*:')
_RESYNC = 8  # broken objects skipped before a whole message is given up on


def _first_bar(text: str) -> int:
    """Where the first `|` stands (-1: none). A tag (`<|python_tag|>`, `<|python_start|>`) holds its
    `|` one character in, so it starts no earlier than one before that place."""
    return find_char(text, "|")


class Llama3JsonDialect(Dialect):
    name = "llama3_json"
    markers = ()  # the bare whole-message form has no marker
    stream_markers = (TAG, PY_START)  # what the stream detector may hold on

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        # Markerless, it reads every reply in the default chain: its tags are looked for where their
        # rare character stands, and the whole-message form is ruled out by the first character
        # before the message is copied stripped.
        bar = _first_bar(text)  # both tags hold a `|`: none in the text, neither tag (one memchr for both)
        start = locate(text, PY_START, max(bar - 1, 0)) if bar >= 0 else -1
        if start >= 0:
            found = self._python_block(text, start)
            if found is not None:
                return found
        tag = locate(text, TAG, max(bar - 1, 0)) if bar >= 0 else -1
        if tag >= 0:
            body = text[tag + len(TAG):]
            for stop in _EOM:
                body = body.replace(stop, "")
            found = self._sequence(body, tagged=True) or self._builtin(body, text[tag:])
            if found is None:
                return [], text
            cands, rest = found
            return cands, text[:tag] + rest
        head = text[:64].lstrip()
        if head and head[0] != "{":  # not a message of call objects: ruled out before a stripped copy
            return [], text
        stripped = text.strip()
        if not stripped.startswith("{") or not stripped.endswith("}"):
            return [], text
        found = self._sequence(stripped, tagged=False)
        if found is None or (found[1].strip() and len(found[0]) <= MAX_CALLS):
            return [], text
        for c in found[0]:
            c.embedded = True  # bare JSON: a call only for an offered tool's name
        return found[0], found[1]  # the rest is left only after a flood of calls

    def _builtin(self, body: str, raw: str) -> tuple[list[Candidate], str] | None:
        """`brave_search.call(query="...")` after the python tag: the built-in tool, keyword arguments."""
        m = _BUILTIN.match(body)
        src = body.strip()
        if m is None or not src.endswith(")"):
            return None
        from agentcli.wire.dialects._pylist import keyword_calls

        calls = keyword_calls(m.group(1) + src[src.index(".call(") + len(".call"):])
        if not calls:
            return None
        return [Candidate(n, a, raw, self.name, error=err) for n, a, err in calls], ""

    def _python_block(self, text: str, start: int) -> tuple[list[Candidate], str] | None:
        """JSON call objects inside <|python_start|>..<|python_end|> (to the end when unclosed)."""
        body_start = start + len(PY_START)
        i = skip_ws(text, body_start)
        if i >= len(text) or text[i] != "{":
            return None
        end = text.find(PY_END, i)
        stop = end if end >= 0 else len(text)
        found = self._sequence(text[i:stop], tagged=True)
        if found is None:
            return None
        cands, rest = found
        after = text[stop + len(PY_END):] if end >= 0 else ""
        return cands, text[:start] + rest + after

    def _sequence(self, body: str, tagged: bool) -> tuple[list[Candidate], str] | None:
        """Call objects separated by ';' or whitespace; (candidates, text after them) or None."""
        out: list[Candidate] = []
        i = skip_ws(body, 0)
        while i < len(body) and body[i] == "{" and len(out) <= MAX_CALLS:  # past that, a flood: the rest stays text
            hit = decode_at(body, i)
            if hit is None:
                if not tagged:
                    nxt = self._resync(body, i, out)
                    if nxt is None:
                        return None
                    i = nxt
                    continue
                # Tagged but malformed: everything left is one call for the repair layer.
                salvaged = salvage_call(body[i:])
                if salvaged is None:
                    return None if not out else (out, body[i:])
                if complete_json(body[i:]):
                    out.append(Candidate(salvaged[0], salvaged[1], body[i:], self.name))
                else:
                    out.append(Candidate(salvaged[0], None, body[i:], self.name, error="truncated tool call (output ended inside it)"))
                return out, ""
            calls = calls_from_value(hit[0], need_args=False)
            if not calls or (not tagged and not _llama_keys(hit[0])):
                return None if not out else (out, body[i:])
            out.extend(Candidate(n, a, body[i:hit[1]], self.name, id=cid) for n, a, cid in calls)
            i = skip_ws(body, hit[1])
            if i < len(body) and body[i] == ";":
                i = skip_ws(body, i + 1)
            elif body.startswith(TAG, i):  # a python tag before each call
                i = skip_ws(body, i + len(TAG))
        return (out, body[i:]) if out else None

    def _resync(self, body: str, i: int, out: list[Candidate]) -> int | None:
        """A whole message whose object at `i` is broken: where the next call object starts (the
        broken one reported as an error when it names a tool), or None when none follows."""
        if sum(1 for c in out if c.error) >= _RESYNC:
            return None
        m = _NEXT_CALL.search(body, i + 1)
        if m is None:
            return None
        salvaged = salvage_call(body[i:m.start()])
        if salvaged is None:
            return None  # not a broken call but an object around one: not this form
        out.append(Candidate(salvaged[0], None, body[i:m.start()], self.name, error="malformed tool call object"))
        return m.start()


def _llama_keys(obj: object) -> bool:
    """The untagged form is Llama's own: {"name", "parameters"} (optionally "type": "function"), or
    {"name"} alone for a tool without parameters."""
    return isinstance(obj, dict) and "name" in obj and ("parameters" in obj or "arguments" in obj or len(obj) == 1)


LLAMA3_JSON = Llama3JsonDialect()
