"""IFM K2-Horizon (K2 V3): calls between <ifm|tool_call> tokens, optionally grouped in <ifm|tool_calls>.

    <ifm|tool_calls>
    <ifm|tool_call>get_weather<ifm|arg_key>city</ifm|arg_key><ifm|arg_type>string</ifm|arg_type><ifm|arg_value>Boston</ifm|arg_value></ifm|tool_call>
    </ifm|tool_calls>
    <ifm|tool_call>{"name": "get_weather", "arguments": {"city": "Tokyo"}}</ifm|tool_call>

A call is a name followed by GLM-style key/value pairs (an optional <ifm|arg_type> says how to read
the value: `string` keeps it as written, other types are JSON), or one JSON call object. A group is
read whole or not at all: when one of its calls cannot be read (a key with no value, a name that
is no string) the group stays text as written. Calls quoted inside the model's reasoning blocks
(<ifm|think>, <ifm|think_fast>, ...) are examples, never calls; an unfinished call stays text.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import (
    INVALID,
    ParseResult,
    call_from_object,
    iter_blocks,
    loads,
    remove_spans,
    skip_ws,
    total,
)
from agentcli.wire.dialects._seen import TWO_WAY, finder, locate
from agentcli.wire.types import Candidate

CALL_BEGIN, CALL_END = "<ifm|tool_call>", "</ifm|tool_call>"
GROUP_BEGIN, GROUP_END = "<ifm|tool_calls>", "</ifm|tool_calls>"
KEY, KEY_END = "<ifm|arg_key>", "</ifm|arg_key>"
TYPE, TYPE_END = "<ifm|arg_type>", "</ifm|arg_type>"
VALUE, VALUE_END = "<ifm|arg_value>", "</ifm|arg_value>"
THINK = "<ifm|think"
_TAG_MAX = 64  # a reasoning close tag longer than this is no tag (`<ifm|think` and prose up to some `>`)


def _think_regions(text: str) -> list[tuple[int, int]]:
    """The reasoning blocks (<ifm|think...>..</ifm|think...>) and a reasoning run closed without its
    opener at the start, in one pass. On a long reply the tags are looked for where their `|` stands
    (a memchr), not by a plain search that walks every character."""
    find = finder(text)
    regions: list[tuple[int, int]] = []
    pos = 0
    first_close = find("</ifm|think")
    first_open = find(THINK)
    if first_close != -1 and (first_open == -1 or first_close < first_open):
        gt = text.find(">", first_close)
        pos = len(text) if gt == -1 else gt + 1
        regions.append((0, pos))
    while True:
        start = find(THINK, pos)
        if start == -1:
            break
        gt = text.find(">", start)
        if gt == -1:
            break
        tag = "</" + text[start + 1 : gt + 1]
        close = (find if len(tag) <= _TAG_MAX else text.find)(tag, gt)  # a runaway 'tag': no rare-key table for it
        end = len(text) if close == -1 else close + (gt + 2 - start)
        regions.append((start, end))
        pos = end
    return regions


def _value(raw: str, kind: str | None) -> object:
    if kind is None or kind == "string":
        return raw
    decoded = loads(raw.strip())
    return raw if decoded is INVALID else decoded


def _tagged(body: str, at: int, open_tag: str, close_tag: str) -> tuple[str, int] | None:
    """(content, position after the close tag) of `open_tag`..`close_tag` at `at` (after whitespace)."""
    at = skip_ws(body, at)
    if not body.startswith(open_tag, at):
        return None
    # past a long value by the places of the tag's `|` (a plain search below TWO_WAY, no call between)
    close = body.find(close_tag, at) if len(body) < TWO_WAY else locate(body, close_tag, at)
    if close == -1:
        return None
    return body[at + len(open_tag) : close], close + len(close_tag)


def _pairs(body: str, at: int) -> dict | None:
    """The key/value pairs from `at` on; None when a key has no value or stray text stands between."""
    args: dict = {}
    while (at := skip_ws(body, at)) < len(body):
        key = _tagged(body, at, KEY, KEY_END)
        if key is None or not key[0].strip():
            return None
        kind = _tagged(body, key[1], TYPE, TYPE_END)
        value = _tagged(body, kind[1] if kind else key[1], VALUE, VALUE_END)
        if value is None:
            return None
        args[key[0].strip()] = _value(value[0], kind[0].strip() if kind else None)
        at = value[1]
    return args


def _call(body: str, raw: str) -> Candidate | None:
    stripped = body.strip()
    if stripped.startswith("{"):
        return call_from_object(loads(stripped), raw, "k2_horizon")
    key = body.find(KEY)
    name = (body if key == -1 else body[:key]).strip()
    if not name or any(c.isspace() or c in "<>{}" for c in name):
        return None
    args = {} if key == -1 else _pairs(body, key)
    if args is None:
        return None
    return Candidate(name=name, arguments=args, raw=raw, dialect="k2_horizon")


class _K2Horizon(Dialect):
    name = "k2_horizon"
    markers = (CALL_BEGIN,)
    owns = (CALL_BEGIN, GROUP_BEGIN)
    call_wrappers = ((CALL_BEGIN, CALL_END),)  # a reasoning tag in a value is the value's text

    @total
    def parse(self, text: str) -> ParseResult:
        # On a long reply asked where the `|` stands (see _seen.finder); below TWO_WAY, no call between.
        reasons = text.find("ifm|think") if len(text) < TWO_WAY else locate(text, "ifm|think")
        think = _think_regions(text) if reasons != -1 else []
        groups = [(g.start, g.end) for g in iter_blocks(text, GROUP_BEGIN, GROUP_END) if g.closed]
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        gi = ti = 0
        group_calls: list[Candidate] = []
        group_ok = True
        for blk in iter_blocks(text, CALL_BEGIN, CALL_END):
            while ti < len(think) and think[ti][1] <= blk.start:
                ti += 1
            if ti < len(think) and think[ti][0] <= blk.start:
                continue  # quoted in reasoning
            while gi < len(groups) and groups[gi][1] <= blk.start:
                if group_ok and group_calls:
                    cands.extend(group_calls)
                    spans.append(groups[gi])
                group_calls, group_ok = [], True
                gi += 1
            in_group = gi < len(groups) and groups[gi][0] <= blk.start
            cand = _call(text[blk.body_start : blk.body_end], text[blk.start : blk.end]) if blk.closed else None
            if in_group:
                group_ok = group_ok and cand is not None
                if cand is not None:
                    group_calls.append(cand)
            elif cand is not None:
                cands.append(cand)
                spans.append((blk.start, blk.end))
        if gi < len(groups) and group_ok and group_calls:
            cands.extend(group_calls)
            spans.append(groups[gi])
        if not cands:
            return [], text
        spans.sort()
        return cands, remove_spans(text, spans)


K2_HORIZON = _K2Horizon()
