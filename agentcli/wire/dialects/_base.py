"""The Dialect interface. Instances are stateless; a stream keeps its own state."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult
    from agentcli.wire.types import Candidate

# The most calls read from one reply. A flood beyond it is not a turn to act on: the pipeline keeps
# the first MAX_CALLS and leaves the rest as text, and a dialect may stop scanning once it has
# found more than this many, which keeps a megabyte of calls cheap to parse.
MAX_CALLS = 256


# A NamedTuple, not a dataclass: every parse imports it, and a dataclass costs some 0.5 ms to build.
class ReasoningSplit(NamedTuple):
    """Reasoning no pair of tags delimits (a channel of a message structure, Harmony's analysis).

    trigger: a substring every text holding such reasoning contains; without it `split` is not run.
    split:   text -> (the text without the reasoning, the reasoning found).
    """

    trigger: str
    split: Callable[[str], tuple[str, list[str]]]


class _SplitRef:
    """A split function named by "module:function" (a module of this package), imported on its
    first call."""

    __slots__ = ("ref", "_fn")

    def __init__(self, ref: str) -> None:
        self.ref = ref
        self._fn: Callable[[str], tuple[str, list[str]]] | None = None

    def __call__(self, text: str) -> tuple[str, list[str]]:
        fn = self._fn
        if fn is None:
            import importlib

            module, attr = self.ref.split(":")
            fn = self._fn = getattr(importlib.import_module(f"{__package__}.{module}"), attr)
        return fn(text)

    def __repr__(self) -> str:
        return f"split_by({self.ref!r})"


@functools.cache
def split_by(ref: str) -> Callable[[str], tuple[str, list[str]]]:
    """The split function `ref` ("module:function") names, imported when first called; one object
    per reference. A dialect declares its ReasoningSplit with it, so the collected markup holds the
    very same split (dialects/_declared.py keeps the reference) without importing the dialect."""
    return _SplitRef(ref)


class Dialect:
    """One way of writing tool calls into text.

    name:     registry key, reported as ToolCall.dialect
    markers:  substrings whose presence makes parse() worth running (a cheap
              prefilter); empty = always try (JSON-in-text forms)
    parse():  pure and total: never raises, returns (candidates, text without them).
              Prose, code and JSON examples that are not calls must yield nothing.
    owns:     markup only this dialect writes (a family's own namespaced wrapper or token). When
              any of it is in the text, the chain reads this dialect before the others, so a
              generic dialect that can read the inner part (`<function=..>`, `<invoke name=..>`)
              never takes a call out of another family's wrapper and leaves the wrapper as text.
    empty_lists: (open, close) pairs around a list of calls; a pair holding nothing (or `[]`) is a
              reply's way of calling no tool, taken out of the text (close "" = the open token
              followed by `[]`, as `[TOOL_CALLS][]`).
    emulation dialects (emulation = True) can also describe tools in a system prompt
    and re-render history for a model prompted in that style.

    The family's markup around what is not a call, declared here and collected from the whole
    table once (_markup.py) for the reasoning split, the string masking and the stream detector:
    reasoning_tags:  (open, close) pairs the family writes around its reasoning.
    call_wrappers:   (open, close) pairs whose inside is a call's arguments, never reasoning: a think
              tag written in a value (a file that mentions `<think>`) stays the value's text.
    section_openers: special tokens that open a section of calls (never prose): a reasoning the
              model left open ends at one (it called a tool mid-thought).
    reasoning_split: reasoning no pair of tags delimits (see ReasoningSplit).
    name_strict: the form is too weak (JSON in prose) to keep a call whose name is no offered tool.
    """

    name: str = ""
    markers: tuple[str, ...] = ()
    owns: tuple[str, ...] = ()
    empty_lists: tuple[tuple[str, str], ...] = ()
    # Tags among the markers that wrap the answer, not calls (Granite's <response>): the dialect
    # takes them out with no call read. Any other tag taken out with no call was prose naming it.
    answer_tags: tuple[str, ...] = ()
    # offered_only: the form is so generic (any XML tag) that only calls naming an offered tool count;
    # with no tools offered it reads nothing.
    offered_only: bool = False
    emulation: bool = False
    reasoning_tags: tuple[tuple[str, str], ...] = ()
    call_wrappers: tuple[tuple[str, str], ...] = ()
    section_openers: tuple[str, ...] = ()
    # Declared by a lane that answers only replies whose every `<` standing outside the strings the
    # mask hides markup in opens one of these tokens (and whose prose before the first holds no
    # markup): such a lane may answer in a chain of several dialects too, where one of these tokens
    # opens the reply's first markup and this dialect is the one the chain would give the reply to
    # first (pipeline._chain_lane: an owner of that markup, or the first dialect whose markers stand
    # when no other could read anything before it).
    lane_tokens: tuple[str, ...] = ()
    # Declared by a dialect whose parse reads each call where it stands, in order: its JSON decoded
    # in place and what follows looked for past the call's end (prefixed_json_calls and the like),
    # or its values ended by its own close tags, which the mask never hides, so what the mask would
    # hide steers nothing. Such a parse is its own lane (Dialect.lane); tests/unit/wire/
    # test_lane_every.py holds every such dialect to the full path's response.
    reads_in_place: bool = False
    reasoning_split: ReasoningSplit | None = None
    name_strict: bool = False

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        raise NotImplementedError

    def lane(self, text: str) -> tuple[list[Candidate], str] | None:
        """The reply in this dialect's usual shape, read from the raw text, or None (most dialects,
        and any other reply). A dialect that answers promises what the pipeline's general steps
        would otherwise check (pipeline._lane): every call's arguments a dict its reader decoded
        where they stand and that ends where the call's closing markup begins (so no marker quoted
        in a string steered the reading); nothing between its calls but whitespace; names and the
        text left as written. The pipeline takes the answer only when that text and the names are
        plain prose; then masking, the reasoning split and the chain have nothing to find."""
        return self.parse(text) if self.reads_in_place else None

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")

    def render_call(self, call: ToolCall) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")

    def render_results(self, results: list[ToolResult]) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")


class Declared(NamedTuple):
    """What one dialect declares about its markup, as plain data (the Dialect fields above, with
    `reasoning_split` as its trigger only). The chain's marker index, the string masking, the
    reasoning split and the stream detector need only this, so a reply imports a dialect's module
    only when the chain reads with it (dialects/_declared.py holds the registry's rows)."""

    markers: tuple[str, ...] = ()
    owns: tuple[str, ...] = ()
    empty_lists: tuple[tuple[str, str], ...] = ()
    answer_tags: tuple[str, ...] = ()
    stream_markers: tuple[str, ...] = ()
    offered_only: bool = False
    name_strict: bool = False
    emulation: bool = False
    reasoning_tags: tuple[tuple[str, str], ...] = ()
    call_wrappers: tuple[tuple[str, str], ...] = ()
    section_openers: tuple[str, ...] = ()
    split_trigger: str | None = None
    split_ref: str | None = None  # a split declared with split_by: its reference
    lane_tokens: tuple[str, ...] = ()


def declaration_of(d: Dialect) -> Declared:
    """The declarations of a loaded dialect, as data."""
    split = d.reasoning_split
    return Declared(
        markers=tuple(d.markers), owns=tuple(d.owns), empty_lists=tuple((o, c) for o, c in d.empty_lists),
        answer_tags=tuple(d.answer_tags), stream_markers=tuple(getattr(d, "stream_markers", ())),
        offered_only=bool(d.offered_only), name_strict=bool(d.name_strict), emulation=bool(d.emulation),
        reasoning_tags=tuple((o, c) for o, c in d.reasoning_tags), call_wrappers=tuple((o, c) for o, c in d.call_wrappers),
        section_openers=tuple(d.section_openers), split_trigger=split.trigger if split is not None else None,
        split_ref=split.split.ref if split is not None and isinstance(split.split, _SplitRef) else None,
        lane_tokens=tuple(d.lane_tokens),
    )
