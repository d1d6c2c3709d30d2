"""Poolside Laguna tool calls: GLM-4.5's name line and <arg_key>/<arg_value> pairs, or JSON, in tags.

<tool_call>get_weather
<arg_key>location</arg_key>
<arg_value>Paris</arg_value>
</tool_call>
Laguna also writes the same call body in other shapes, and Ollama's parser reads them all:
- a name line followed by a JSON object of arguments: `<tool_call>get_weather\n{"location": "SF"}</tool_call>`;
- a whole JSON call: `<tool_call>{"name": "get_weather", "arguments": {...}}</tool_call>`;
- any of these wrapped in `<user>..</user>` instead of `<tool_call>` (the model slips into the turn tag
  its template uses next). A `<user>` block is a call only when its body has one of the call shapes
  and, with tools offered, names one of them; anything else in it (`<user>hello</user>`) stays text.
A `<tool_call>` left open before the next one ends there; when the next one repeats its call whole, the
model restarted the call and it is read once. Values of <arg_value> pairs are text.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._callscan import call_from_obj, decode_at, is_tool_name, skip_ws
from agentcli.wire.dialects._pairs import KEY_CLOSE, KEY_OPEN, VAL_CLOSE, VAL_OPEN, parse_pairs, split_name
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, remove_spans, total
from agentcli.wire.types import Candidate

WRAPPERS = (("<tool_call>", "</tool_call>"), ("<user>", "</user>"))
_PAIR_TAGS = (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE)


def _json_call(body: str, raw: str, dialect: str) -> Candidate | None:
    """A body holding one JSON call object ({"name", "arguments"}) and nothing else."""
    i = skip_ws(body, 0)
    hit = decode_at(body, i) if body.startswith("{", i) else None
    if hit is None or body[hit[1]:].strip():
        return None
    shaped = call_from_obj(hit[0])
    if shaped is None or not is_tool_name(shaped[0]):
        return None
    name, args, cid = shaped
    if not isinstance(args, (dict, str)):
        return None
    return Candidate(name=name, arguments=args, raw=raw, dialect=dialect, id=cid)


def _named_call(body: str, raw: str, dialect: str, *, bare: bool) -> Candidate | None:
    """A name line, then either <arg_key>/<arg_value> pairs or one JSON object of arguments; a name
    line alone only when `bare` (in <tool_call>; in <user> a lone word is a message, not a call)."""
    parts = split_name(body)
    if parts is None or not is_tool_name(parts[0]):
        return None
    name, rest = parts
    i = skip_ws(rest, 0)
    if not bare and not rest.startswith(("{", KEY_OPEN), i):
        return None
    if rest.startswith("{", i):
        hit = decode_at(rest, i)
        if hit is None or not isinstance(hit[0], dict) or rest[hit[1]:].strip():
            return None
        return Candidate(name=name, arguments=hit[0], raw=raw, dialect=dialect)
    args = parse_pairs(rest, strict=True)
    if args is None:
        return None
    leftover = rest
    for tag in _PAIR_TAGS:
        leftover = leftover.replace(tag, "")
    if not args and leftover.replace("\\n", "").strip():
        return None  # a name line followed by prose, not a call
    return Candidate(name=name, arguments=args, raw=raw, dialect=dialect, text_values=True)


class _Laguna(Dialect):
    name = "laguna"
    markers = ("<tool_call>", "<user>")

    @total
    def parse(self, text: str) -> ParseResult:
        found: list[tuple[int, int, bool, Candidate]] = []
        for begin, end in WRAPPERS:
            in_tool_call = begin == WRAPPERS[0][0]
            for blk in iter_blocks(text, begin, end):
                if not blk.closed and (blk.body_end == len(text) or not in_tool_call):
                    continue  # cut off at the end of the output: more of the call may have been coming
                raw = text[blk.start : blk.end]
                body = text[blk.body_start : blk.body_end]
                cand = _json_call(body, raw, self.name) or _named_call(body, raw, self.name, bare=in_tool_call)
                if cand is not None:
                    # <user> is a turn tag any transcript may quote: with tools offered, a call only
                    # when it names one of them.
                    cand.embedded = not in_tool_call
                    found.append((blk.start, blk.end, blk.closed, cand))
        if not found:
            return [], text
        found.sort(key=lambda f: f[0])
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for k, (start, stop, closed, cand) in enumerate(found):
            if spans and start < spans[-1][1]:
                continue  # inside a block already read (a <user> tag quoted in a call's value)
            spans.append((start, stop))
            nxt = found[k + 1] if k + 1 < len(found) else None
            # A call left open and written again whole right after it: the model restarted the call.
            restarted = not closed and nxt is not None and nxt[0] == stop and _same(cand, nxt[3])
            if not restarted:
                cands.append(cand)
        return cands, remove_spans(text, spans)


def _same(a: Candidate, b: Candidate) -> bool:
    return a.name == b.name and a.arguments == b.arguments


LAGUNA = _Laguna()
