"""The V4A patch format OpenAI's GPT-4.1, GPT-5 and codex models were trained to write for
`apply_patch`: parsing, and applying one file's hunks to its text. Pure: text in, text out.

    *** Begin Patch
    *** Add File: path          then one `+line` per line of the new file
    *** Delete File: path
    *** Update File: path
    *** Move to: new/path       (optional, right after Update)
    @@ class Widget             zero or more anchors narrowing where the next hunk is
    @@     def draw(self):      (nested anchors: each is searched after the one before)
     context line               ' ' context, '-' removed, '+' added
    *** End of File             (optional: the hunk's lines end the file)
    *** End Patch

Grammar and parse rules follow OpenAI's published description (the GPT-4.1 prompting guide's
apply_patch reference and the codex `apply-patch` crate): markers may carry surrounding
whitespace, an empty line inside a hunk is an empty context line, the first hunk of a file
may omit `@@`, and a patch wrapped in a `<<'EOF'` heredoc is unwrapped. Context is found
with codex's documented tolerance ladder (exact, then ignoring trailing whitespace, then
ignoring surrounding whitespace, then typographic punctuation folded to ASCII), but a hunk
without an anchor must match exactly once: an ambiguous match is an error here, never a guess.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable
from dataclasses import field

from agentcli.core.record import record

BEGIN, END = "*** Begin Patch", "*** End Patch"
ADD, DELETE, UPDATE, MOVE = "*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "
EOF_MARK = "*** End of File"
MAX_PATCH_LINES = 200_000
QUOTE_LINES = 30  # lines of a failing hunk quoted back to the model


class PatchError(ValueError):
    """A patch that cannot be parsed or applied; `hunk` is the text to quote back, if any."""

    def __init__(self, message: str, hunk: str = "", hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hunk = hunk
        self.hint = hint


@record
class Chunk:
    """One `@@` hunk: anchors to seek first, then old lines replaced by new lines."""

    anchors: list[str] = field(default_factory=list)
    old: list[str] = field(default_factory=list)
    new: list[str] = field(default_factory=list)
    eof: bool = False
    source: list[str] = field(default_factory=list)  # the patch lines, for error messages
    line: int = 0  # patch line number of its first line

    def quote(self) -> str:
        lines = self.source[:QUOTE_LINES]
        more = len(self.source) - len(lines)
        return "\n".join(lines) + (f"\n... ({more} more lines)" if more > 0 else "")


@record
class FileOp:
    """One file operation: kind is add, delete or update."""

    kind: str
    path: str
    contents: str = ""  # add
    move_to: str | None = None  # update
    chunks: list[Chunk] = field(default_factory=list)  # update
    line: int = 0


def parse(text: str) -> list[FileOp]:
    """The file operations of a patch, or PatchError naming the line that is wrong."""
    lines = text.replace("\r\n", "\n").strip().split("\n")
    if len(lines) > MAX_PATCH_LINES:
        raise PatchError(f"the patch has {len(lines)} lines; the limit is {MAX_PATCH_LINES}",
                         hint="Split it into several apply_patch calls.")
    lines = _unwrap_heredoc(lines)
    if not lines or lines[0].strip() != BEGIN:
        raise PatchError("The first line of the patch must be '*** Begin Patch'",
                         hint="Start the input with '*** Begin Patch' and end it with '*** End Patch'.")
    if len(lines) < 2 or lines[-1].strip() != END:
        raise PatchError("The last line of the patch must be '*** End Patch'",
                         hint="End the input with '*** End Patch' on its own line.")
    body, ops, i = lines[1:-1], [], 0
    while i < len(body):
        if not body[i].strip():
            i += 1
            continue
        op, used = _parse_op(body, i)
        ops.append(op)
        i += used
    if not ops:
        raise PatchError("the patch has no file operations", hint="Add an '*** Update File: path' section.")
    return ops


def _unwrap_heredoc(lines: list[str]) -> list[str]:
    """`<<'EOF' ... EOF` around the patch: what a model writes when it thinks apply_patch is a shell command."""
    first = lines[0].strip()
    if first.startswith("apply_patch "):  # the whole shell command: `apply_patch <<'EOF'`
        first = first[len("apply_patch "):].strip()
    if len(lines) >= 4 and first in ("<<EOF", "<<'EOF'", '<<"EOF"') and lines[-1].strip().endswith("EOF"):
        return lines[1:-1]
    return lines


def _parse_op(body: list[str], i: int) -> tuple[FileOp, int]:
    head = body[i].strip()
    line_no = i + 2
    if head.startswith(ADD):
        path = _path(head[len(ADD):], line_no)
        out, j = [], i + 1
        while j < len(body) and body[j].startswith("+"):
            out.append(body[j][1:] + "\n")
            j += 1
        return FileOp("add", path, contents="".join(out), line=line_no), j - i
    if head.startswith(DELETE):
        return FileOp("delete", _path(head[len(DELETE):], line_no), line=line_no), 1
    if head.startswith(UPDATE):
        op = FileOp("update", _path(head[len(UPDATE):], line_no), line=line_no)
        j = i + 1
        if j < len(body) and body[j].strip().startswith(MOVE):
            op.move_to = _path(body[j].strip()[len(MOVE):], j + 2)
            j += 1
        while j < len(body):
            if not body[j].strip():
                j += 1
                continue
            if body[j].startswith("*"):
                break
            chunk, used = _parse_chunk(body, j, first=not op.chunks)
            op.chunks.append(chunk)
            j += used
        if not op.chunks:
            raise PatchError(f"invalid hunk at line {line_no}, Update file hunk for path '{op.path}' is empty",
                             hunk=body[i], hint="Follow '*** Update File:' with at least one @@ hunk.")
        return op, j - i
    raise PatchError(
        f"invalid hunk at line {line_no}, '{head[:200]}' is not a valid hunk header. Valid hunk headers: "
        "'*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'",
        hunk=body[i][:500], hint="Start each file section with one of those headers.",
    )


def _path(raw: str, line_no: int) -> str:
    path = raw.strip()
    if not path:
        raise PatchError(f"invalid hunk at line {line_no}, the file path is empty")
    if path.startswith("/") or (len(path) > 2 and path[1] == ":" and path[2] in "/\\"):
        raise PatchError(f"invalid hunk at line {line_no}, file paths must be relative, got {path[:300]!r}",
                         hint="Write paths relative to the workspace root, never absolute.")
    return path


def _parse_chunk(body: list[str], i: int, *, first: bool) -> tuple[Chunk, int]:
    chunk = Chunk(line=i + 2)
    j = i
    while j < len(body) and (body[j].strip() == "@@" or body[j].startswith("@@ ")):
        anchor = body[j][3:] if body[j].startswith("@@ ") else ""
        if anchor.strip():
            chunk.anchors.append(anchor)
        chunk.source.append(body[j])
        j += 1
    if j == i and not first:
        raise PatchError(f"invalid hunk at line {i + 2}, Expected update hunk to start with a @@ context marker, "
                         f"got: '{body[i][:200]}'", hunk=body[i][:500],
                         hint="Start each hunk with '@@' (optionally followed by a line to anchor it).")
    parsed = 0
    while j < len(body):
        ln = body[j]
        if ln.strip() == EOF_MARK:
            if parsed == 0:
                break
            chunk.eof = True
            chunk.source.append(ln)
            j += 1
            break
        tag = ln[:1]
        if tag == "":
            chunk.old.append("")
            chunk.new.append("")
        elif tag == " ":
            chunk.old.append(ln[1:])
            chunk.new.append(ln[1:])
        elif tag == "-":
            chunk.old.append(ln[1:])
        elif tag == "+":
            chunk.new.append(ln[1:])
        else:
            if parsed == 0:
                raise PatchError(
                    f"invalid hunk at line {j + 2}, Unexpected line found in update hunk: '{ln[:200]}'. Every line "
                    "should start with ' ' (context line), '+' (added line), or '-' (removed line)",
                    hunk="\n".join(chunk.source + [ln])[:2000],
                    hint="Prefix every line of a hunk with ' ', '+' or '-'.",
                )
            break
        chunk.source.append(ln)
        parsed += 1
        j += 1
    if parsed == 0:
        raise PatchError(f"invalid hunk at line {i + 2}, Update hunk does not contain any lines",
                         hunk="\n".join(chunk.source)[:2000], hint="Put the ' ', '-' and '+' lines under the @@.")
    # Trailing empty lines before the next header are separators, not context.
    while (not chunk.eof and chunk.source[-1] == "" and chunk.old[-1:] == [""] and chunk.new[-1:] == [""]
           and any(x for x in chunk.old[:-1] + chunk.new[:-1])):
        chunk.old.pop()
        chunk.new.pop()
        chunk.source.pop()
    return chunk, j - i


# ----- applying -----------------------------------------------------------------------------

_PUNCT = str.maketrans({
    **dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2015\u2212", "-"),
    **dict.fromkeys("\u2018\u2019\u201a\u201b", "'"),
    **dict.fromkeys("\u201c\u201d\u201e\u201f", '"'),
    **dict.fromkeys("\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000", " "),
})

# Looser and looser line comparisons; the first one that finds the text decides.
LEVELS: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("exact", lambda s: s),
    ("trailing whitespace ignored", str.rstrip),
    ("surrounding whitespace ignored", str.strip),
    ("typographic punctuation folded", lambda s: s.strip().translate(_PUNCT)),
)


class Lines:
    """A file's lines with each level's normalised form computed once (a patch may have many hunks)."""

    def __init__(self, lines: list[str]) -> None:
        self.lines = lines
        self._forms: dict[str, list[str]] = {}
        self._where: dict[str, dict[str, list[int]]] = {}

    def form(self, level: str, norm: Callable[[str], str]) -> list[str]:
        if level not in self._forms:
            self._forms[level] = [norm(s) for s in self.lines]
        return self._forms[level]

    def starts(self, level: str, norm: Callable[[str], str], first: str, start: int) -> list[int]:
        """Line numbers at or after `start` whose form is `first` (an index, so many hunks stay linear)."""
        if level not in self._where:
            where: dict[str, list[int]] = {}
            for i, f in enumerate(self.form(level, norm)):
                where.setdefault(f, []).append(i)
            self._where[level] = where
        found = self._where[level].get(first, [])
        return found[bisect.bisect_left(found, start):]


def seek(text: Lines, pattern: list[str], start: int, *, eof: bool = False) -> tuple[list[int], str]:
    """Where `pattern` occurs at or after `start`, at the strictest level that finds it."""
    n = len(pattern)
    if n == 0 or n > len(text.lines):
        return [], ""
    for name, norm in LEVELS:
        have = text.form(name, norm)
        want = [norm(p) for p in pattern]
        if eof:
            end = len(have) - n
            if end >= start and have[end:] == want:
                return [end], name
        hits = [i for i in text.starts(name, norm, want[0], start) if have[i:i + n] == want]
        if hits:
            return hits, name
    return [], ""


@record
class Applied:
    """A file's new text and the notes worth telling the model (a tolerant match)."""

    text: str
    notes: list[str] = field(default_factory=list)


def apply_chunks(text: str, chunks: list[Chunk], rel: str) -> Applied:
    """Apply one file's hunks in order; PatchError quoting the hunk that does not fit."""
    crlf = "\r\n" in text
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if crlf:
        lines = [ln[:-1] if ln.endswith("\r") else ln for ln in lines]
    out: list[tuple[int, int, list[str]]] = []
    notes: list[str] = []
    cursor = 0
    indexed = Lines(lines)
    for chunk in chunks:
        for anchor in chunk.anchors:
            hits, level = seek(indexed, [anchor], cursor)
            if not hits:
                raise PatchError(f"Failed to find context '{anchor.strip()[:200]}' in {rel}", hunk=chunk.quote(),
                                 hint=_hint(lines, anchor))
            cursor = hits[0] + 1
            if level != "exact":
                notes.append(f"anchor '{anchor.strip()[:80]}' matched with {level}")
        if not chunk.old:
            at = cursor if chunk.anchors else len(lines)
            out.append((at, 0, chunk.new))
            continue
        old, new = chunk.old, chunk.new
        hits, level = seek(indexed, old, cursor, eof=chunk.eof)
        if not hits and old[-1] == "":
            old, new = old[:-1], (new[:-1] if new and new[-1] == "" else new)
            hits, level = seek(indexed, old, cursor, eof=chunk.eof) if old else ([], "")
        if not hits:
            raise PatchError(f"Failed to find expected lines in {rel}", hunk=chunk.quote(),
                             hint=_hint(lines, next((o for o in old if o.strip()), "")))
        if len(hits) > 1 and not chunk.anchors and not chunk.eof:
            where = ", ".join(str(h + 1) for h in hits[:10])
            raise PatchError(
                f"The hunk's context matches {len(hits)} places in {rel} (lines {where}); it must match once",
                hunk=chunk.quote(),
                hint="Add more context lines, or an '@@ <line>' anchor naming the class or function it is in.",
            )
        if level != "exact":
            notes.append(f"hunk at patch line {chunk.line} matched with {level}")
        at = hits[0]
        out.append((at, len(old), new))
        cursor = at + len(old)
    for at, n, new in reversed(out):
        lines[at:at + n] = new
    nl = "\r\n" if crlf else "\n"
    return Applied(nl.join(lines) + nl if lines else "", notes)


def _hint(lines: list[str], probe: str) -> str:
    """Point at the nearest line that looks like what the hunk expected."""
    key = probe.strip()
    if key:
        for i, s in enumerate(lines):
            if key in s or s.strip() == key:
                return f"A similar line is at line {i + 1}; re-read the file and copy the context exactly."
    return "Re-read the file and copy the context lines exactly (a ' ' prefix on each unchanged line)."


def paths_of(text: str) -> list[str]:
    """Every path a patch names (sources and move targets), without validating the rest: what
    the checkpoint snapshots before the call runs."""
    out: list[str] = []
    for raw in text.replace("\r\n", "\n").split("\n")[:MAX_PATCH_LINES]:
        ln = raw.strip()
        for mark in (ADD, DELETE, UPDATE, MOVE):
            if ln.startswith(mark):
                path = ln[len(mark):].strip()
                if path and path not in out:
                    out.append(path)
    return out
