"""OpenAI harmony (gpt-oss) messages: a call is a message with a recipient, outside analysis.

<|channel|>analysis<|message|>Need weather.<|end|>
<|start|>assistant<|channel|>commentary to=functions.get_weather <|constrain|>json<|message|>{"city":"Tokyo"}<|call|>
The recipient may also precede the channel (`<|start|>assistant to=functions.x<|channel|>commentary json`).
A message with a recipient is a call whatever its channel (models also address functions from
the analysis channel); a built-in recipient (`python`, `container.exec`) given code has no function
to run and nothing to show, so it is dropped (as llama.cpp does). Whenever the text holds harmony messages it is rebuilt from the visible ones: analysis
bodies are reasoning (the pipeline moves them to thinking first, with `split_analysis`),
final/commentary bodies and prose outside messages are kept.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from agentcli.core.lazy import lazy_pattern
from agentcli.wire.dialects._base import Dialect, ReasoningSplit, split_by
from agentcli.wire.dialects._scan import ParseResult, json_object_complete, total
from agentcli.wire.dialects._seen import TWO_WAY, finder
from agentcli.wire.types import Candidate

START, CHANNEL, MESSAGE = "<|start|>", "<|channel|>", "<|message|>"
ENDS = ("<|end|>", "<|call|>", "<|return|>")
_HEADER_STOP = " \t\r\n<"
# Recipients that address a person, not a tool (`commentary to=assistant` is a note, not a call).
_NOT_TOOLS = frozenset(("assistant", "user", "all"))


# After a header's key: the spaces, then its word (up to whitespace or a special token), read in C.
_WORD = lazy_pattern(r" *([^" + re.escape(_HEADER_STOP) + r"]*)")


def _word_after(header: str, key: str) -> str:
    """The token following the last `key` in a message header, up to whitespace or a special token
    (a header may name a channel twice: `<|channel|>commentary to=assistant<|channel|>analysis`)."""
    i = header.rfind(key)
    if i == -1:
        return ""
    word = _WORD.match(header, i + len(key))  # (it always matches: every part may be empty)
    return word.group(1) if word is not None else ""


def _split_header(region: str) -> tuple[str, str]:
    """(prose, header) for the text between the previous message and `<|message|>`."""
    hs = region.rfind(START)
    if hs != -1:
        return region[:hs], region[hs + len(START) :]
    c = region.find(CHANNEL)
    if c != -1:
        before = region[:c]
        if len(before) < 256 and " to=" in " " + before and "\n" not in before.strip():
            return "", region  # recipient written before the channel
        return before, region[c:]
    if len(region) < 256 and "to=" in region and "\n" not in region.strip():
        return "", region
    return region, ""


# The terminators and <|start|>, as one search: none is a prefix of another and none holds a `<`
# past its first character, so the first match is the first of their places.
_BODY_ENDS = lazy_pattern("|".join(re.escape(t) for t in (*ENDS, START)))
# Characters past a body's start that search reads: a body in a run of messages ends within a few
# dozen (one search in C, where a search per token costs a Python step each, 12,000 messages in a
# 1 MB reply); a longer one is crossed by the searches for each token, by the places of its `|`.
_BODY_AHEAD = 2048


def _body_end(text: str, start: int, cache: dict[str, int], find: Callable[..., int]) -> tuple[int, int]:
    """(end of body, position after its terminator); a following <|start|> is not consumed."""
    near = _BODY_ENDS.search(text, start, start + _BODY_AHEAD)
    if near is not None:  # the first token: no other stands before it (nor ends past the window)
        at = near.start()
        return at, at if near.group() == START else near.end()
    best, after = len(text), len(text)
    for tok in (*ENDS, START):
        at = cache.get(tok, -2)
        if at != -1 and at < start:
            at = find(tok, start)
            cache[tok] = at
        if at != -1 and at < best:
            best, after = at, at if tok == START else at + len(tok)
    return best, after


@dataclass
class _Message:
    """One harmony message: the prose before it, its header, body and where it ends."""

    start: int  # where the prose before it starts
    prose: str
    header: str
    body_start: int
    body_end: int
    after: int  # past its terminator (a following <|start|> is not consumed)

    @property
    def channel(self) -> str:
        return _word_after(self.header, CHANNEL)

    @property
    def recipient(self) -> str:
        """The addressee; "" for none or for a person (`to=assistant` is a note, not a call)."""
        to = _word_after(" " + self.header, " to=")
        return "" if to in _NOT_TOOLS else to


def _messages(text: str) -> Iterator[_Message]:
    """Every message of `text` in order; the text after the last one is not yielded."""
    cache: dict[str, int] = {}
    # On a long reply the tokens are looked for where their `|` stands (a memchr): a plain search
    # walks every character of a body, four bytes each in a reply holding an emoji.
    find = finder(text)
    pos = 0
    while pos < len(text) and (m := find(MESSAGE, pos)) != -1:
        prose, header = _split_header(text[pos:m])
        body_start = m + len(MESSAGE)
        body_end, after = _body_end(text, body_start, cache, find)
        yield _Message(pos, prose, header, body_start, body_end, after)
        pos = after


def _tail(text: str, last: _Message | None) -> str:
    return text[last.after :] if last is not None else text


def split_analysis(text: str) -> tuple[str, list[str]]:
    """(text without its analysis messages, their bodies): an analysis-channel message addressed to
    no tool is the model's reasoning, so it goes to thinking like any family's think block. An
    analysis message with a recipient is a call and stays for the dialect to read."""
    if not _names_analysis(text):  # (without a message body nothing is split either: no MESSAGE check)
        return text, []
    out: list[str] = []
    thoughts: list[str] = []
    msg = None
    for msg in _messages(text):
        if msg.channel == "analysis" and not msg.recipient:
            out.append(msg.prose)
            thoughts.append(text[msg.body_start : msg.body_end])
        else:
            out.append(text[msg.start : msg.after])
    out.append(_tail(text, msg))
    return ("".join(out), thoughts) if thoughts else (text, [])


def _names_analysis(text: str) -> bool:
    """Whether a channel token names `analysis` (after spaces, as `_word_after` reads it): no
    message is on that channel otherwise. Asked at each channel token, not by a search for the word
    over the whole reply (on a reply shorter than TWO_WAY the plain search for the word costs less
    than that walk, and answers as well: no word, no channel naming it)."""
    if len(text) < TWO_WAY:
        return "analysis" in text
    find = finder(text)
    at = find(CHANNEL)
    while at != -1:
        i = at + len(CHANNEL)
        while text.startswith(" ", i):
            i += 1
        if text.startswith("analysis", i):
            return True
        at = find(CHANNEL, i)
    return False


class _Harmony(Dialect):
    name = "harmony"
    markers = (CHANNEL, MESSAGE, "to=functions.")
    # its own tokens (the message opener too: quoted in a string value, it is hidden as markup)
    owns = (CHANNEL, START)
    # An analysis message addressed to no tool is reasoning no pair of tags delimits.
    # By reference: the parse collects it without importing this module until a reply holds MESSAGE.
    reasoning_split = ReasoningSplit(MESSAGE, split_by("harmony:split_analysis"))

    @total
    def parse(self, text: str) -> ParseResult:
        # No message body: nothing here is harmony, and the walk below finds none (its first search
        # is the check, by the places of `|` on a long reply) and gives the text back as it was.
        cands: list[Candidate] = []
        out: list[str] = []
        header_seen = False
        msg = None
        for msg in _messages(text):
            header_seen = header_seen or CHANNEL in msg.header
            out.append(msg.prose)
            body = text[msg.body_start : msg.body_end]
            recipient = msg.recipient
            if recipient and not recipient.startswith("functions.") and not body.lstrip().startswith("{"):
                pass  # a built-in tool (python, container.exec) given code: no function to run, no text to show
            elif recipient:  # a recipient makes a call, whatever the channel
                raw = text[msg.start + len(msg.prose) : msg.after]
                cand = self._call(recipient, body, raw, closed=msg.body_end < len(text))
                if cand is not None:
                    cands.append(cand)
                else:
                    out.append(raw)  # a cut-off call stays as written
            elif msg.channel != "analysis":
                out.append(body)
        out.append(_tail(text, msg))
        if not cands and not header_seen:  # a header holding CHANNEL is part of the text
            return [], text
        return cands, "".join(out)

    def _call(self, recipient: str, body: str, raw: str, closed: bool) -> Candidate | None:
        name = recipient[len("functions.") :] if recipient.startswith("functions.") else recipient
        if not name:
            return None
        args = body.strip()
        if not closed and not json_object_complete(args):
            return None
        return Candidate(name=name, arguments=args or "{}", raw=raw, dialect=self.name)


HARMONY = _Harmony()
