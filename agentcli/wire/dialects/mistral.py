"""Mistral's [TOOL_CALLS] token in the layouts its tokenizer versions produce.

    v3 and earlier:  [TOOL_CALLS] [{"name": "f", "arguments": {...}, "id": "abc123def"}, ...]
    v11+:            [TOOL_CALLS]f[ARGS]{...}[TOOL_CALLS]g[ARGS]{...}   ([ARGS] may be dropped by the detokenizer)
    with call ids:   [TOOL_CALLS]f[CALL_ID]abc123def[ARGS]{...}
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

from agentcli.wire.dialects import _prompt
from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import (
    calls_from_value,
    decode_at,
    json_end,
    salvage_call,
    skip_ws,
    top_objects,
)
from agentcli.wire.types import Candidate

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult

BOT = "[TOOL_CALLS]"
EOT = "[/TOOL_CALLS]"
_JUNK = 200  # how far after the token a call list may still start
_ARGS = "[ARGS]"
_CALL_ID = "[CALL_ID]"
_NAME = re.compile(r"\s*([A-Za-z_][\w.\-]{0,127})\s*")
_ID = re.compile(r"\s*([A-Za-z0-9_\-]{1,64})\s*")
_EMPTY = re.compile(r"\[\s*\]")
_TRUNCATED = "truncated tool call (output ended inside it)"


class MistralDialect(Dialect):
    name = "mistral"
    markers = (BOT,)
    reasoning_tags = (("[THINK]", "[/THINK]"),)  # Magistral
    empty_lists = ((BOT, ""), (BOT, EOT))
    emulation = True

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        start = text.find(BOT)
        if start < 0:
            return [], text
        out: list[Candidate] = []
        kept: list[str] = []
        pos = 0
        while True:
            s = text.find(BOT, pos)
            if s < 0:
                kept.append(text[pos:])
                break
            kept.append(text[pos:s])
            i = skip_ws(text, s + len(BOT))
            empty = _EMPTY.match(text, i)
            if empty or text.startswith(EOT, i):  # an empty list: calls no tool, and is no text either
                end = skip_ws(text, empty.end()) if empty else i
                pos = end + len(EOT) if text.startswith(EOT, end) else empty.end() if empty else i
                continue
            if i < len(text) and text[i] in "[{":
                cands, end = self._json_list(text, s, i)
            else:
                cands, end = self._named(text, s, i)
                if not cands:  # words before the list ("[TOOL_CALLS] junk [{...}]"): the list is still the call
                    j = text.find("[{", i, min(len(text), i + _JUNK))
                    nxt = text.find(BOT, i)
                    if j >= 0 and (nxt < 0 or j < nxt):
                        cands, end = self._json_list(text, s, j)
            if cands:
                k = skip_ws(text, end)
                if text.startswith(EOT, k):  # the closing token of some chat templates
                    end = k + len(EOT)
            out.extend(cands)
            # Without a usable call the token is dropped and what follows stays text.
            pos = end if cands else i
        return out, "".join(kept)

    def _json_list(self, text: str, pos: int, i: int) -> tuple[list[Candidate], int]:
        hit = decode_at(text, i)
        if hit is not None:
            calls = calls_from_value(hit[0], need_args=False)
            if not calls:
                return [], i
            raw = text[pos:hit[1]]
            return [Candidate(n, a, raw, self.name, id=cid) for n, a, cid in calls], hit[1]
        # Malformed: judged up to the next token only, so a run of cut-off calls costs linear time.
        nxt = text.find(BOT, i)
        stop = nxt if nxt >= 0 else len(text)
        end = json_end(text, i, stop)
        if end is None:
            salvaged = salvage_call(text[i:stop])
            if salvaged is None:
                return [], i
            return [Candidate(salvaged[0], None, text[pos:stop], self.name, error=_TRUNCATED)], stop
        # Balanced but malformed: salvage each object for the repair layer.
        body = text[i:end]
        objs = [body[s:e] for s, e in top_objects(body)]
        out = []
        for obj in objs:
            salvaged = salvage_call(obj)
            if salvaged:
                out.append(Candidate(salvaged[0], salvaged[1], text[pos:end], self.name))
        return out, end

    def _named(self, text: str, pos: int, i: int) -> tuple[list[Candidate], int]:
        m = _NAME.match(text, i)
        if not m:
            return [], i
        name, j = m.group(1), m.end()
        cid = None
        if text.startswith(_CALL_ID, j):
            idm = _ID.match(text, j + len(_CALL_ID))
            if idm:
                cid, j = idm.group(1), idm.end()
        if text.startswith(_ARGS, j):
            j = skip_ws(text, j + len(_ARGS))
        if j >= len(text):
            return [Candidate(name, None, text[pos:], self.name, id=cid, error=_TRUNCATED)], len(text)
        if text[j] != "{":
            return [], i
        hit = decode_at(text, j)
        if hit is not None:
            return [Candidate(name, text[j:hit[1]], text[pos:hit[1]], self.name, id=cid)], hit[1]
        nxt = text.find(BOT, j)
        end = json_end(text, j, nxt if nxt >= 0 else None)
        if end is None:
            if nxt >= 0:  # malformed but followed by another call: repair what is there
                return [Candidate(name, text[j:nxt], text[pos:nxt], self.name, id=cid)], nxt
            return [Candidate(name, None, text[pos:], self.name, id=cid, error=_TRUNCATED)], len(text)
        return [Candidate(name, text[j:end], text[pos:end], self.name, id=cid)], end

    # --- emulation -------------------------------------------------------------------------

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        return _prompt.instructions(
            tools, compact, lambda n, a: _render([(n, a)]), _render,
            results_hint=" after [TOOL_RESULTS]",
        )

    def render_call(self, call: ToolCall) -> str:
        return BOT + json.dumps([{"name": call.name, "arguments": call.arguments, "id": _short_id(call.id)}], ensure_ascii=False)

    def render_results(self, results: list[ToolResult]) -> str:
        return "\n".join(
            "[TOOL_RESULTS]"
            + json.dumps({"call_id": _short_id(r.call_id), "name": r.tool_name, "content": _prompt.result_text(r)}, ensure_ascii=False)
            + "[/TOOL_RESULTS]"
            for r in results
        )


def _short_id(call_id: str) -> str:
    """Mistral requires 9 alphanumeric characters for call ids."""
    clean = "".join(c for c in call_id if c.isalnum())
    return (clean[-9:]).rjust(9, "0")


def _render(calls: list[tuple[str, dict]]) -> str:
    return BOT + json.dumps([{"name": n, "arguments": a} for n, a in calls], ensure_ascii=False)


MISTRAL = MistralDialect()
