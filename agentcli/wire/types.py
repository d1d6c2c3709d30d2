"""Types shared inside the wire layer: the negotiated plan and raw call candidates.

WirePlan and RequestSettings (a request's side) live in wire/_plan.py and are read from here on
first use: a parse needs only the candidate side, and each dataclass costs some 0.5 ms to build.
"""

from __future__ import annotations

from dataclasses import field
from typing import TYPE_CHECKING, Any

from agentcli.core.record import record
from agentcli.core.types import Tool

if TYPE_CHECKING:
    from agentcli.wire._plan import RequestSettings as RequestSettings
    from agentcli.wire._plan import WirePlan as WirePlan

__all__ = ["Candidate", "NativeParse", "ParseContext", "RequestSettings", "WirePlan"]


def __getattr__(name: str) -> Any:
    """WirePlan and RequestSettings, imported from wire/_plan.py on first use (then module globals)."""
    if name in ("WirePlan", "RequestSettings"):
        from agentcli.wire import _plan

        value = globals()[name] = getattr(_plan, name)
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@record
class Candidate:
    """A call as a dialect found it, before names are resolved and arguments decoded.

    `arguments` is a dict, or a str still to be decoded as JSON (and repaired).
    `text_values` means the dialect wrote every value as text (XML parameters):
    values that are valid JSON are decoded, others stay strings, then the schema coerces.
    """

    name: str
    arguments: dict[str, Any] | str | None
    raw: str
    dialect: str
    text_values: bool = False
    id: str | None = None
    error: str | None = None  # the dialect saw a call it cannot complete (truncated): never executed
    fixes: tuple[tuple[str, str], ...] = ()  # (kind, detail) repairs the dialect made to find the call
    # Found in prose or bare (no list, tag or token around it): with tools offered, a call only
    # when its name is one of them; otherwise its text stays text.
    embedded: bool = False
    # The written name is an id (`call_3`, a bare counter): when it names no offered tool, the tool
    # is inferred from the arguments (see wire.name_inference); otherwise the call is an error.
    name_from_args: bool = False
    # Cut off before its close tag but whole so far: a call only when it names an offered tool and
    # carries every required argument; otherwise reported as truncated (never executed).
    cut_off: bool = False


@record
class ParseContext:
    """What a parse may know: the tools offered (for name resolution and coercion)
    and the dialects to try first."""

    tools: dict[str, Tool] = field(default_factory=dict)
    prefer: tuple[str, ...] = ()
    repair: bool = True  # the repair layer can be switched off (eval measures its gain)
    names: bool = True  # forgiving tool-name resolution (its own layer in the eval)
    coerce: bool = True  # argument values coerced to the schema (its own layer in the eval)
    # The dialect the model was prompted to write (emulation). Its calls are calls even when
    # the name is wrong, so the model hears "unknown tool" instead of its call becoming prose.
    prompted: str | None = None

    @classmethod
    def of(
        cls, tools: list[Tool] | None = None, prefer: tuple[str, ...] = (), repair: bool = True,
        prompted: str | None = None, names: bool | None = None, coerce: bool | None = None,
    ) -> ParseContext:
        """`names` and `coerce` follow `repair` unless given: no repair means none of the three."""
        return cls({t.name: t for t in tools or ()}, prefer, repair, repair if names is None else names,
                   repair if coerce is None else coerce, prompted)


@record
class NativeParse:
    """What an API's own fields said, before text dialects and repair run."""

    text: str = ""
    thinking: str = ""
    candidates: list[Candidate] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: Any = None  # core Usage
    provider_data: dict[str, Any] = field(default_factory=dict)
