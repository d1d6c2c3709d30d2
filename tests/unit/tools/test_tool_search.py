"""Many tools, small budget: tools that do not fit are deferred behind tool_search, never dropped."""

from __future__ import annotations

import asyncio

from agentcli.core.types import Tier, Tool
from agentcli.tools.deferred import SEARCH_NAME, ToolCatalog, ToolSearch, fit_tools
from agentcli.wire.emulate import estimate_tokens, optimize_tool_definitions

TOPICS = ["invoice", "weather", "calendar", "ticket", "refund"]


def _tools(n: int) -> list[Tool]:
    builtins = [Tool("read_file", "Read a file from the workspace."), Tool("bash", "Run a command.", tier=Tier.RUN)]
    obj = {"type": "object", "properties": {"id": {"type": "string", "description": "The record id."}}}
    extra = [Tool(f"{ns}_{TOPICS[i % 5]}_{i}", f"[{ns}] Handle {TOPICS[i % 5]} records number {i}, " + "detail " * 20,
                  obj, namespace=ns) for i in range(n) for ns in (["crm", "ops"][i % 2],)]
    return builtins + extra


def _fit(tools, catalog, budget=1200, task="refund the order"):
    return fit_tools(tools, budget, task, catalog, optimize_tool_definitions, estimate_tokens)


def test_tools_that_fit_are_sent_as_they_are():
    tools = _tools(3)
    kept, search = _fit(tools, ToolCatalog(), budget=100_000)
    assert search is None and [t.name for t in kept] == [t.name for t in tools]


def test_overflow_is_deferred_with_a_search_tool_and_nothing_is_lost():
    tools, catalog = _tools(200), ToolCatalog()
    kept, search = _fit(tools, catalog)
    assert search is not None and search.name == SEARCH_NAME
    names = {t.name for t in kept}
    assert {"read_file", "bash"} <= names  # built-ins stay
    assert names | {t.name for t in catalog.deferred} == {t.name for t in tools}
    assert not names & {t.name for t in catalog.deferred}
    assert sum(estimate_tokens(t) for t in [*kept, search]) <= 1200
    assert "crm (100)" in search.description and "ops (100)" in search.description


def test_search_enables_matches_that_are_then_sent():
    tools, catalog = _tools(200), ToolCatalog()
    _fit(tools, catalog)
    tool = ToolSearch(catalog)
    out = asyncio.run(tool.run({"query": "refund records", "limit": 3}, None))  # type: ignore[arg-type]
    found = [n for n in catalog.enabled]
    assert len(found) == 3 and all("refund" in n for n in found)
    assert "[crm]" in out or "[ops]" in out
    kept, _ = _fit(tools, catalog)
    assert set(found) <= {t.name for t in kept}
    listed = asyncio.run(tool.run({"query": "ops", "limit": 20}, None))  # type: ignore[arg-type]
    assert listed.count("ops_") == 20 and "crm_" not in listed
    assert "No tool matches" in asyncio.run(tool.run({"query": "zzzz"}, None))  # type: ignore[arg-type]


def test_without_a_catalog_the_old_fitting_rule_applies():
    kept, search = _fit(_tools(200), None)
    assert search is None and len(kept) < 202
