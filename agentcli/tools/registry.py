"""The tool table and the two questions the loop asks of it: what may the model see, and may it run this.

Tiers nest (crawl < walk < run); a tool above the current tier is neither sent nor run.
The profile's allow/deny lists apply to both questions in the same way.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING

from agentcli.core.errors import ErrorCode, ToolError
from agentcli.core.lazy import LazyTable
from agentcli.core.types import Tier, Tool

if TYPE_CHECKING:
    from agentcli.tools.base import BuiltinTool

# name -> "module:ATTRIBUTE" under agentcli.tools.builtin, imported on first use.
BUILTINS: dict[str, str] = {
    "read_file": "read_file:TOOL",
    "list_files": "list_files:TOOL",
    "search": "search:TOOL",
    "think": "think:TOOL",
    "submit": "submit:TOOL",
    "ask_user": "ask_user:TOOL",
    "request_tier": "request_tier:TOOL",
    "todo": "todo:TOOL",
    "git": "git:TOOL",
    "fetch_url": "fetch_url:TOOL",
    "write_file": "write_file:TOOL",
    "edit_file": "edit_file:TOOL",
    "move": "move:TOOL",
    "copy": "copy:TOOL",
    "delete": "delete:TOOL",
    "make_dir": "make_dir:TOOL",
    "git_write": "git_write:TOOL",
    "bash": "bash:TOOL",
    "background": "background:TOOL",
}


_builtins: LazyTable[BuiltinTool] = LazyTable("agentcli.tools.builtin", BUILTINS)
_load = _builtins.load


class ToolRegistry:
    """Built-ins (and any registered extras) by name, with tier and list checks."""

    def __init__(self, table: dict[str, str] | None = None, extra: Iterable[BuiltinTool] = ()) -> None:
        self._table = dict(BUILTINS if table is None else table)
        self._loaded: dict[str, BuiltinTool] = {}
        self.version = 0  # bumped by every register: what the model may see may have changed
        for tool in extra:
            self.register(tool)

    def register(self, tool: BuiltinTool) -> None:
        """Add or replace a tool instance (plugins, tests)."""
        self._loaded[tool.spec.name] = tool
        self._table.setdefault(tool.spec.name, "")
        self.version += 1

    def names(self) -> list[str]:
        return list(self._table)

    def get(self, name: str) -> BuiltinTool | None:
        tool = self._loaded.get(name)
        if tool is None:
            ref = self._table.get(name)
            if not ref:
                return None
            tool = self._loaded[name] = _load(ref)
        return tool

    def all(self) -> list[Tool]:
        return [t.spec for t in (self.get(n) for n in self._table) if t is not None]

    def tier_of(self, name: str) -> Tier | None:
        tool = self.get(name)
        return tool.spec.tier if tool else None

    def visible(self, tier: Tier | str, allow: list[str] | None, deny: list[str],
                cap: Tier | str | None = None) -> list[Tool]:
        """The tools to send to the model now: within the tier, allowed and not denied. `cap` (the
        highest tier this run may reach) lets a tool be shaped by what lies above (the tier request)."""
        from agentcli.tools.base import TierView

        tier = Tier.parse(tier)
        top = max(tier, Tier.parse(cap)) if cap is not None else tier
        deny_set = set(deny or ())
        tools = [t for t in (self.get(n) for n in self._table) if t is not None]
        allowed = [t for t in tools if t.spec.model_visible and t.spec.name not in deny_set
                   and (allow is None or t.spec.name in allow)]
        locked: dict[Tier, list[str]] = {}
        for t in allowed:
            if tier < t.spec.tier <= top:
                locked.setdefault(t.spec.tier, []).append(t.spec.name)
        view = TierView(tier, top, locked)
        out = []
        for t in allowed:
            if t.spec.tier <= tier and (spec := t.offered(view)) is not None:
                out.append(spec)
        return out

    def check(self, name: str, tier: Tier | str, allow: list[str] | None, deny: list[str]) -> ToolError | None:
        """None when `name` may run now; otherwise the error to give the model."""
        tier = Tier.parse(tier)
        tool = self.get(name)
        if tool is None:
            offered = ", ".join(s.name for s in self.visible(tier, allow, deny))
            return ToolError.of(ErrorCode.NOT_FOUND, f"there is no tool named {name!r}",
                                f"Use one of the tools offered: {offered}.", tool=name)
        if name in set(deny or ()):
            return ToolError.of(ErrorCode.PERMISSION, f"tool {name!r} is disabled by the profile's tools.deny list",
                                "Reach the goal with the other tools.", tool=name)
        if allow is not None and name not in allow:
            return ToolError.of(ErrorCode.PERMISSION, f"tool {name!r} is not in the profile's tools.allow list",
                                "Reach the goal with the tools offered.", tool=name)
        needed = tool.spec.tier
        if needed > tier:
            return ToolError.of(
                ErrorCode.PERMISSION,
                f"tool {name!r} needs tier {needed.label}; the current tier is {tier.label}",
                "Use the tools offered at this tier, or ask the user to raise the tier.",
                tool=name, tier=tier.label, needed=needed.label,
            )
        return None


@lru_cache(maxsize=1)
def default_registry() -> ToolRegistry:
    """The shared registry of built-in tools."""
    return ToolRegistry()
