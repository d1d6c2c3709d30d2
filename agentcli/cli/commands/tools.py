"""`agent tools`: the built-in tools by tier, the profile's MCP servers' tools with their server,
tier and state, and which of them a profile and tier let the model see."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentcli.core.errors import UsageError
from agentcli.core.types import Tier
from agentcli.tools.base import BuiltinTool

if TYPE_CHECKING:
    from agentcli.config.schema import Profile
    from agentcli.core.types import Tool
    from agentcli.tools.registry import ToolRegistry


def _load(profile: str | None) -> Profile:
    try:
        from agentcli.config import load_profile
    except ImportError as exc:  # the loader ships separately; say so instead of a traceback
        raise UsageError(f"profiles cannot be loaded here ({exc})", hint="Run `agent tools` without --profile.") from None
    loaded = load_profile(profile)
    for warning in getattr(loaded, "warnings", ()):  # what an untrusted file was not allowed to set
        sys.stderr.write(f"! {warning}\n")
    return loaded.profile


def _limits(prof: Profile | None, named: str | None) -> tuple[Tier, list[str] | None, list[str], str | None]:
    """(max tier, allow, deny, profile name) from the profile, or the open defaults."""
    if prof is None:
        return Tier.RUN, None, [], None
    tools = prof.tools
    return Tier.parse(tools.max_tier), tools.allow, list(tools.deny), getattr(prof, "name", None) or named


def _first_line(text: str) -> str:
    """The description's first sentence, for a one-line listing."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    cut = line.find(". ")
    line = line[: cut + 1] if cut > 0 else line
    return line if len(line) <= 100 else line[:97] + "..."


def _row(reg: ToolRegistry, spec: Tool, shown: set[str], tier: Tier, allow: list[str] | None, deny: list[str],
         server: str | None = None) -> dict[str, Any]:
    why = None
    if spec.name not in shown:
        err = reg.check(spec.name, tier, allow, deny)
        why = err.message if err else "not offered at this tier"
    return {
        "name": spec.name,
        "server": server,
        "tier": spec.tier.label,
        "read_only": spec.read_only,
        "needs_approval": spec.needs_approval,
        "visible": spec.name in shown,
        "state": "visible" if spec.name in shown else "hidden",
        "hidden_because": why,
        "description": _first_line(spec.description),
    }


def rows(tier: Tier, allow: list[str] | None, deny: list[str], registry: ToolRegistry | None = None,
         cap: Tier | None = None) -> list[dict[str, Any]]:
    """One dict per tool, ordered by tier then table order; `visible` follows the registry's rules
    (with `cap`, the tier request shows where a run at `tier` would offer it)."""
    from agentcli.tools.registry import default_registry

    reg = registry or default_registry()
    shown = {t.name for t in reg.visible(tier, allow, deny, cap=cap)}
    specs = [s for s in reg.all() if s.namespace is None and s.model_visible]  # not the hidden trained aliases
    return [_row(reg, spec, shown, tier, allow, deny) for spec in sorted(specs, key=lambda s: int(s.tier))]


def mcp_report(prof: Profile, tier: Tier, allow: list[str] | None, deny: list[str]) -> tuple[list[dict], list[dict], list[Any]]:
    """(tool rows, server rows, the visible MCP tools): start the profile's servers, list their tools, stop them."""
    from agentcli.tools.mcp.manager import probe
    from agentcli.tools.registry import ToolRegistry

    statuses, warnings = probe(prof, Path.cwd())
    servers: list[dict[str, Any]] = [{"name": None, "state": "ignored", "error": w} for w in warnings]
    reg = ToolRegistry()
    for st in statuses:
        for item in st.tools:
            if item.spec is not None:
                reg.register(_Spec(item.spec))
    visible = reg.visible(tier, allow, deny)
    shown = {t.name for t in visible}
    tool_rows: list[dict[str, Any]] = []
    for st in statuses:
        servers.append({"name": st.name, "transport": st.transport, "server": st.server_info,
                        "state": "failed" if st.error else "ok", "error": st.error, "hint": st.hint,
                        "tools": sum(1 for t in st.tools if t.spec is not None)})
        for item in st.tools:
            if item.spec is None:
                tool_rows.append({"name": item.remote, "server": st.name, "tier": None, "read_only": None,
                                  "needs_approval": None, "visible": False, "state": item.state,
                                  "hidden_because": item.state, "description": ""})
                continue
            row = _row(reg, item.spec, shown, tier, allow, deny, st.name)
            row["tier_from"] = item.source
            row["remote_name"] = item.remote
            tool_rows.append(row)
    return tool_rows, servers, visible


def held_back(prof: Profile, tools: list[Tool]) -> set[str]:
    """The tools a run with this profile holds behind `tool_search`: the session's own fit of the
    visible tools into the model's tool budget (agent.session), with no goal to rank them by."""
    from agentcli.agent.session import TOOL_BUDGET_MIN, TOOL_BUDGET_SHARE
    from agentcli.models import resolve_capability
    from agentcli.tools.deferred import ToolCatalog, fit_tools
    from agentcli.wire import estimate_tokens, optimize_tool_definitions

    try:
        cap = resolve_capability(prof.model, overrides=prof.capabilities, provider=prof.provider).capability
    except ValueError:
        return set()  # a bad [capabilities] table is doctor's to explain; list the tools as they are
    window = int(cap.context_window or 0)
    if not window:
        return set()
    catalog = ToolCatalog()
    _, search = fit_tools(tools, max(TOOL_BUDGET_MIN, int(window * TOOL_BUDGET_SHARE)), "", catalog,
                          optimize_tool_definitions, estimate_tokens)
    return {t.name for t in catalog.deferred} if search is not None else set()


def _mark_deferred(table: list[dict[str, Any]], names: set[str]) -> None:
    for row in table:
        if row["visible"] and row["name"] in names:
            row.update(visible=False, state="deferred",
                       hidden_because="held back behind tool_search: the tools do not fit the model's tool budget")


class _Spec(BuiltinTool):
    """A listed tool's spec in a registry used only to answer `visible` and `check` (never run)."""

    def __init__(self, spec: Tool) -> None:
        self.spec = spec


def _cells(table: list[dict[str, Any]]) -> tuple[list[list[str]], list[bool]]:
    """The table's rows as cell strings, and after which row a tier's section ends."""
    cells: list[list[str]] = []
    ends: list[bool] = []
    for i, r in enumerate(table):
        ro = "" if r.get("read_only") is None else ("yes" if r["read_only"] else "no")
        state = r.get("state") or ("visible" if r.get("visible") else "hidden")
        cells.append([str(v) for v in (r["name"], r.get("server") or "built-in", r.get("tier") or "-", ro, state,
                                       r.get("description", ""))])
        ends.append(i + 1 < len(table) and table[i + 1].get("tier") != r.get("tier"))  # crawl, walk, run
    return cells, ends


def _notes(servers: list[dict[str, Any]]) -> list[str]:
    """One warning line per MCP server that failed or was ignored."""
    lines = []
    for s in servers:
        if s.get("error"):
            line = f"! MCP server {s['name']}: {s['error']}" if s["name"] else f"! {s['error']}"
            lines.append(line + (f" (fix: {s['hint']})" if s.get("hint") else ""))
    return lines


def _plain(title: str, cells: list[list[str]], ends: list[bool], notes: list[str]) -> str | None:
    """What rich would write to a stdout without styles (piped), built without loading rich;
    None when rich must draw it (a terminal, a character outside printable ASCII, a narrow width)."""
    from agentcli.ui.console import is_plain, plain_width

    width = plain_width()
    if width is None or not all(map(is_plain, notes)):
        return None
    from agentcli.ui.plain_table import plain_table

    text = plain_table(title, COLUMNS, cells, ends, width, sys.stdout.encoding or "utf-8")
    return None if text is None else text + "".join(line + "\n" for line in notes)


COLUMNS = ("tool", "server", "tier", "read-only", "state", "what it does")


def _render(table: list[dict[str, Any]], servers: list[dict[str, Any]], title: str) -> None:
    cells, ends = _cells(table)
    notes = _notes(servers)
    plain = _plain(title, cells, ends, notes)
    if plain is not None:
        sys.stdout.write(plain)
        return
    from rich.table import Table

    from agentcli.core.escape import styled
    from agentcli.ui.console import make_console

    console = make_console()
    grid = Table(title=styled(title), title_justify="left")
    for col in COLUMNS:
        grid.add_column(col, overflow="fold")
    for row, end in zip(cells, ends):
        # Names, states and descriptions come from servers: text, never markup.
        grid.add_row(*(styled(v) for v in row), end_section=end)
    console.print(grid)
    for line in notes:
        console.print(styled((line, "yellow")))


def _profile_registry(prof: Profile | None) -> ToolRegistry:
    """The tools a session of this profile holds: its model's edit tool (apply_patch for OpenAI's,
    str_replace_based_edit_tool for Claude, unless `[tools] edit_tool` says otherwise), the others
    hidden; without a profile, the default set."""
    from agentcli.tools.registry import default_registry

    if prof is None:
        return default_registry()
    from agentcli.models import resolve_capability
    from agentcli.tools.edit_choice import session_registry

    try:
        trained = resolve_capability(prof.model, overrides=prof.capabilities, provider=prof.provider).capability.edit_tool
    except ValueError:  # a bad override is `agent doctor`'s to explain; the listing shows the default form
        trained = None
    return session_registry(prof.tools.edit_tool, trained, list(prof.tools.deny))


def execute(profile: str | None = None, tier: str | None = None, json_out: bool = False) -> int:
    prof = _load(profile) if profile is not None else None
    max_tier, allow, deny, name = _limits(prof, profile)
    try:
        wanted = Tier.parse(tier) if tier else max_tier
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    effective = min(wanted, max_tier)
    registry = _profile_registry(prof)
    table = rows(effective, allow, deny, registry=registry, cap=max_tier)
    servers: list[dict[str, Any]] = []
    if prof is not None and (getattr(prof, "mcp_servers", None) or getattr(prof, "mcp", None)):
        mcp_rows, servers, mcp_tools = mcp_report(prof, effective, allow, deny)
        table += mcp_rows
        # Only runs with tool sources get a tool_search (agent.build), so only they hold tools back.
        _mark_deferred(table, held_back(prof, [*registry.visible(effective, allow, deny), *mcp_tools]))
    if json_out:
        doc = {"profile": name, "tier": effective.label, "max_tier": max_tier.label, "tools": table,
               "mcp_servers": servers}
        sys.stdout.write(json.dumps(doc, indent=2) + "\n")
        return 0
    title = f"Tools at tier {effective.label}" + (f" (profile {name}, max {max_tier.label})" if name else "")
    _render(table, servers, title)
    if wanted > max_tier:
        from agentcli.core.escape import styled
        from agentcli.ui.console import make_console

        make_console().print(styled(f"Tier {wanted.label} is above the profile's max_tier ({max_tier.label}); "
                                    f"showing {effective.label}."))
    return 0
