"""The request side of the wire types: how a request is written (WirePlan) and its per-request knobs
(RequestSettings). Public as agentcli.wire.types.WirePlan / RequestSettings (read from here on first
use, so a parse, which needs neither, does not build them)."""

from __future__ import annotations

from dataclasses import field
from typing import Any

from agentcli.core.record import record


@record(frozen=True)
class WirePlan:
    """How one request is written and its answer read, decided by the Negotiator.

    api:          the HTTP API shape the provider speaks (openai, anthropic, ollama, gemini)
    native_tools: tools go in the API's own field; otherwise they are described in the
                  system prompt in `dialect` style (emulation)
    dialect:      emulation dialect (hermes, json, claude_xml, pythonic, mistral, ...);
                  None when native
    parsers:      text dialects tried on assistant text, in priority order
    result:       "native" (API's own tool-result shape) or a dialect name (results as text)
    call_ids:     the form call ids take in history (models.capability.CALL_ID_FORMATS)
    """

    api: str
    native_tools: bool = True
    dialect: str | None = None
    parsers: tuple[str, ...] = ()
    result: str = "native"
    strict: bool = False
    tool_choice: str = "auto"
    parallel: bool = True
    compact: bool = False  # compact emulation prompt for small context windows
    call_ids: str = "any"
    notes: tuple[str, ...] = ()  # why each choice was made (shown by `agent doctor`)


@record
class RequestSettings:
    """Per-request knobs that are not history or tools."""

    model: str
    stream: bool = False
    temperature: float | None = None
    max_output_tokens: int | None = None
    overrides: dict[str, Any] = field(default_factory=dict)  # profile [request] table; reserved keys refused
