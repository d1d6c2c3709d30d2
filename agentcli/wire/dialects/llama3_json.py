"""Llama 3.x JSON calls: `<|python_tag|>{"name": .., "parameters": ..}` or a whole message of them.

Several calls are separated by `;` (vLLM's llama3_json convention). Without the python tag the
message must consist of call objects only; a call object inside prose belongs to json_block.
Llama 4 sometimes writes these JSON objects between its pythonic tags,
`<|python_start|>{...}<|python_end|>` (vllm#16214); a pythonic list there stays the pythonic dialect's.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import calls_from_value, complete_json, decode_at, salvage_call, skip_ws
from agentcli.wire.types import Candidate

TAG = "<|python_tag|>"
PY_START = "<|python_start|>"
PY_END = "<|python_end|>"
_EOM = ("<|eom_id|>", "<|eot_id|>")


class Llama3JsonDialect(Dialect):
    name = "llama3_json"
    markers = ()  # the bare whole-message form has no marker
    stream_markers = (TAG, PY_START)  # what the stream detector may hold on

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        start = text.find(PY_START)
        if start >= 0:
            found = self._python_block(text, start)
            if found is not None:
                return found
        tag = text.find(TAG)
        if tag >= 0:
            body = text[tag + len(TAG):]
            for stop in _EOM:
                body = body.replace(stop, "")
            found = self._sequence(body, tagged=True)
            if found is None:
                return [], text
            cands, rest = found
            return cands, text[:tag] + rest
        stripped = text.strip()
        if not stripped.startswith("{") or not stripped.endswith("}"):
            return [], text
        found = self._sequence(stripped, tagged=False)
        if found is None or (found[1].strip() and len(found[0]) <= MAX_CALLS):
            return [], text
        return found[0], found[1]  # the rest is left only after a flood of calls

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
                    return None
                # Tagged but malformed: everything left is one call for the repair layer.
                salvaged = salvage_call(body[i:])
                if salvaged is None:
                    return None if not out else (out, body[i:])
                if complete_json(body[i:]):
                    out.append(Candidate(salvaged[0], salvaged[1], body[i:], self.name))
                else:
                    out.append(Candidate(salvaged[0], None, body[i:], self.name, error="truncated tool call (output ended inside it)"))
                return out, ""
            calls = calls_from_value(hit[0], need_args=tagged)
            if not calls or (not tagged and not _llama_keys(hit[0])):
                return None if not out else (out, body[i:])
            out.extend(Candidate(n, a, body[i:hit[1]], self.name, id=cid) for n, a, cid in calls)
            i = skip_ws(body, hit[1])
            if i < len(body) and body[i] == ";":
                i = skip_ws(body, i + 1)
        return (out, body[i:]) if out else None


def _llama_keys(obj: object) -> bool:
    """The untagged form is Llama's own: {"name", "parameters"} (optionally "type": "function")."""
    return isinstance(obj, dict) and "name" in obj and ("parameters" in obj or "arguments" in obj)


LLAMA3_JSON = Llama3JsonDialect()
