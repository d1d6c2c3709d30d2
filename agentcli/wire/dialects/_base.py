"""The Dialect interface. Instances are stateless; a stream keeps its own state."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agentcli.core.types import Tool, ToolCall, ToolResult
    from agentcli.wire.types import Candidate

# The most calls read from one reply. A flood beyond it is not a turn to act on: the pipeline keeps
# the first MAX_CALLS and leaves the rest as text, and a dialect may stop scanning once it has
# found more than this many, which keeps a megabyte of calls cheap to parse.
MAX_CALLS = 256


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

    def parse(self, text: str) -> tuple[list[Candidate], str]:
        raise NotImplementedError

    def render_prompt(self, tools: list[Tool], compact: bool = False) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")

    def render_call(self, call: ToolCall) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")

    def render_results(self, results: list[ToolResult]) -> str:
        raise NotImplementedError(f"{self.name} is not an emulation dialect")
