"""GLM-4.5 / 4.6 / 4.7 tool calls: a name line and <arg_key>/<arg_value> pairs in <tool_call>.

<tool_call>get_weather
<arg_key>city</arg_key>
<arg_value>Beijing</arg_value>
</tool_call>
Values are written as text (JSON for non-strings), so candidates carry text_values.
A `<tool_call>` whose body starts with `{` is Hermes JSON, not this dialect. A whole call whose
pairs do not pair up (a key with no value) is reported malformed: its markup is not prose.
A call the output ended inside is truncated (never run) unless it was cut only after a whole
pair or right after its name; one cut inside its first key's tag had arguments still to come.
"""

from __future__ import annotations

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, iter_blocks, remove_spans, skip_ws, total
from agentcli.wire.types import Candidate

BEGIN, END = "<tool_call>", "</tool_call>"
KEY_OPEN, KEY_CLOSE = "<arg_key>", "</arg_key>"
VAL_OPEN, VAL_CLOSE = "<arg_value>", "</arg_value>"


def parse_pairs(body: str, *, strict: bool = False, tags: tuple[str, str, str, str] | None = None) -> dict[str, str] | None:
    """`<arg_key>k</arg_key><arg_value>v</arg_value>` pairs; None when a pair is malformed.

    GLM-4.6 sometimes drops a value's open or close tag (Ollama repairs the same slips): a value
    left open ends at the next `<arg_key>` or the end of the call, and one whose open tag is missing
    starts right after its key when its close tag comes before the next key. With `strict` (a call
    cut off at the end of the output) every value must be closed. `tags` names the four tags when a
    family writes them under its own names (LongCat's `<longcat_arg_key>`).
    """
    key_open, key_close, val_open, val_close = tags or (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE)
    args: dict[str, str] = {}
    pos = 0
    n = len(body)
    while True:
        k = body.find(key_open, pos)
        if k == -1:
            return args
        ke = body.find(key_close, k)
        if ke == -1:
            return None
        key = body[k + len(key_open) : ke].strip()
        if not key or "\n" in key or key_open in key:
            return None
        start = _skip_layout(body, ke + len(key_close))
        nxt = body.find(key_open, start)
        stop = n if nxt == -1 else nxt
        close = body.find(val_close, start, stop)
        if body.startswith(val_open, start):
            start += len(val_open)
            if close == -1:
                if strict:
                    return None
                args[key] = body[start:stop].rstrip()  # left open: ends at the next key
                pos = stop
                continue
        elif close == -1:
            return None  # neither tag: prose after a key, not a value
        args[key] = body[start:close]
        pos = close + len(val_close)


def _skip_layout(body: str, pos: int) -> int:
    """Past the whitespace (and literal `\\n`) templates put between a key and its value."""
    while True:
        q = skip_ws(body, pos)
        if body.startswith("\\n", q):
            pos = q + 2
            continue
        return q


def split_name(body: str) -> tuple[str, str] | None:
    """(name, rest) of a call body: the name ends at a newline, a literal `\\n` or the first tag."""
    stripped = body.lstrip()
    if not stripped or stripped[0] in "{[<\"":
        return None
    cut = len(stripped)
    for stop in ("\n", "\\n", "<"):
        i = stripped.find(stop)
        if i != -1 and i < cut:
            cut = i
    name = stripped[:cut].strip()
    if not name or any(c.isspace() for c in name) or any(c in name for c in '{}"\'=>'):
        return None
    if not stripped[cut:].strip() and "\n" not in body and body != body.strip():
        return None  # ` and ` between the two tags: prose naming the markup, not a call with no arguments
    return name, stripped[cut:]


class _Glm4Moe(Dialect):
    name = "glm4_moe"
    markers = (BEGIN,)
    owns = ("<arg_key>",)

    @total
    def parse(self, text: str) -> ParseResult:
        cands: list[Candidate] = []
        spans: list[tuple[int, int]] = []
        for blk in iter_blocks(text, BEGIN, END):
            cut = not blk.closed
            if cut and blk.body_end < len(text):
                continue  # no </tool_call> before the next call: more pairs may have been coming
            body = text[blk.body_start : blk.body_end]
            if cut:
                body = _without_cut_close(body)
            parts = split_name(body)
            if parts is None:
                continue
            name, rest = parts
            args = parse_pairs(rest, strict=cut)
            if args is None:
                if cut:  # cut off mid-value: not a call, and its markup is not prose either
                    cands.append(Candidate(name=name, arguments=None, raw=text[blk.start :], dialect=self.name,
                                           error="truncated tool call (output ended inside it)"))
                    spans.append((blk.start, len(text)))
                else:  # a whole call with a key that has no value: reported malformed, never run
                    cands.append(Candidate(name=name, arguments=None, raw=text[blk.start : blk.end],
                                           dialect=self.name, error="malformed tool call (a key without its value)"))
                    spans.append((blk.start, blk.end))
                continue
            leftover = rest
            for tag in (KEY_OPEN, KEY_CLOSE, VAL_OPEN, VAL_CLOSE):
                leftover = leftover.replace(tag, "")
            tail = leftover.replace("\\n", "").strip()
            if cut and not args and tail and KEY_OPEN.startswith(tail):
                # cut off inside the first key's tag: its arguments were still to come, so it is no
                # call, and its markup is not prose either
                cands.append(Candidate(name=name, arguments=None, raw=text[blk.start :], dialect=self.name,
                                       error="truncated tool call (output ended inside it)"))
                spans.append((blk.start, len(text)))
                continue
            if not args and tail:
                continue  # a name line followed by prose, not a call
            # Cut off after a whole pair (the close tag never came): Ollama's rule, a call only when
            # it names an offered tool with its required arguments (the pipeline checks).
            cands.append(Candidate(name=name, arguments=args, raw=text[blk.start : blk.end],
                                   dialect=self.name, text_values=True, cut_off=cut))
            spans.append((blk.start, blk.end))
        if not cands:
            return [], text
        return cands, remove_spans(text, spans)


def _without_cut_close(body: str) -> str:
    """`body` without a close tag cut off at its very end (`</tool_`)."""
    at = body.rfind("</")
    if at != -1 and END.startswith(body[at:]):
        return body[:at]
    return body


GLM4_MOE = _Glm4Moe()
