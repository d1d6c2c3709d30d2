"""Tool names and call ids that every provider accepts.

Providers agree on `^[a-zA-Z0-9_-]{1,64}$` for function names (OpenAI and Gemini are the
strictest) and Anthropic requires `^[a-zA-Z0-9_-]+$` for tool_use ids. Tools from other
sources (MCP servers, plugins) may use dots, slashes or long names, and ids written by one
provider may break another, so both are mapped here, deterministically, per request.
"""

from __future__ import annotations

import re
from dataclasses import field
from typing import TYPE_CHECKING

from agentcli.core.record import record

if TYPE_CHECKING:
    from agentcli.core.types import Tool

MAX_NAME = 64
SAFE_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
_UNSAFE = re.compile(r"[^a-zA-Z0-9_-]")


def _digest(text: str, n: int = 8) -> str:
    import hashlib

    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:n]


def sanitize(name: str) -> str:
    """`name` made safe for every provider; safe names come back unchanged.

    Unsafe characters become `_`; names too long keep their head and gain a short hash
    of the original so two long names that share a prefix stay distinct.
    """
    if SAFE_NAME.match(name):
        return name
    cleaned = _UNSAFE.sub("_", name) or "tool"
    if len(cleaned) > MAX_NAME:
        cleaned = f"{cleaned[: MAX_NAME - 9]}_{_digest(name)}"
    return cleaned


def namespaced(name: str, namespace: str | None, separator: str = "_") -> str:
    """`github` + `search` -> `github_search` (already-prefixed names are kept)."""
    if not namespace:
        return name
    prefix = f"{namespace}{separator}"
    return name if name.startswith(prefix) else prefix + name


def split_namespace(name: str, separator: str = "_") -> tuple[str | None, str]:
    """`github_search` -> ("github", "search"); a name without separator has no namespace."""
    head, sep, tail = name.partition(separator)
    return (head, tail) if sep and head and tail else (None, name)


def wire_name(tool: Tool) -> str:
    """The name a tool is sent under: namespaced, then sanitised."""
    return sanitize(namespaced(tool.name, tool.namespace))


MAX_ID = 40  # OpenAI rejects longer tool_call ids


def safe_id(call_id: str | None) -> str:
    """A call id every API accepts: Anthropic's character set, OpenAI's length."""
    if not call_id:
        return "call_0"
    if len(call_id) <= MAX_ID and not _UNSAFE.search(call_id):
        return call_id
    cleaned = _UNSAFE.sub("_", call_id)[: MAX_ID - 9]
    return f"{cleaned}_{_digest(call_id)}"


@record
class NameMap:
    """Internal tool name <-> wire name for one request; collisions get a hash suffix."""

    to_wire_map: dict[str, str] = field(default_factory=dict)
    from_wire_map: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, tools: list[Tool] | tuple[Tool, ...] | None) -> NameMap:
        m = cls()
        for tool in tools or ():
            wire = wire_name(tool)
            if wire in m.from_wire_map and m.from_wire_map[wire] != tool.name:
                wire = f"{wire[: MAX_NAME - 9]}_{_digest(tool.name)}"
            m.to_wire_map[tool.name] = wire
            m.from_wire_map[wire] = tool.name
        return m

    def to_wire(self, name: str) -> str:
        """Wire name of an offered tool; names not offered (history, hallucinations) are sanitised."""
        return self.to_wire_map.get(name) or sanitize(name)

    def from_wire(self, name: str) -> str:
        """Internal name for a name the model wrote; unknown names pass through unchanged."""
        return self.from_wire_map.get(name, name)

    @property
    def identity(self) -> bool:
        return all(k == v for k, v in self.to_wire_map.items())
