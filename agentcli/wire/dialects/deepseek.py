"""DeepSeek tool-call dialects: V3 / R1, V3.1 and the V3.2 DSML markup.

V3   <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\\n```json\\n{..}\\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>
V3.1 <｜tool▁calls▁begin｜><｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{..}<｜tool▁call▁end｜><｜tool▁calls▁end｜>
V3.2 <｜DSML｜function_calls><｜DSML｜invoke name="NAME"><｜DSML｜parameter name="k" string="true">v</｜DSML｜parameter>
     </｜DSML｜invoke></｜DSML｜function_calls>
V4   the same tags in <｜DSML｜tool_calls>
V4.1 <｜DSML｜ calls><｜DSML｜ invoke name="NAME"><｜DSML｜ parameter ...>v</｜DSML｜ parameter></｜DSML｜ invoke></｜DSML｜ calls>
The tokens use FULLWIDTH VERTICAL LINE (U+FF5C) and LOWER ONE EIGHTH BLOCK (U+2581).
V3 and V3.1 share one call parser: the text before the separator tells the layouts apart.
A whole call block the tokens close but whose name cannot be read (no separator, no name) is
reported malformed, never run: its markup is not prose.
"""

from __future__ import annotations

import re

from agentcli.wire.dialects._base import MAX_CALLS, Dialect
from agentcli.wire.dialects._callscan import SCAN_ONCE, fences
from agentcli.wire.dialects._scan import (
    INVALID,
    Block,
    ParseResult,
    attr_value,
    find_cached,
    find_first,
    iter_blocks,
    json_object_complete,
    loads,
    remove_spans,
    section_calls,
    skip_ws,
    tag_params,
    total,
)
from agentcli.wire.dialects._seen import holds
from agentcli.wire.types import Candidate

CALLS_BEGIN = "<｜tool▁calls▁begin｜>"
CALLS_END = "<｜tool▁calls▁end｜>"
CALL_BEGIN = "<｜tool▁call▁begin｜>"
CALL_END = "<｜tool▁call▁end｜>"
SEP = "<｜tool▁sep｜>"
# Result tokens of the chat template: a model echoing a result writes them around plain text, which
# stays visible while the tokens go (they are this family's markup, never the user's words).
OUTPUT_TOKENS = ("<｜tool▁outputs▁begin｜>", "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>")


# The end-of-sentence token closes the assistant turn after its calls when the server leaves the stop
# token in the text (it ends the template's assistant message): markup, never text.
EOS = "<｜end▁of▁sentence｜>"


_OUTPUT = "<｜tool▁output"  # what every result token starts with


def _strip_output_tokens(text: str) -> str:
    if not text or not holds(text, _OUTPUT):  # most replies hold none: one look, not one per token
        return text
    for token in OUTPUT_TOKENS:
        if holds(text, token):  # a look where its rare character stands, no copy
            text = text.replace(token, "")
    return text


def _strip_eos(text: str) -> str:
    """`text` without the end-of-sentence token that ends it (the text copied only when it ends in
    whitespace, which the token may stand before)."""
    if not text:
        return text
    if text[-1] == EOS[-1]:
        return text[: -len(EOS)] if text.endswith(EOS) else text
    if not text[-1].isspace():
        return text
    end = text.rstrip()
    return end[: -len(EOS)] if end.endswith(EOS) else text

DSML = "｜DSML｜"
FC_BEGIN = f"<{DSML}function_calls>"
FC_END = f"</{DSML}function_calls>"


def _ascii(token: str) -> str:
    return token.replace("｜", "|")


_ASCII_TOKEN = re.compile(r"<\|(tool▁[a-z▁]{1,24})\|>")


def _stripped(text: str, a: int, b: int) -> tuple[int, int]:
    """The bounds of text[a:b].strip() (the same whitespace: str.isspace)."""
    while a < b and text[a].isspace():
        a += 1
    while b > a and text[b - 1].isspace():
        b -= 1
    return a, b


def _fenced_args(text: str, a: int, b: int) -> str:
    """text[a:b] stripped, without a ```json ... ``` fence around it."""
    return text[slice(*_fenced_bounds(text, a, b))]


def _fenced_bounds(text: str, a: int, b: int) -> tuple[int, int]:
    """The bounds of _fenced_args' text, worked out without a copy: a 100 KB argument is copied at
    most once, not once per step (each copy of that size costs more in fresh memory than the scan
    that finds its bounds), and not at all when it decodes in place (_in_place)."""
    if a < b and (text[a].isspace() or text[b - 1].isspace()):  # the walk only where there is some
        a, b = _stripped(text, a, b)
    if not text.startswith("```", a, b):
        return a, b
    nl = text.find("\n", a, b)
    head = text[a + 3 : nl if nl != -1 else b]
    if head not in ("json", "", "JSON") and head.strip() not in ("", "json", "JSON"):
        return a, b
    if nl == -1:
        return a, a
    close = _last_fence_in(text, nl + 1, b)
    return _stripped(text, nl + 1, b if close == -1 else close)


def _in_place(text: str, a: int, b: int) -> dict | str:
    """The arguments text[a:b]: decoded where they stand when they are one clean JSON object, else
    the text. The reply holds the full-width tokens, so CPython stores it two bytes a character: a
    slice of a long argument is a scan to narrow it and a copy, as much as a third of the decode.
    Read in place by json's own scanner, the object is the one json.loads of the slice gives (the
    bounds are stripped, so the object must end at `b`); anything else, an error included (too deep,
    too long a number, broken), goes on as text and is decoded, bounded and repaired as before."""
    if b - a < 2 or text[a] != "{":
        return text[a:b]
    try:
        value, end = SCAN_ONCE(text, a)
    except (ValueError, RecursionError, StopIteration):  # StopIteration: a value missing inside
        return text[a:b]
    return value if end == b and type(value) is dict else text[a:b]


def _last_fence(body: str) -> int:
    """body.rfind("```"): see _last_fence_in."""
    return _last_fence_in(body, 0, len(body))


def _last_fence_in(text: str, a: int, b: int) -> int:
    """text.rfind("```", a, b): the last backtick found from the end (a memrchr) closes it when the
    two before it are backticks too, as they are after a fenced argument; else the plain search."""
    last = text.rfind("`", a, b)
    if last == -1 or last - a < 2:
        return -1
    if text.startswith("```", last - 2, b):
        return last - 2
    return text.rfind("```", a, last)


# What every call token starts with, and the one character of it that prose never holds.
_LEAD = "<｜tool▁"
_KEY = "▁"
_KEY_AT = _LEAD.index(_KEY)


def _usual(text: str, orig: str, dialect: str) -> ParseResult | None:
    """The reply in its usual shape, read by a walk from one `▁` to the next; None for any other.

    The shape: no token before one section, which holds only calls (each a call token, a separator
    and its end token) and closes; after it, no call token. The reply holds the full-width tokens,
    so CPython stores it two bytes a character, and the full path's searches for many-character
    tokens (the next section, the section's end, the next call, the call's end) each walk a long
    argument a character at a time. Every token those searches look for holds `▁` at the same place
    (which prose does not hold), so a memchr from one `▁` to the next finds each token the searches
    would, in order, and when each is the one the shape expects their answers are known: the calls,
    their raw text and the text left are the full path's (a property test holds the two together).
    A token spelled with ASCII bars holds `▁` at the same place: met before the section's end it
    sends the reply the full way, and after it so does any token, so the reply read here is one the
    full path's respelling of those tokens would leave as it is.
    """
    find, starts = text.find, text.startswith
    i = find(_KEY, _KEY_AT)
    if i == -1 or not starts(CALLS_BEGIN, i - _KEY_AT):
        return None
    sec = i - _KEY_AT
    pos = sec + len(CALLS_BEGIN)
    cands: list[Candidate] = []
    while True:
        i = find(_KEY, pos + _KEY_AT)
        if i == -1:
            return None  # cut off: the full path reads what it can
        at = i - _KEY_AT
        if starts(CALLS_END, at):
            break
        if not starts(CALL_BEGIN, at):
            return None
        body = at + len(CALL_BEGIN)
        pos = body
        while True:  # separators, then the call's end token
            i = find(_KEY, pos + _KEY_AT)
            if i == -1:
                return None
            end = i - _KEY_AT
            if starts(CALL_END, end):
                break
            if not starts(SEP, end):
                return None
            pos = end + len(SEP)
        pos = end + len(CALL_END)
        cand = _parse_call(text, body, end, orig[at:pos], dialect, True)
        if cand is None:
            return None
        cands.append(cand)
    stop = at + len(CALLS_END)
    if not cands or (find(_KEY, stop) != -1 and "tool▁" in text[stop:]):
        return None  # no call in it, or call tokens after it (either spelling): the full path decides
    return cands, _strip_eos(_strip_output_tokens(orig[:sec] + orig[stop:]))


def _parse_call(text: str, start: int, end: int, raw: str, dialect: str, closed: bool,
                src: str | None = None) -> Candidate | None:
    """One `<｜tool▁call▁begin｜>` body, text[start:end], in either the V3 or the V3.1 layout. `src`:
    the reply as written, when `text` is a copy with its tokens respelled (the same positions): the
    tokens are found in the copy, the arguments read as written (a token spelled with ASCII bars
    in a string value is the value's text, not respelled)."""
    src = text if src is None else src
    sep = text.find(SEP, start, end)
    if sep == -1:
        if not closed:
            return None
        # A whole call block with no separator: the tokens say it is a call, but which part is the
        # name is a guess. Reported as malformed (never executed), and its markup is not prose.
        body = text[start:end]
        head = body[: body.find("{")] if "{" in body else body
        name = head.strip() if not any(c in head for c in "<>\n") else ""
        return Candidate(name=name, arguments=None, raw=raw, dialect=dialect,
                         error="malformed tool call (no separator between the name and the arguments)")
    head, rest = text[start:sep].strip(), sep + len(SEP)
    if head == "function" or head == "":
        # V3: NAME on the first line, arguments in a ```json fence below it.
        nl = text.find("\n", rest, end)
        if nl == -1:
            name, a, b = text[rest:end].strip(), end, end
        else:
            name, (a, b) = text[rest:nl].strip(), _fenced_bounds(text, nl + 1, end)
    else:
        name, (a, b) = head, _fenced_bounds(text, rest, end)
    if not name or "<" in name or ">" in name or "\n" in name or "{" in name:
        if not closed:
            return None
        return Candidate(name="", arguments=None, raw=raw, dialect=dialect,
                         error="malformed tool call (no function name before the arguments)")
    if not closed:
        args = src[a:b]
        if not json_object_complete(args):
            return None  # cut off inside the arguments
        return Candidate(name=name, arguments=args or "{}", raw=raw, dialect=dialect)
    return Candidate(name=name, arguments=_in_place(src, a, b) or "{}", raw=raw, dialect=dialect)


def _lane(text: str, dialect: str) -> ParseResult | None:
    """The usual reply read from the raw text (Dialect.lane): one section opening at the first call
    token, each call a call token, a separator, the name (on its own line with a ```json fence in
    V3) and one JSON object decoded in place, then only whitespace and the fence's close up to the
    call's end token; whitespace between tokens (JSON's four kinds: any other sends the reply the
    full way, whose strip takes more). Past each object the next token must stand right
    there, so the walk never searches a long argument: the decoder reads it once, and a marker
    quoted in one of its strings is read as text, where the full path's searches need the mask.
    None for anything else (the full path reads it)."""
    find, starts = text.find, text.startswith
    i = find(_KEY, _KEY_AT)
    if i == -1 or not starts(CALLS_BEGIN, i - _KEY_AT):
        return None
    if "|" in text and holds(text, "<|tool▁"):
        return None  # a token spelled with ASCII bars: the full path respells them all, strings too
    sec = i - _KEY_AT
    pos = skip_ws(text, sec + len(CALLS_BEGIN))
    cands: list[Candidate] = []
    while starts(CALL_BEGIN, pos):
        at, body = pos, pos + len(CALL_BEGIN)
        i = find(_KEY, body + _KEY_AT)
        sep = i - _KEY_AT
        if i == -1 or not starts(SEP, sep):
            return None
        head, pos = text[body:sep].strip(), sep + len(SEP)
        fenced = head == "function" or head == ""
        if fenced:  # V3: the name on its line, the arguments in a ```json fence below it
            nl = find("\n", pos)
            if nl == -1:
                return None
            head, pos = text[pos:nl].strip(), skip_ws(text, nl + 1)
            if not starts("```", pos):
                return None
            nl = find("\n", pos)
            if nl == -1 or text[pos + 3 : nl].strip() not in ("json", "", "JSON"):
                return None
            pos = nl + 1
        pos = skip_ws(text, pos)
        if not starts("{", pos):
            return None
        try:
            value, pos = SCAN_ONCE(text, pos)
        except (ValueError, RecursionError, StopIteration):
            return None
        if type(value) is not dict:
            return None
        pos = skip_ws(text, pos)
        if fenced:
            if not starts("```", pos):
                return None
            pos = skip_ws(text, pos + 3)
        if not starts(CALL_END, pos):
            return None
        pos += len(CALL_END)
        cands.append(Candidate(name=head, arguments=value, raw=text[at:pos], dialect=dialect))
        if len(cands) >= MAX_CALLS:
            return None  # a flood: the full path keeps the first MAX_CALLS (no need to read on)
        pos = skip_ws(text, pos)
    if not cands or not starts(CALLS_END, pos):
        return None
    return cands, _strip_eos(text[:sec] + text[pos + len(CALLS_END) :])


class _DeepSeekTokens(Dialect):
    """V3 / V3.1: section and call tokens around a function name and JSON arguments."""

    # The tokens also arrive spelled with ASCII bars (`<|tool▁calls▁begin|>`) when a server or a
    # tokenizer round trip normalises the full-width ones: the same tokens, read the same way.
    markers = (CALLS_BEGIN, CALL_BEGIN, _ascii(CALLS_BEGIN), _ascii(CALL_BEGIN), *OUTPUT_TOKENS)
    owns = markers
    empty_lists = ((CALLS_BEGIN, CALLS_END), (_ascii(CALLS_BEGIN), _ascii(CALLS_END)))
    section_openers = (CALLS_BEGIN,)
    # (either spelling: a call token quoted in a string value is hidden from the reader in both)
    call_wrappers = ((CALL_BEGIN, CALL_END), (_ascii(CALL_BEGIN), _ascii(CALL_END)))

    def __init__(self, name: str) -> None:
        self.name = name

    def lane(self, text: str) -> ParseResult | None:
        return _lane(text, self.name)

    @total
    def parse(self, text: str) -> ParseResult:
        orig = text
        usual = _usual(text, orig, self.name)  # it takes no token spelled with ASCII bars (see there)
        if usual is not None:
            return usual
        # Same length per token: positions in the copy are positions in the text. An ASCII bar first
        # (a memchr): the full-width tokens hold the token's rarest character too, so asked at once
        # the needle is checked at each of them.
        if "|" in text and holds(text, "<|tool▁"):
            text = _ASCII_TOKEN.sub(lambda m: f"<｜{m.group(1)}｜>", text)
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        regions = [(s.start, s.body_start, s.body_end, s.end) for s in iter_blocks(text, CALLS_BEGIN, CALLS_END)]
        if not regions:  # calls written without the section token
            regions = [(-1, 0, len(text), -1)]
        for sec_start, body_start, body_end, sec_end in regions:
            found: list[Candidate] = []
            first = last = -1
            for blk in iter_blocks(text, CALL_BEGIN, CALL_END, body_start, body_end):
                raw = orig[blk.start : blk.end]
                cand = _parse_call(text, blk.body_start, blk.body_end, raw, self.name, blk.closed, orig)
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
        return cands, _strip_eos(_strip_output_tokens(remove_spans(orig, sorted(spans))))


def _dsml_args(body: str, tag: str = DSML) -> dict | None:
    """Arguments of one invoke: JSON object, or DSML parameter tags typed by their string= flag."""
    stripped = body.strip()
    if stripped.startswith("{"):
        obj = loads(stripped)
        if isinstance(obj, dict):
            return obj
    params, complete = tag_params(
        body,
        f"<{tag}parameter name=\"",
        '"',
        f"</{tag}parameter>",
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


def _quoted(text: str) -> list[tuple[int, int]]:
    """Regions quoting the markup as an example: fenced code blocks, and an inline code span that
    opens right before a DSML tag (`<｜DSML｜...`), in text order."""
    spans = [(f[0], f[1]) for f in fences(text)]
    token = "`<" + DSML
    pos = text.find(token)
    while pos != -1:
        close = text.find("`", pos + 1)
        close = len(text) if close == -1 else close + 1
        spans.append((pos, close))
        pos = text.find(token, close)
    spans.sort()
    return spans


class _DeepSeekDSML(Dialect):
    """V3.2 / V4 / V4.1: XML-like DSML invoke/parameter tags; string="false" values are JSON.

    V3.2 wraps the invokes in function_calls, V4 in tool_calls, V4.1 in ` calls` with every tag
    name spaced from the DSML token (`<｜DSML｜ invoke name=..>`). At long context V4 may drop the
    opening wrapper token: complete invokes outside any wrapper are still calls, and the orphan
    closing token after them goes with them. The DSML token is a special token, never prose: a
    damaged wrapper (a line opening with it that is no known tag) right before the calls is markup
    and goes with them. Markup quoted in a fenced block or an inline code span is an example.
    """

    def __init__(self, name: str, section: tuple[str, str], tag: str = DSML,
                 others: tuple[tuple[str, str], ...] = ()) -> None:
        self.name = name
        self.section = section
        self.tag = tag
        self.invoke = (f"<{tag}invoke", f"</{tag}invoke>")
        self.sections = (section, *others)  # every wrapper of these tags: bare invokes are recovered only without one
        self.markers = (section[0], self.invoke[0])
        self.owns = (section[0],)  # the wrapper tells the versions apart; the invoke tags are shared
        self.section_openers = (section[0],)
        self.call_wrappers = (self.invoke,)
        self._known = (*(s[0] for s in self.sections), *(s[1] for s in self.sections), self.invoke[0],
                       self.invoke[1], f"<{tag}parameter", f"</{tag}parameter>")

    @total
    def parse(self, text: str) -> ParseResult:
        quoted = self._quoted(text) if ("```" in text or "~~~" in text or "`<" in text) else []
        if not quoted:
            return self._parse_plain(text)
        cands: list[Candidate] = []
        parts: list[str] = []
        pos = 0
        for a, b in [*quoted, (len(text), len(text))]:
            found, rest = self._parse_plain(text[pos:a]) if a > pos else ([], "")
            cands.extend(found)
            parts.append(rest)
            parts.append(text[a:b])
            pos = b
        return (cands, "".join(parts)) if cands else ([], text)

    def _quoted(self, text: str) -> list[tuple[int, int]]:
        """The quoting regions that open in prose (not inside a call, where a value may quote
        anything), merged; one forward pass over the DSML tags."""
        opens = (*(s[0] for s in self.sections), self.invoke[0], f"<{self.tag}parameter")
        closes = (*(s[1] for s in self.sections), self.invoke[1])
        out: list[tuple[int, int]] = []
        d = text.find(DSML)
        inside = False
        for a, b in _quoted(text):
            if out and a < out[-1][1]:
                out[-1] = (out[-1][0], max(b, out[-1][1]))  # overlapping quotes: one region
                continue
            while d != -1 and d < a:  # the calls state at `a`
                if d >= 2 and text.startswith(closes, d - 2):
                    inside = False
                elif d >= 1 and text.startswith(opens, d - 1):
                    gt = text.find(">", d, d + 512)
                    inside = not (gt > 0 and text[gt - 1] == "/")  # a self-closing invoke holds nothing
                d = text.find(DSML, d + len(DSML))
            if not inside:
                out.append((a, b))
        return out

    def _damaged(self, text: str) -> list[tuple[int, int]]:
        """Lines opening with the DSML token that are no known tag and stand right before calls."""
        spans: list[tuple[int, int]] = []
        openers = (self.section[0], self.invoke[0])
        token = "<" + DSML
        eol = -1
        i = text.find(token)
        while i != -1:
            j = i
            while j > 0 and text[j - 1] in " \t":
                j -= 1
            if (j == 0 or text[j - 1] == "\n") and not text.startswith(self._known, i):
                if eol < i:
                    eol = text.find("\n", i)
                    eol = len(text) if eol == -1 else eol
                if text.startswith(openers, skip_ws(text, eol)):
                    spans.append((i, eol))
            i = text.find(token, i + len(token))
        return spans

    def _parse_plain(self, text: str) -> ParseResult:
        damaged = self._damaged(text) if "<" + DSML in text else []
        src = remove_spans(text, damaged) if damaged else text
        cands, rest = self._parse_text(src)
        return (cands, _strip_eos(rest)) if cands else ([], text)

    def _sections(self, text: str) -> ParseResult:
        """Calls in the version's wrapper, walked invoke by invoke so that a wrapper token quoted in a
        parameter value does not cut the section; a section holding a call goes whole (up to its last
        call when its end token never comes)."""
        opener, closer = self.section
        inv_open, inv_close = self.invoke
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        cache: dict[str, int] = {}
        start = find_cached(text, opener, 0, cache)
        while start != -1:
            pos = start + len(opener)
            found: list[Candidate] = []
            last = end = -1
            while True:
                at, which = find_first(text, (inv_open, closer, opener), pos, cache)
                if which != inv_open:
                    if which == closer:
                        end = at + len(closer)
                    pos = at if which == opener else (len(text) if at == -1 else end)
                    break
                close = find_cached(text, inv_close, at, cache)
                gt = text.find(">", at, at + 512)
                if gt > 0 and text[gt - 1] == "/" and (close == -1 or gt < close):
                    blk = Block(at, at + len(inv_open), gt + 1, gt + 1, False)  # self-closing
                elif close == -1:
                    blk = Block(at, at + len(inv_open), len(text), len(text), False)
                else:
                    blk = Block(at, at + len(inv_open), close, close + len(inv_close), True)
                cand = self._invoke(text, blk)
                if cand is not None:
                    cand.raw = text[blk.start : blk.end]
                    found.append(cand)
                    last = blk.end
                pos = blk.end
                if close == -1 and blk.end == len(text):
                    break
            if found:
                cands.extend(found)
                spans.append((start, end if end > last else last))
            start = find_cached(text, opener, max(pos, start + 1), cache) if pos < len(text) else -1
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)

    def _parse_text(self, text: str) -> ParseResult:
        cands, rest = self._sections(text)
        if cands or any(s[0] in text for s in self.sections):
            return cands, rest  # a wrapper is there: bare invokes are not this version's to recover
        # No opening wrapper at all: read the bare invokes.
        found, last = section_calls(text, self.invoke, 0, len(text), self._invoke)
        if not found:
            return [], text
        spans: list[tuple[int, int]] = []
        pos = 0
        for cand in found:  # in text order: one forward pass
            gt = cand.raw.find(">")
            if gt > 0 and cand.raw[:gt].rstrip().endswith("/"):
                cand.raw = cand.raw[: gt + 1]  # a self-closing invoke ends at its header
            at = text.find(cand.raw, pos)
            spans.append((at, at + len(cand.raw)))
            pos = at + len(cand.raw)
        tail = skip_ws(text, last)
        for _, closer in self.sections:  # the orphan closing token of any version
            if text.startswith(closer, tail):
                spans.append((last, tail + len(closer)))
                break
        return found, remove_spans(text, spans)

    def _invoke(self, text: str, blk: Block) -> Candidate | None:
        start, stop = blk.body_start, blk.body_end
        header_end = text.find(">", start, stop)
        if header_end == -1:
            return None
        header = text[start:header_end]
        name = attr_value(header, "name")
        if not name or not name.strip():
            return None
        if header.rstrip().endswith("/"):  # `<invoke name="f"/>`: a call with no arguments
            return Candidate(name=name.strip(), arguments={}, raw="", dialect=self.name)
        if not blk.closed:
            return None  # no </invoke>: parameters may still have been coming
        body = text[header_end + 1 : stop]
        args = _dsml_args(body, self.tag)
        if args is None:
            return None
        return Candidate(name=name.strip(), arguments=args, raw="", dialect=self.name)


DEEPSEEK_V3 = _DeepSeekTokens("deepseek_v3")
DEEPSEEK_V31 = _DeepSeekTokens("deepseek_v31")
_V32_SECTION = (FC_BEGIN, FC_END)
_V4_SECTION = (f"<{DSML}tool_calls>", f"</{DSML}tool_calls>")
DEEPSEEK_V32 = _DeepSeekDSML("deepseek_v32", _V32_SECTION, others=(_V4_SECTION,))
DEEPSEEK_V4 = _DeepSeekDSML("deepseek_v4", _V4_SECTION, others=(_V32_SECTION,))
DEEPSEEK_V41 = _DeepSeekDSML("deepseek_v41", (f"<{DSML} calls>", f"</{DSML} calls>"), tag=f"{DSML} ")
