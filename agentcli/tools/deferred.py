"""Many tools, small window: tools that do not fit the model's tool budget are deferred, not dropped.

When the visible tools do not fit even with short descriptions, the built-ins (and the tools the
model already found) stay, every other tool is held back, and a `tool_search` tool is offered in
their place. Its description names each server namespace and how many tools it holds; a search
by words or by namespace enables the best matches, which are sent from the next request on.
This is the deferred-tool pattern of Claude Code's tool search and pydantic-ai, grouped by
namespace as seed 000 §12 asks.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agentcli.core.types import Tier, Tool
from agentcli.tools.base import BuiltinTool, ToolContext, arg_int, arg_str

SEARCH_NAME = "tool_search"
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
MAX_ENABLED = 40  # found tools kept on offer; the oldest fall back to deferred (still searchable)
_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset(["a", "an", "the", "to", "of", "in", "on", "for", "and", "or", "with", "from", "by", "is", "are", "be", "this", "that", "it", "as", "at", "tool", "tools"])


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower().replace("_", " ")) if w not in _STOP}


def _score(tool: Tool, query: set[str]) -> float:
    name, desc = _words(tool.name), _words(tool.description)
    score = 3.0 * len(name & query) + len(desc & query)
    stems = {w[:5] for w in query if len(w) >= 4}
    score += 0.5 * sum(1 for w in name | desc if len(w) >= 4 and w[:5] in stems)
    return score


@dataclass
class ToolCatalog:
    """What this session holds back and what the model has found; one per session."""

    deferred: list[Tool] = field(default_factory=list)
    enabled: list[str] = field(default_factory=list)  # most recently found last

    def namespaces(self) -> Counter[str]:
        return Counter(t.namespace or "built-in" for t in self.deferred)

    def search(self, query: str, limit: int) -> list[Tool]:
        """Best matches among deferred tools; a namespace name alone lists that namespace."""
        q = query.strip().lower()
        by_ns = [t for t in self.deferred if (t.namespace or "").lower() == q]
        if by_ns:
            return by_ns[:limit]
        words = _words(q)
        scored = [(s, i, t) for i, t in enumerate(self.deferred) if (s := _score(t, words)) > 0]
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [t for _, _, t in scored[:limit]]

    def enable(self, names: list[str]) -> None:
        for name in names:
            if name in self.enabled:
                self.enabled.remove(name)
            self.enabled.append(name)
        del self.enabled[:-MAX_ENABLED]


def _search_spec(catalog: ToolCatalog) -> Tool:
    groups = ", ".join(f"{ns} ({n})" for ns, n in sorted(catalog.namespaces().items()))
    return Tool(
        SEARCH_NAME,
        f"Find and enable more tools. {len(catalog.deferred)} tools are not shown to save space; "
        f"by namespace: {groups}. Call with words describing what you need (or a namespace name to list it); "
        "the matches become callable from your next reply.",
        {"type": "object", "properties": {
            "query": {"type": "string", "description": "What the tool should do, or a namespace name."},
            "limit": {"type": "integer", "description": f"How many tools to enable (1-{MAX_RESULTS}).",
                      "minimum": 1, "maximum": MAX_RESULTS},
        }, "required": ["query"]},
        tier=Tier.CRAWL, read_only=True, model_visible=False,
    )


class ToolSearch(BuiltinTool):
    """The `tool_search` tool of one session, bound to its catalog."""

    def __init__(self, catalog: ToolCatalog) -> None:
        self.catalog = catalog
        self.spec = _search_spec(catalog)

    def refresh(self) -> Tool:
        self.spec = _search_spec(self.catalog)
        return self.spec

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> str:
        query = arg_str(args, "query")
        limit = arg_int(args, "limit", DEFAULT_RESULTS, lo=1, hi=MAX_RESULTS)
        found = self.catalog.search(query, limit)
        if not found:
            groups = ", ".join(f"{ns} ({n})" for ns, n in sorted(self.catalog.namespaces().items()))
            return f"No tool matches {query!r}. Namespaces you can search: {groups or 'none'}."
        self.catalog.enable([t.name for t in found])
        lines = [f"Enabled {len(found)} tool(s); call them directly from your next reply:"]
        by_ns: dict[str, list[Tool]] = {}
        for t in found:
            by_ns.setdefault(t.namespace or "built-in", []).append(t)
        for ns, tools in by_ns.items():
            lines.append(f"[{ns}]")
            for t in tools:
                params = ", ".join(t.parameters.get("properties", {}))
                lines.append(f"  {t.name}({params}) — {t.description[:200]}")
        return "\n".join(lines)


def fit_tools(
    tools: list[Tool], budget: int, task: str, catalog: ToolCatalog | None,
    optimize: Callable[[list[Tool], int, str], list[Tool]], estimate: Callable[[Tool], int],
) -> tuple[list[Tool], Tool | None]:
    """(tools to send, the search tool to add or None).

    Short descriptions are tried first; only when they are not enough are tools deferred. Without
    a catalog (no way to search) the old rule applies: the least relevant tools are left out.
    """
    fitted = optimize(tools, budget, task)
    if len(fitted) == len(tools) or catalog is None:
        if catalog is not None:
            catalog.deferred = []
        return fitted, None
    enabled = set(catalog.enabled)
    pinned = [t for t in tools if t.namespace is None or t.name in enabled]
    pinned_names = {t.name for t in pinned}
    catalog.deferred = [t for t in tools if t.name not in pinned_names]  # first guess, for the spec's size
    search = _search_spec(catalog)
    kept = optimize(pinned, max(0, budget - estimate(search)), task)
    names = {t.name for t in kept}
    catalog.deferred = [t for t in tools if t.name not in names]
    return kept, _search_spec(catalog)
