"""Messages, tools, calls and results in agentcli's own form.

Plain slotted dataclasses: a parser builds thousands of these per second, and
importing them must not pull in a validation library.
"""

from __future__ import annotations

import os
from dataclasses import field
from enum import Enum, IntEnum
from typing import Any

from agentcli.core.record import record


class Tier(IntEnum):
    """Progressive disclosure: each tier includes the ones below it."""

    CRAWL = 0  # read-only
    WALK = 1  # file edits
    RUN = 2  # shell

    @classmethod
    def parse(cls, value: str | Tier) -> Tier:
        if isinstance(value, Tier):
            return value
        try:
            return cls[str(value).strip().upper()]
        except KeyError:
            raise ValueError(f"unknown tier {value!r}; expected crawl, walk or run") from None

    @property
    def label(self) -> str:
        return self.name.lower()


class Role(str, Enum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"  # carries ToolResults; adapters decide where they go on the wire


def new_call_id() -> str:
    """A provider-neutral call id (OpenAI-like, accepted by every API we speak). os.urandom is what
    `secrets.token_hex` reads; calling it directly spares every command importing `secrets` (hmac,
    hashlib) just to load the types."""
    return "call_" + os.urandom(8).hex()


@record
class Tool:
    """A tool as the registry knows it; definition adapters render it per API."""

    name: str
    description: str
    parameters: dict[str, Any] = field(default_factory=lambda: {"type": "object", "properties": {}})
    tier: Tier = Tier.CRAWL
    # Behaviour the loop reads instead of tool names, so a tool from outside can declare it too.
    read_only: bool = True  # changes nothing: runs in parallel batches, never asks
    needs_approval: bool = False  # asks before running unless an approval mode or rule covers it
    runs_commands: bool = False  # its `command` argument is a shell command, judged by the shell rules
    interactive: bool = False  # asks the user: the loop shows `preview` as the question, the reply is the result
    ends_run: bool = False  # a successful call ends the run; its result is the final answer
    sandboxed: bool = False  # runs inside the OS sandbox; where that cannot start, only a human approves it
    model_visible: bool = True
    namespace: str | None = None
    # A tool some API defines itself and models are trained on ("text_editor"): the wire adapter
    # that knows it sends its own tool type instead of this schema; every other route sends the schema.
    native_form: str | None = None


@record
class ToolCall:
    """One call as parsed from any wire format.

    `dialect` names the parser that matched (native_openai, hermes, ...). `unknown`
    marks a name that was not offered; `error` marks a call whose arguments could
    not be recovered (the loop answers both with a structured error).
    """

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)
    id: str = field(default_factory=new_call_id)
    raw: str | None = None
    dialect: str = ""
    unknown: bool = False
    error: str | None = None


@record
class Repair:
    """One fix the parser applied to make a call usable; reported, never silent."""

    kind: str  # json_repair, name_case, name_prefix, coerce_type, unwrap_arguments, ...
    detail: str
    call_id: str | None = None


@record
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens)


@record
class ParsedResponse:
    """What one model turn meant, whatever shape it arrived in."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    repairs: list[Repair] = field(default_factory=list)
    finish_reason: str = "stop"  # stop | tool_calls | length | content_filter | error
    usage: Usage | None = None
    # Opaque per-provider data that must round-trip (thinking signatures, ...).
    provider_data: dict[str, Any] = field(default_factory=dict)


@record
class ToolResult:
    call_id: str
    tool_name: str
    ok: bool
    content: str
    error: Any = None  # ToolError when not ok (typed loosely to keep this module leaf-level)


@record
class Message:
    """One entry of history. Assistant messages carry tool_calls; TOOL messages carry tool_results."""

    role: Role
    text: str = ""
    thinking: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    provider_data: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(Role.SYSTEM, text)

    @classmethod
    def user(cls, text: str) -> Message:
        return cls(Role.USER, text)

    @classmethod
    def assistant(cls, parsed: ParsedResponse) -> Message:
        return cls(
            Role.ASSISTANT,
            parsed.text,
            parsed.thinking,
            list(parsed.tool_calls),
            provider_data=dict(parsed.provider_data),
        )

    @classmethod
    def results(cls, results: list[ToolResult]) -> Message:
        return cls(Role.TOOL, tool_results=list(results))
