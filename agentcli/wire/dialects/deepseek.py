"""DeepSeek tool-call dialects: V3 / R1, V3.1 and the V3.2 DSML markup.

V3   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{..}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
V3.1 <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{..}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
V3.2 <｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>
     </｜DSML｜invoke></｜DSML｜function_calls>
The tokens use FULLWIDTH VERTICAL LINE (U+FF5C) and LOWER ONE EIGHTH BLOCK (U+2581).
V3 and V3.1 share one call parser: the text before the separator tells the layouts apart.
A whole call block the tokens close but whose name cannot be read (no separator, no name) is
reported malformed, never run: its markup is not prose.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import (
    INVALID,
    Block,
    ParseResult,
    attr_value,
    iter_blocks,
    json_object_complete,
    loads,
    parse_sections,
    remove_spans,
    section_calls,
    skip_ws,
    tag_params,
    total,
)
from agentcli.wire.types import Candidate

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
# Result tokens of the chat template: a model echoing a result writes them around plain text, which
# stays visible while the tokens go (they are this family's markup, never the user's words).
OUTPUT_TOKENS = ("<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>")


def _strip_output_tokens(text: str) -> str:
    for token in OUTPUT_TOKENS:
        text = text.replace(token, "")
    return text

DSML = "｜DSML｜"
FC_BEGIN = f"<{DSML}function_calls>"
FC_END = f"</{DSML}function_calls>"
INVOKE_BEGIN = f"<{DSML}invoke"
INVOKE_END = f"</{DSML}invoke>"


def _ascii(token: str) -> str:
    return token.replace("｜", "|")


_ASCII_TOKEN = re.compile(r"<\|(tool▁[a-z▁]{1,24})\|>")


def _strip_fence(args: str) -> tuple[str, bool]:
    """Remove a ```json ... ``` fence around arguments; (args, fence_closed)."""
    s = args.strip()
    if not s.startswith("```"):
        return s, True
    nl = s.find("\n")
    head = s[3:nl if nl != -1 else len(s)].strip()
    if head not in ("", "json", "JSON"):
        return s, True
    body = s[nl + 1 :] if nl != -1 else ""
    close = body.rfind("```")
    if close == -1:
        return body.strip(), False
    return body[:close].strip(), True


def _parse_call(body: str, raw: str, dialect: str, closed: bool) -> Candidate | None:
    """One `<｜tool▁call▁begin｜>` body in either the V3 or the V3.1 layout."""
    sep = body.find(SEP)
    if sep == -1:
        if not closed:
            return None
        # A whole call block with no separator: the tokens say it is a call, but which part is the
        # name is a guess. Reported as malformed (never executed), and its markup is not prose.
        head = body[: body.find("{")] if "{" in body else body
        name = head.strip() if not any(c in head for c in "<>\n") else ""
        return Candidate(name=name, arguments=None, raw=raw, dialect=dialect,
                         error="malformed tool call (no separator between the name and the arguments)")
    head, rest = body[:sep].strip(), body[sep + len(SEP) :]
    if head == "function" or head == "":
        # V3: NAME on the first line, arguments in a ```json fence below it.
        nl = rest.find("\n")
        if nl == -1:
            name, args = rest.strip(), ""
        else:
            name, args = rest[:nl].strip(), rest[nl + 1 :]
    else:
        name, args = head, rest
    args, _ = _strip_fence(args)
    if not name or any(c in name for c in "<>\n{"):
        if not closed:
            return None
        return Candidate(name="", arguments=None, raw=raw, dialect=dialect,
                         error="malformed tool call (no function name before the arguments)")
    if not closed and not json_object_complete(args):
        return None  # cut off inside the arguments
    return Candidate(name=name, arguments=args or "{}", raw=raw, dialect=dialect)


class _DeepSeekTokens(Dialect):
    """V3 / V3.1: section and call tokens around a function name and JSON arguments."""

    # The tokens also arrive spelled with ASCII bars (`<|tool▁calls▁begin|>`) when a server or a
    # tokenizer round trip normalises the full-width ones: the same tokens, read the same way.
    markers = (CALLS_BEGIN, CALL_BEGIN, _ascii(CALLS_BEGIN), _ascii(CALL_BEGIN), *OUTPUT_TOKENS)
    owns = markers

    def __init__(self, name: str) -> None:
        self.name = name

    @total
    def parse(self, text: str) -> ParseResult:
        orig = text
        if "<|tool▁" in text:  # same length per token: positions in the copy are positions in the text
            text = _ASCII_TOKEN.sub(lambda m: f"<｜{m.group(1)}｜>", text)
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        sections = list(iter_blocks(text, CALLS_BEGIN, CALLS_END))
        regions = [(s.start, s.body_start, s.body_end, s.end) for s in sections]
        if not regions:  # calls written without the section token
            regions = [(-1, 0, len(text), -1)]
        for sec_start, body_start, body_end, sec_end in regions:
            found: list[Candidate] = []
            first = last = -1
            for blk in iter_blocks(text, CALL_BEGIN, CALL_END, body_start, body_end):
                raw = orig[blk.start : blk.end]
                cand = _parse_call(text[blk.body_start : blk.body_end], raw, self.name, blk.closed)
                if cand is None:
                    continue
                found.append(cand)
                if sec_start == -1:
                    spans.append((blk.start, blk.end))
                first = blk.start if first == -1 else first
                last = blk.end
            if not found:
                continue
            cands.extend(found)
            if sec_start != -1:
                # The section token, every call and the end token go; text around them stays.
                end = sec_end if sec_end > last else last
                spans.append((sec_start, end))
        if not cands:
            return [], _strip_output_tokens(orig)
        return cands, _strip_output_tokens(remove_spans(orig, sorted(spans)))


_DSML_SECTIONS = (FC_BEGIN, f"<{DSML}tool_calls>")
_DSML_CLOSERS = (FC_END, f"</{DSML}tool_calls>")


def _dsml_args(body: str) -> dict | None:
    """Arguments of one invoke: JSON object, or DSML parameter tags typed by their string= flag."""
    stripped = body.strip()
    if stripped.startswith("{"):
        obj = loads(stripped)
        if isinstance(obj, dict):
            return obj
    params, complete = tag_params(
        body,
        f"<{DSML}parameter name=\"",
        '"',
        f"</{DSML}parameter>",
        alt_open_prefix='<parameter name="',
        alt_close_tag="</parameter>",
    )
    if not complete:
        return None
    args: dict = {}
    for name, attrs, value in params:
        if attr_value(attrs, "string") == "false":
            decoded = loads(value.strip())
            args[name] = value if decoded is INVALID else decoded
        else:
            args[name] = value
    return args


class _DeepSeekDSML(Dialect):
    """V3.2 / V4: XML-like DSML invoke/parameter tags; string="false" values are JSON.

    V3.2 wraps the invokes in function_calls, V4 in tool_calls. At long context V4 may drop the
    opening wrapper token: complete invokes outside any wrapper are still calls, and the orphan
    closing token after them goes with them.
    """

    def __init__(self, name: str, section: tuple[str, str]) -> None:
        self.name = name
        self.section = section
        self.markers = (section[0], INVOKE_BEGIN)
        self.owns = (section[0],)  # the wrapper tells V3.2 from V4; the invoke tags are shared

    @total
    def parse(self, text: str) -> ParseResult:
        cands, rest = parse_sections(text, self.section, (INVOKE_BEGIN, INVOKE_END), self._invoke)
        if cands or any(opener in text for opener in _DSML_SECTIONS):
            return cands, rest  # a wrapper is there: bare invokes are not this version's to recover
        # No opening wrapper at all: read the bare invokes.
        found, last = section_calls(text, (INVOKE_BEGIN, INVOKE_END), 0, len(text), self._invoke)
        if not found:
            return [], text
        spans: list[tuple[int, int]] = []
        pos = 0
        for cand in found:  # in text order: one forward pass
            at = text.find(cand.raw, pos)
            spans.append((at, at + len(cand.raw)))
            pos = at + len(cand.raw)
        tail = skip_ws(text, last)
        for closer in _DSML_CLOSERS:  # the orphan closing token of either version
            if text.startswith(closer, tail):
                spans.append((last, tail + len(closer)))
                break
        return found, remove_spans(text, spans)

    def _invoke(self, text: str, blk: Block) -> Candidate | None:
        start, stop = blk.body_start, blk.body_end
        header_end = text.find(">", start, stop)
        if header_end == -1:
            return None
        name = attr_value(text[start:header_end], "name")
        if not name or not name.strip():
            return None
        if not blk.closed:
            return None  # no </invoke>: parameters may still have been coming
        body = text[header_end + 1 : stop]
        args = _dsml_args(body)
        if args is None:
            return None
        return Candidate(name=name.strip(), arguments=args, raw="", dialect=self.name)


DEEPSEEK_V3 = _DeepSeekTokens("deepseek_v3")
DEEPSEEK_V31 = _DeepSeekTokens("deepseek_v31")
DEEPSEEK_V32 = _DeepSeekDSML("deepseek_v32", (FC_BEGIN, FC_END))
DEEPSEEK_V4 = _DeepSeekDSML("deepseek_v4", (f"<{DSML}tool_calls>", f"</{DSML}tool_calls>"))
