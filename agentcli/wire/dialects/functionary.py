"""MeetKai Functionary v3 tool calls, in both of its layouts.

v3.2:          >>>get_weather\\n{"city": "Paris"}>>>get_time\\n{"tz": "UTC"}
               (`>>>all\\n` introduces plain text; `>>>python\\n` is followed by raw code)
v3.1 llama3.1: <function=get_weather>{"city": "Paris"}</function>
               <|python_tag|>print(1)   (the python tool, code to the end of the text)
A `<function=NAME>` whose body is not JSON is the Qwen3-Coder XML form and is left alone.
"""

from __future__ import annotations

from collections.abc import Callable

from agentcli.wire.dialects._base import Dialect
from agentcli.wire.dialects._scan import ParseResult, decode_json_at, remove_spans, skip_ws, total
from agentcli.wire.dialects._seen import SHORT, finder
from agentcli.wire.types import Candidate

V32 = ">>>"
_ALL = "all\n"
FUNC_OPEN, FUNC_CLOSE = "<function=", "</function>"
PYTHON_TAG = "<|python_tag|>"
_NAME_MAX = 128

Found = list[tuple[tuple[int, int], Candidate]]


_CODE_CHECK = 20_000  # longer code after a mid-sentence tag is not parsed to check it


def _python_code(code: str) -> bool:
    """`code` parses as Python (checked only where the tag stands mid-sentence, and only so far)."""
    import ast
    import warnings

    if len(code) > _CODE_CHECK:
        return False
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(code.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _ident(s: str) -> bool:
    """A recipient name: letters, digits and `_-.`, a dot or a dash only inside (`ns.tool`): a line
    of prose such as `Checking.` before a bare JSON call is not a name."""
    return bool(s) and all(c.isalnum() or c in "_-." for c in s) and s[0] not in ".-" and s[-1] not in ".-"


class _Functionary(Dialect):
    name = "functionary"
    # v3.2's prompt ends with `>>>`, so the output opens with the recipient alone: `all\n` then
    # the answer, or a bare `NAME\n{json}` call. `\n{` and `all\n` let those reach parse(),
    # which takes a bare opening only when the whole output is calls, or is the `all` channel.
    markers = (V32, FUNC_OPEN, PYTHON_TAG, "\n{", _ALL)

    @total
    def parse(self, text: str) -> ParseResult:
        found: Found = []
        # Its tokens looked for where their rare character stands on a long text (a plain search of
        # `>>>` walks 100 KB holding no `>` at over a nanosecond a character); text.find on a short one.
        find = finder(text, SHORT)
        text_marks = self._v32(text, found, find)
        self._v31(text, found, find)
        found.sort(key=lambda item: item[0][0])
        spans = [span for span, _ in found] + text_marks
        return [cand for _, cand in found], remove_spans(text, spans) if spans else text

    def _v32(self, text: str, found: Found, find: Callable[..., int]) -> list[tuple[int, int]]:
        """`>>>NAME\\n{json}` calls into `found`; returns the `>>>all\\n` header spans."""
        text_marks: list[tuple[int, int]] = []
        # (position of `>>>`, or -1 for a first call written without it; name start)
        heads: list[tuple[int, int]] = [] if text.startswith(V32) else [(-1, 0)]
        pos = 0
        while (at := find(V32, pos)) != -1:
            heads.append((at, at + len(V32)))
            pos = at + len(V32)
        for mark, h in heads:
            nl = text.find("\n", h, h + _NAME_MAX)
            if nl == -1:
                continue
            fname = text[h:nl].strip()
            if fname == "all":  # the text channel's header is markup, with or without its `>>>`
                text_marks.append((max(mark, 0), nl + 1))
                continue
            if not _ident(fname):
                continue
            start = h if mark == -1 else mark
            got = decode_json_at(text, nl + 1)
            if got is not None and isinstance(got[0], dict):
                end = got[1]
                rest = skip_ws(text, end)
                if mark == -1 and rest < len(text) and not text.startswith(V32, rest):
                    continue  # a bare `word\n{...}` opening is a call only if nothing but calls follow
                args = text[skip_ws(text, nl + 1) : end]
                found.append(((start, end), Candidate(name=fname, arguments=args, raw=text[start:end],
                                                      dialect=self.name)))
            elif fname == "python" and mark != -1:
                nxt = find(V32, nl + 1)
                end = len(text) if nxt == -1 else nxt
                found.append(((start, end), Candidate(name="python", arguments={"code": text[nl + 1 : end]},
                                                      raw=text[start:end], dialect=self.name)))
        return text_marks

    def _v31(self, text: str, found: Found, find: Callable[..., int]) -> None:
        """`<function=NAME>{json}</function>` and `<|python_tag|>code` calls into `found`."""
        pos = 0
        while (at := find(FUNC_OPEN, pos)) != -1:
            pos = at + len(FUNC_OPEN)
            gt = text.find(">", pos, pos + _NAME_MAX)
            if gt == -1 or not _ident(text[pos:gt]):
                continue
            got = decode_json_at(text, gt + 1)
            if got is None or not isinstance(got[0], dict):
                continue
            end = got[1]
            k = skip_ws(text, end)
            if text.startswith(FUNC_CLOSE, k):
                end = k + len(FUNC_CLOSE)
            args = text[skip_ws(text, gt + 1) : got[1]]
            found.append(((at, end), Candidate(name=text[pos:gt], arguments=args, raw=text[at:end],
                                               dialect=self.name)))
            pos = end
        tag = find(PYTHON_TAG)
        if tag != -1 and text[tag + len(PYTHON_TAG) :].strip():
            code = text[tag + len(PYTHON_TAG) :]
            first = skip_ws(code, 0)
            if code.startswith("{", first) and decode_json_at(code, first) is not None:
                return  # `<|python_tag|>{json}` is Llama 3's JSON call form, not code for the python tool
            if text[text.rfind("\n", 0, tag) + 1 : tag].strip() and not _python_code(code):
                return  # the tag named inside a sentence, not followed by code
            found.append(((tag, len(text)), Candidate(name="python", arguments={"code": code},
                                                      raw=text[tag:], dialect=self.name)))


FUNCTIONARY = _Functionary()
