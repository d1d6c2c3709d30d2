"""Cohere Command tool calls: Command R / R+ `Action:` blocks and Command R7B / A action tokens.

R / R+:  Action: ```json
         [{"tool_name": "internet_search", "parameters": {"query": "..."}}]
         ```
R7B / A: <|START_ACTION|>[{"tool_call_id": "0", "tool_name": "foo", "parameters": {"query": "q"}}]<|END_ACTION|>
`directly-answer` is Command R+'s "no tool needed" pseudo tool, not a call.
The answer arrives as <|START_RESPONSE|>foo <co>bar</co: 0:[1,2]><|END_RESPONSE|> (or START_TEXT;
Command R / R+ turns are <|CHATBOT_TOKEN|>foo<|END_OF_TURN_TOKEN|>): the tokens and the citation
tags are markup and leave the text, the cited words stay.
(Reasoning between <|START_THINKING|> and <|END_THINKING|> is split off before any dialect runs.)
"""

from __future__ import annotations

import re
from typing import Any

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import json_end, salvage_call, top_objects
from agentcli.wire.dialects._scan import (
    ParseResult,
    calls_from_json,
    decode_json_at,
    prefixed_json_calls,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import finder, holds_any
from agentcli.wire.repair import cheap_repair
from agentcli.wire.types import Candidate

ACTION_BEGIN, ACTION_END = "<|START_ACTION|>", "<|END_ACTION|>"
ACTION_WORD = "Action:"
_KEYS: dict[str, Any] = {
    "name_keys": ("tool_name", "name"),
    "arg_keys": ("parameters", "arguments"),
    "id_keys": ("tool_call_id", "id"),
    "require_args": True,
}
_MALFORMED = "malformed tool call: its JSON does not read"
_NO_TOOL = frozenset(("directly-answer", "directly_answer"))
_RESPONSE_TOKENS = ("<|START_RESPONSE|>", "<|END_RESPONSE|>", "<|START_TEXT|>", "<|END_TEXT|>",
                    "<|CHATBOT_TOKEN|>", "<|END_OF_TURN_TOKEN|>")
# The response's own markup: its tokens and citation tags (`<co>`, `<co: 0,1>`, `</co: 0:[1,2]>`).
_MARKUP = re.compile("|".join(re.escape(t) for t in _RESPONSE_TOKENS) + r"|</?co(?::[^<>\n]{0,200})?>")


class _CommandR(Dialect):
    name = "command_r"
    markers = (ACTION_BEGIN, ACTION_WORD, *_RESPONSE_TOKENS)
    owns = (ACTION_BEGIN, *_RESPONSE_TOKENS)
    reasoning_tags = (("<|START_THINKING|>", "<|END_THINKING|>"),)  # Command R7B / Command A

    @total
    def parse(self, text: str) -> ParseResult:
        cands, rest = self._calls(text)
        if holds_any(rest, _RESPONSE_TOKENS):
            rest = _MARKUP.sub("", rest)
        return cands, rest

    def _calls(self, text: str) -> ParseResult:
        cands, spans = prefixed_json_calls(text, (ACTION_BEGIN,), self.name, closers=(ACTION_END,), **_KEYS)
        if not cands:
            cands, spans = self._broken_actions(text)
        more, more_spans = self._action_word(text)
        if more and cands:  # both forms: back in text order (each list already is)
            placed = sorted(_placed(text, cands) + _placed(text, more), key=lambda pc: pc[0])
            cands = [c for _, c in placed]
        else:
            cands = cands or more
        spans += more_spans
        cands = [c for c in cands if c.name not in _NO_TOOL]
        if not cands and not any(text.startswith(ACTION_BEGIN, a) for a, _ in spans):
            return [], text  # an `Action:` word in prose stays; an action block is markup even when empty
        return cands, remove_spans(text, spans)

    def _action_word(self, text: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """`Action:` followed by a JSON list of calls, bare or in a ``` fence."""
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        while (at := text.find(ACTION_WORD, pos)) != -1:
            pos = at + len(ACTION_WORD)
            j = skip_ws(text, pos)
            fenced = text.startswith("```", j)
            if fenced:
                nl = text.find("\n", j, j + 256)  # the fence's info line is short: never a scan to the end
                if nl == -1 or text[j + 3 : nl].strip() not in ("", "json", "JSON"):
                    continue
                j = nl + 1
            if not text.startswith("[", j):
                continue  # Command R+ always writes a list; a bare object is the generic JSON form
            got = decode_json_at(text, j)
            if got is None:  # malformed: judged up to the next `Action:` only, so a run of them stays linear
                nxt = text.find(ACTION_WORD, j)
                end = json_end(text, j, nxt if nxt != -1 else len(text))
            else:
                end = got[1]
            if end is None:
                continue
            list_end = end
            if fenced:
                k = skip_ws(text, end)
                if not text.startswith("```", k):
                    continue  # the fence never closed: cut off or not a call
                end = k + 3
            raw = text[at:end]
            found = (calls_from_json(got[0], raw, self.name, **_KEYS) if got is not None
                     else self._salvaged(text[j:list_end], raw))
            if not found:
                continue
            cands.extend(found)
            spans.append((at, end))
            pos = end
        return cands, spans

    def _broken_actions(self, text: str) -> tuple[list[Candidate], list[tuple[int, int]]]:
        """`<|START_ACTION|>[...]<|END_ACTION|>` blocks whose list is not valid JSON, call by call."""
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        pos = 0
        close = -1  # the next `<|END_ACTION|>`, found once per block: a run of openers stays linear
        find = finder(text)  # on a long reply, tokens looked for where their `|` stands
        while (at := find(ACTION_BEGIN, pos)) != -1:
            j = skip_ws(text, at + len(ACTION_BEGIN))
            if close < j and (close := find(ACTION_END, j)) == -1:
                break  # no closer anywhere after: every block left is cut off
            nxt = find(ACTION_BEGIN, j)
            if nxt != -1 and nxt < close:
                pos = j  # unclosed: cut off, left to the text (and to the truncation report)
                continue
            end = close + len(ACTION_END)
            if text.startswith("[", j):
                cands.extend(self._salvaged(text[j:close], text[at:end]))
                spans.append((at, end))
            pos = end
        return cands, spans

    def _salvaged(self, body: str, raw: str) -> list[Candidate]:
        """A balanced list that is not valid JSON: each call object on its own, so one broken call
        is reported (or repaired) next to its good siblings instead of taking them down with it."""
        out: list[Candidate] = []
        for s, e in top_objects(body):
            obj = body[s:e]
            got = decode_json_at(obj, 0)
            value = got[0] if got is not None else cheap_repair(obj)  # only lossless fixes here
            found = calls_from_json(value, raw, self.name, **_KEYS) if isinstance(value, dict) else None
            if found:
                out.extend(found)
            elif (salvaged := salvage_call(obj)) is not None:
                # Guessing at a value such as `15:30` would run the tool with data the model never
                # wrote: the call is reported, not executed.
                out.append(Candidate(name=salvaged[0], arguments=None, raw=raw, dialect=self.name, error=_MALFORMED))
        return out


def _placed(text: str, cands: list[Candidate]) -> list[tuple[int, Candidate]]:
    """(position of its raw text, candidate) for candidates found in text order: one forward pass."""
    out: list[tuple[int, Candidate]] = []
    pos = 0
    for c in cands:
        at = text.find(c.raw, pos)
        if at == -1:
            at = pos
        out.append((at, c))
        pos = at
    return out


COMMAND_R = _CommandR()
