"""A small, quote-aware shell lexer for judging commands (not for running them).

shlex loses the difference between an operator and a quoted word (`;` vs `\\;`) and
does not see `$(...)`, backticks or process substitution, so judging needs its own
scanner. It splits a command into simple commands, pulls out every nested command
string, and raises ShellSyntaxError for anything it does not model; the judge then
asks instead of guessing.
"""

from __future__ import annotations

import re
from dataclasses import field

from agentcli.core.record import record

# Longest first: the scanner takes the first that matches.
OPERATORS = (";;&", "<<<", "<<-", "&>>", ";;", ";&", "&&", "||", "|&", ">>", "<<", "<&", ">&", "&>", "<>", ">|",
             ";", "&", "|", "(", ")", "<", ">")
SEPARATORS = frozenset({";", "&", "&&", "||", "|", "|&", "\n", "(", ")", ";;", ";&", ";;&"})
REDIRECTIONS = frozenset({"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "&>", "&>>", "<>", ">|"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPECIAL_PARAMS = frozenset("@*#?$!-0123456789")


class ShellSyntaxError(ValueError):
    """The command uses a form this lexer does not model (or is malformed)."""


@record
class Word:
    text: str  # the word after quote removal (substitutions kept as written)
    raw: str  # the source slice, quotes included
    dynamic: bool = False  # holds $VAR, $(...), `...`, <(...) or brace expansion: its value is unknown
    glob: bool = False


@record
class Op:
    text: str


@record
class Simple:
    """One simple command: its words and its redirections (operator, target)."""

    words: list[Word] = field(default_factory=list)
    redirects: list[tuple[str, Word]] = field(default_factory=list)
    function_def: bool = False


@record
class Lexed:
    tokens: list[Word | Op]
    subs: list[str]  # nested command strings: $(...), `...`, <(...), >(...)
    notes: list[str]  # constructs that keep the command from auto-approval


class _Scanner:
    def __init__(self, src: str) -> None:
        self.s = src
        self.n = len(src)
        self.tokens: list[Word | Op] = []
        self.subs: list[str] = []
        self.notes: list[str] = []
        self._buf: list[str] | None = None
        self._start = 0
        self._dyn = False
        self._glob = False
        self._heredocs: list[tuple[str, bool]] = []
        self._want_delim: bool | None = None  # strip-tabs flag of a `<<` waiting for its delimiter

    # -- word assembly --
    def _begin(self, i: int) -> list[str]:
        """Open a word at i unless one is open; return the buffer of the open word."""
        if self._buf is None:
            self._buf, self._start, self._dyn, self._glob = [], i, False, False
        return self._buf

    def _open(self) -> list[str]:
        """The buffer of the word being assembled; callers run only after `_begin`."""
        assert self._buf is not None, "no word is open"
        return self._buf

    def _end(self, i: int) -> None:
        if self._buf is None:
            return
        raw = self.s[self._start:i]
        word = Word("".join(self._buf), raw, self._dyn, self._glob)
        if "{" in raw and raw not in ("{", "{}") and not raw.startswith(("'", '"')):
            word.dynamic = True  # brace expansion: {rm,-rf,/} becomes three words
        self._buf = None
        if self._want_delim is not None:
            delim = word.text
            self._heredocs.append((delim, self._want_delim))
            self._want_delim = None
        self.tokens.append(word)

    # -- scanning --
    def run(self) -> Lexed:
        s, i = self.s, 0
        while i < self.n:
            c = s[i]
            if c in " \t":
                self._end(i)
                i += 1
            elif c == "\n":
                self._end(i)
                self.tokens.append(Op("\n"))
                i = self._skip_heredocs(i + 1)
            elif c == "\\":
                if i + 1 >= self.n:
                    raise ShellSyntaxError("trailing backslash")
                if s[i + 1] == "\n":
                    i += 2
                    continue
                self._begin(i).append(s[i + 1])
                i += 2
            elif c == "'":
                j = s.find("'", i + 1)
                if j < 0:
                    raise ShellSyntaxError("unbalanced single quote")
                self._begin(i).append(s[i + 1:j])
                i = j + 1
            elif c == '"':
                self._begin(i)
                i = self._dquote(i + 1)
            elif c == "$":
                self._begin(i)
                i = self._dollar(i)
            elif c == "`":
                self._begin(i)
                i = self._backtick(i)
            elif c in "<>" and i + 1 < self.n and s[i + 1] == "(" and self._buf is None:
                buf = self._begin(i)
                j = match_paren(s, i + 1)
                self.subs.append(s[i + 2:j])
                buf.append(s[i:j + 1])
                self._dyn = True
                i = j + 1
            elif c in ";&|()<>":
                op = next(o for o in OPERATORS if s.startswith(o, i))
                if op in REDIRECTIONS and self._buf is not None and self._buf and "".join(self._buf).isdigit() \
                        and self.s[self._start:i].isdigit():
                    self._buf = None  # `2>`: the digits name a file descriptor, not an argument
                self._end(i)
                if op in ("<<", "<<-"):
                    self._want_delim = op == "<<-"
                    self.notes.append("uses a here-document")
                self.tokens.append(Op(op))
                i += len(op)
            elif c == "#" and self._buf is None:
                j = s.find("\n", i)
                i = self.n if j < 0 else j  # a comment runs to the end of the line
            else:
                self._begin(i).append(c)
                if c in "*?[":
                    self._glob = True
                i += 1
        self._end(self.n)
        if self._want_delim is not None or self._heredocs:
            raise ShellSyntaxError("here-document without its body")
        return Lexed(self.tokens, self.subs, self.notes)

    def _skip_heredocs(self, i: int) -> int:
        """After a newline, skip the bodies of pending here-documents."""
        for delim, strip_tabs in self._heredocs:
            while True:
                if i >= self.n:
                    raise ShellSyntaxError(f"here-document not closed by {delim!r}")
                j = self.s.find("\n", i)
                end = self.n if j < 0 else j
                line = self.s[i:end].rstrip("\r")
                i = end + 1
                if (line.lstrip("\t") if strip_tabs else line) == delim:
                    break
        self._heredocs = []
        return min(i, self.n)

    def _dquote(self, i: int) -> int:
        s = self.s
        while i < self.n:
            c = s[i]
            if c == '"':
                return i + 1
            if c == "\\" and i + 1 < self.n:
                nxt = s[i + 1]
                if nxt == "\n":
                    i += 2
                    continue
                self._open().append(nxt if nxt in '$`"\\' else "\\" + nxt)
                i += 2
            elif c == "$":
                i = self._dollar(i)
            elif c == "`":
                i = self._backtick(i)
            else:
                self._open().append(c)
                i += 1
        raise ShellSyntaxError("unbalanced double quote")

    def _dollar(self, i: int) -> int:
        s = self.s
        nxt = s[i + 1] if i + 1 < self.n else ""
        if nxt == "(":
            j = match_paren(s, i + 1)
            self.subs.append(s[i + 2:j])
            end = j + 1
        elif nxt == "{":
            j = _match_brace(s, i + 1)
            inner = s[i + 2:j]
            if "$(" in inner or "`" in inner or "<(" in inner or ">(" in inner:
                self.notes.append("command substitution inside ${...}")
            end = j + 1
        elif nxt == "'":  # $'...' ANSI-C quoting: \x72m is rm
            j = i + 2
            while j < self.n and s[j] != "'":
                j += 2 if s[j] == "\\" else 1
            if j >= self.n:
                raise ShellSyntaxError("unbalanced $'...' quote")
            end = j + 1
        elif nxt == '"':
            self._dyn = True
            return self._dquote(i + 2)
        elif nxt and nxt in _SPECIAL_PARAMS:
            end = i + 2
        elif nxt and (m := _NAME.match(s, i + 1)):
            end = m.end()
        else:
            self._open().append("$")
            return i + 1
        self._open().append(s[i:end])
        self._dyn = True
        return end

    def _backtick(self, i: int) -> int:
        s, j = self.s, i + 1
        inner: list[str] = []
        while j < self.n and s[j] != "`":
            if s[j] == "\\" and j + 1 < self.n:
                if s[j + 1] == "`":
                    raise ShellSyntaxError("nested backticks")
                inner.append(s[j + 1] if s[j + 1] in "$\\" else s[j:j + 2])
                j += 2
            else:
                inner.append(s[j])
                j += 1
        if j >= self.n:
            raise ShellSyntaxError("unbalanced backtick")
        self.subs.append("".join(inner))
        self._open().append(s[i:j + 1])
        self._dyn = True
        return j + 1


def match_paren(s: str, i: int) -> int:
    """Index of the `)` closing the `(` at s[i], skipping quoted text."""
    depth, j, n = 0, i, len(s)
    while j < n:
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'":
            k = s.find("'", j + 1)
            if k < 0:
                raise ShellSyntaxError("unbalanced single quote")
            j = k + 1
            continue
        if c == '"':
            k = j + 1
            while k < n and s[k] != '"':
                k += 2 if s[k] == "\\" else 1
            if k >= n:
                raise ShellSyntaxError("unbalanced double quote")
            j = k + 1
            continue
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ShellSyntaxError("unbalanced parenthesis")


def _match_brace(s: str, i: int) -> int:
    depth, j = 0, i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return j
        j += 1
    raise ShellSyntaxError("unbalanced ${")


# Control characters other than tab and newline: bash reads `\r`, `\v`, `\f`, ESC ... as ordinary
# word characters, so `ls\r#; curl x` is one command `ls\r#` followed by curl. Rather than model
# each, a command holding any of them is not understood (the judge asks).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def lex(src: str) -> Lexed:
    """Tokens, nested command strings and notes for one command line."""
    bad = CONTROL.search(src)
    if bad is not None:
        raise ShellSyntaxError(f"control character U+{ord(bad.group()):04X} at offset {bad.start()}")
    return _Scanner(src).run()


def split_simple(tokens: list[Word | Op]) -> list[Simple]:
    """Group tokens into simple commands at separators; attach redirections to their command."""
    out: list[Simple] = []
    cur = Simple()
    k = 0
    while k < len(tokens):
        t = tokens[k]
        if isinstance(t, Op) and t.text in SEPARATORS:
            if t.text == "(" and k + 1 < len(tokens) and isinstance(tokens[k + 1], Op) and tokens[k + 1].text == ")" \
                    and cur.words:
                cur.function_def = True
            if cur.words or cur.redirects or cur.function_def:
                out.append(cur)
            cur = Simple()
        elif isinstance(t, Op):
            target = tokens[k + 1] if k + 1 < len(tokens) else None
            if not isinstance(target, Word):
                raise ShellSyntaxError(f"redirection {t.text!r} without a target")
            cur.redirects.append((t.text, target))
            k += 1
        else:
            cur.words.append(t)
        k += 1
    if cur.words or cur.redirects:
        out.append(cur)
    return out
