"""Does a sed command line write files, read other files or run programs?

A regex cannot answer this: `w` needs no space before its file name (`w../x`), may
follow an address, `!`, `;` or `}`, and a `w` inside `a text`, a label or a `y///`
is harmless. So the script is parsed with GNU sed's grammar (addresses, bracket
expressions in regexes, `s` flags, text and label arguments); anything it cannot
parse counts as risky, so the judge asks instead of guessing.
"""

from __future__ import annotations

# Commands that take no argument, and those whose argument runs to the end of the line.
_PLAIN = frozenset("=dDgGhHnNpPxzF")
_RISKY_CMDS = {"w": "writes a file (w)", "W": "writes a file (W)", "r": "reads a file into the output (r)",
               "R": "reads a file into the output (R)", "e": "runs a command (e)"}
_LONG = ("binary", "debug", "expression", "file", "follow-symlinks", "help", "in-place", "line-length",
         "null-data", "zero-terminated", "posix", "quiet", "silent", "sandbox", "separate", "regexp-extended",
         "unbuffered", "version")
_LONG_WITH_ARG = frozenset({"expression", "file", "line-length"})


class SedSyntaxError(ValueError):
    """The script does not parse the way this module models sed."""


class _Script:
    def __init__(self, text: str) -> None:
        self.s = text
        self.n = len(text)
        self.i = 0
        self.found: list[str] = []

    # -- small readers --
    def _peek(self) -> str:
        return self.s[self.i] if self.i < self.n else ""

    def _blank(self) -> None:
        while self.i < self.n and self.s[self.i] in " \t":
            self.i += 1

    def _to_eol(self) -> str:
        j = self.s.find("\n", self.i)
        j = self.n if j < 0 else j
        text, self.i = self.s[self.i:j], j
        return text

    def _digits(self) -> bool:
        start = self.i
        while self.i < self.n and self.s[self.i].isdigit():
            self.i += 1
        return self.i > start

    def _delimited(self, delim: str, *, regex: bool) -> None:
        """Skip to just past the next unescaped `delim`; in a regex, `[...]` may hold it."""
        s = self.s
        while self.i < self.n:
            c = s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "\n" and delim != "\n":
                raise SedSyntaxError("newline inside a regex or replacement")
            if c == delim:
                self.i += 1
                return
            if regex and c == "[":
                self._bracket()
                continue
            self.i += 1
        raise SedSyntaxError(f"unterminated {delim!r}-delimited text")

    def _bracket(self) -> None:
        """Skip a bracket expression: `]` first (or after `^`) is literal; [:class:] [.x.] [=x=] nest."""
        s, j = self.s, self.i + 1
        if j < self.n and s[j] == "^":
            j += 1
        if j < self.n and s[j] == "]":
            j += 1
        while j < self.n:
            c = s[j]
            if c == "\n":
                raise SedSyntaxError("newline inside a bracket expression")
            if c == "[" and j + 1 < self.n and s[j + 1] in ":.=":
                end = s.find(s[j + 1] + "]", j + 2)
                if end < 0:
                    raise SedSyntaxError("unterminated character class")
                j = end + 2
                continue
            if c == "]":
                self.i = j + 1
                return
            j += 1
        raise SedSyntaxError("unterminated bracket expression")

    # -- grammar --
    def _address(self, second: bool) -> bool:
        c = self._peek()
        if c.isdigit():
            self._digits()
            if self._peek() == "~":
                self.i += 1
                self._digits()
            return True
        if c == "$":
            self.i += 1
            return True
        if second and c in "+~":
            self.i += 1
            if not self._digits():
                raise SedSyntaxError(f"{c} needs a number")
            return True
        if c in ("/", "\\"):
            if c == "\\":
                self.i += 1
                c = self._peek()
                if not c or c in "\n\\":
                    raise SedSyntaxError("bad regex delimiter")
            self.i += 1
            self._delimited(c, regex=True)
            while self._peek() in ("I", "M") and self._peek():
                self.i += 1
            return True
        return False

    def _end_of_command(self) -> None:
        self._blank()
        c = self._peek()
        if c in ("", "\n", ";", "}", "#"):
            return
        raise SedSyntaxError(f"unexpected {c!r} after a command")

    def _s_flags(self) -> None:
        while self.i < self.n:
            c = self.s[self.i]
            if c in "gpiImM0123456789 \t":
                self.i += 1
            elif c in "we":
                self.found.append(_RISKY_CMDS[c] + " via the s command's flag")
                self.i += 1
                if c == "w":
                    self._to_eol()
                    return
            else:
                return

    def _text(self) -> None:
        """a/i/c text: one line, continued while a line ends in a backslash."""
        while self.i < self.n:
            c = self.s[self.i]
            if c == "\\":
                self.i += 2
                continue
            if c == "\n":
                return
            self.i += 1

    def _label(self) -> None:
        self._blank()
        while self.i < self.n and self.s[self.i] not in " \t\n;":
            self.i += 1

    def parse(self) -> list[str]:
        depth = 0
        while True:
            while self.i < self.n and self.s[self.i] in " \t\n;":
                self.i += 1
            if self.i >= self.n:
                break
            if self._address(False):
                self._blank()
                if self._peek() == ",":
                    self.i += 1
                    self._blank()
                    if not self._address(True):
                        raise SedSyntaxError("missing second address")
            self._blank()
            while self._peek() == "!":
                self.i += 1
                self._blank()
            cmd = self._peek()
            if not cmd:
                raise SedSyntaxError("address without a command")
            self.i += 1
            if cmd == "{":
                depth += 1
                continue
            if cmd == "}":
                depth -= 1
                if depth < 0:
                    raise SedSyntaxError("unexpected '}'")
            elif cmd == "#":
                self._to_eol()
                continue
            elif cmd in _RISKY_CMDS:
                self.found.append(_RISKY_CMDS[cmd])
                self._to_eol()
                continue
            elif cmd in "aic":
                self._text()
                continue
            elif cmd in ":btT":
                self._label()
            elif cmd == "s":
                delim = self._peek()
                if not delim or delim in "\n\\":
                    raise SedSyntaxError("bad s delimiter")
                self.i += 1
                self._delimited(delim, regex=True)
                self._delimited(delim, regex=False)
                self._s_flags()
            elif cmd == "y":
                delim = self._peek()
                if not delim or delim in "\n\\":
                    raise SedSyntaxError("bad y delimiter")
                self.i += 1
                self._delimited(delim, regex=False)
                self._delimited(delim, regex=False)
            elif cmd in "qQlL":
                self._blank()
                self._digits()
            elif cmd == "v":
                self._label()
            elif cmd not in _PLAIN:
                raise SedSyntaxError(f"unknown command {cmd!r}")
            self._end_of_command()
        if depth:
            raise SedSyntaxError("unclosed '{'")
        return self.found


def script_risks(script: str) -> list[str]:
    """What a sed script does besides editing its stream (w/W/r/R/e, also as s flags); raises SedSyntaxError."""
    return _Script(script).parse()


def _long_option(arg: str) -> tuple[str | None, str | None]:
    """(full option name or None when unknown/ambiguous, inline value) for `--name[=value]`."""
    name, eq, value = arg[2:].partition("=")
    hits = [o for o in _LONG if o.startswith(name)] if name else []
    exact = name if name in _LONG else None
    full = exact or (hits[0] if len(hits) == 1 else None)
    return full, (value if eq else None)


def sed_risks(argv: list[str]) -> list[str]:
    """Reasons a sed command line must not be auto-approved (in-place edits, scripts that write or run)."""
    out: list[str] = []
    scripts: list[str] = []
    positional: list[str] = []
    from_option = sandbox = False
    i = 1
    while i < len(argv):
        a = argv[i]
        i += 1
        if a == "--":
            positional += argv[i:]
            break
        if a.startswith("--"):
            name, value = _long_option(a)
            if name is None:
                out.append(f"unknown or ambiguous sed option {a.split('=', 1)[0]!r}")
                continue
            if name in _LONG_WITH_ARG and value is None:
                value = argv[i] if i < len(argv) else ""
                i += 1
            if name == "expression":
                scripts.append(value or "")
                from_option = True
            elif name == "file":
                from_option = True
                out.append("sed -f runs a script file that is not judged")
            elif name == "in-place":
                out.append("sed -i edits files in place")
            elif name == "sandbox":
                sandbox = True
            continue
        if not a.startswith("-") or a == "-":
            positional.append(a)
            continue
        k = 1
        while k < len(a):  # a bundle of short options, getopt style
            c = a[k]
            k += 1
            if c == "i":
                out.append("sed -i edits files in place")
                break  # the rest of the bundle is the backup suffix
            if c in "efl":
                value = a[k:] if k < len(a) else (argv[i] if i < len(argv) else "")
                if k >= len(a):
                    i += 1
                if c == "e":
                    scripts.append(value)
                    from_option = True
                elif c == "f":
                    from_option = True
                    out.append("sed -f runs a script file that is not judged")
                break
            if c not in "nrEsuzb":
                out.append(f"unknown sed option -{c}")
    if not from_option and positional:
        scripts.append(positional[0])
    if sandbox:
        return out  # GNU sed --sandbox refuses w/W/r/R/e itself
    try:
        found = script_risks("\n".join(scripts))
    except SedSyntaxError as exc:
        return out + [f"the sed script could not be judged ({exc})"]
    return out + [f"the sed script {r}" for r in dict.fromkeys(found)]
