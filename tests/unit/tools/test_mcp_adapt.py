"""MCP listing -> Tool spec and MCP result -> text: names, tiers, schemas, bounds, content kinds."""

from __future__ import annotations

import json

import pytest

from agentcli.config.mcp_schema import McpServerConfig
from agentcli.core.types import Tier
from agentcli.tools.mcp.adapt import (
    MAX_DESCRIPTION,
    MAX_SCHEMA_BYTES,
    render_result,
    tier_from_annotations,
    to_listed,
)
from agentcli.wire.names import SAFE_NAME

OBJ = {"type": "object", "properties": {"q": {"type": "string"}}}


def _cfg(**kw):
    return McpServerConfig(command=["srv"], **kw)


@pytest.mark.parametrize("ann, tier", [
    ({"readOnlyHint": True}, Tier.CRAWL),
    ({"readOnlyHint": True, "destructiveHint": True, "openWorldHint": True}, Tier.CRAWL),
    ({"readOnlyHint": False, "destructiveHint": False, "openWorldHint": False}, Tier.WALK),
    ({"destructiveHint": False}, Tier.RUN),  # MCP's default: open world unless it says otherwise
    ({"destructiveHint": False, "openWorldHint": True}, Tier.RUN),
    ({"destructiveHint": True, "openWorldHint": False}, Tier.RUN),
    ({}, Tier.RUN),
    (None, Tier.RUN),
    ("readOnlyHint", Tier.RUN),  # garbage is unannotated
    ({"readOnlyHint": "true"}, Tier.RUN),  # only a real boolean counts
])
def test_tier_from_annotations(ann, tier):
    assert tier_from_annotations(ann) is tier


def test_spec_is_namespaced_prefixed_and_shaped_like_a_builtin():
    item = to_listed("time", {"name": "get_current_time", "description": "Get the time.", "inputSchema": OBJ,
                              "annotations": {"readOnlyHint": True}}, _cfg(), set())
    spec = item.spec
    assert (spec.name, spec.namespace, spec.tier, spec.read_only, spec.needs_approval) == (
        "time_get_current_time", "time", Tier.CRAWL, False, True)  # a claim: offered at crawl, but asks
    trusted = to_listed("time", {"name": "get_current_time", "inputSchema": OBJ,
                                 "annotations": {"readOnlyHint": True}}, _cfg(trust_annotations=True), set()).spec
    assert (trusted.tier, trusted.read_only, trusted.needs_approval) == (Tier.CRAWL, True, False)
    assert spec.description == "[time] Get the time."
    assert spec.parameters["properties"] == OBJ["properties"]
    write = to_listed("git", {"name": "git_commit", "inputSchema": OBJ,
                              "annotations": {"destructiveHint": False, "openWorldHint": False}}, _cfg(), set()).spec
    assert write.name == "git_commit"  # already prefixed with its server: kept
    assert (write.tier, write.read_only, write.needs_approval) == (Tier.WALK, False, True)


@pytest.mark.parametrize("remote", ["a.b/c d", "ünïcode✓", "x" * 300, "tool:with:colons", "-lead"])
def test_names_are_safe_for_every_provider(remote):
    spec = to_listed("srv-1", {"name": remote, "inputSchema": OBJ}, _cfg(), set()).spec
    assert SAFE_NAME.match(spec.name) and spec.name.startswith("srv-1_")


def test_names_never_collide_with_builtins_or_each_other():
    taken = {"read_file"}
    first = to_listed("read", {"name": "file", "inputSchema": OBJ}, _cfg(), taken).spec
    assert first.name != "read_file" and SAFE_NAME.match(first.name)
    a = to_listed("s", {"name": "a.b", "inputSchema": OBJ}, _cfg(), {"read_file"}).spec
    b = to_listed("s", {"name": "a/b", "inputSchema": OBJ}, _cfg(), {"read_file", a.name}).spec
    assert a.name != b.name


def test_overrides_filters_and_bad_listings():
    cfg = _cfg(tier="walk", disabled_tools=["drop"], tools={"special": {"tier": "crawl"}})
    assert to_listed("s", {"name": "drop", "inputSchema": OBJ}, cfg, set()).state == "disabled"
    item = to_listed("s", {"name": "any", "inputSchema": OBJ, "annotations": {"readOnlyHint": True}}, cfg, set())
    assert (item.spec.tier, item.source) == (Tier.WALK, "server override")
    item = to_listed("s", {"name": "special", "inputSchema": OBJ}, cfg, set())
    assert (item.spec.tier, item.spec.read_only, item.source) == (Tier.CRAWL, True, "tool override")
    only = _cfg(enabled_tools=["keep"])
    assert to_listed("s", {"name": "other", "inputSchema": OBJ}, only, set()).state == "disabled"
    assert to_listed("s", {"name": "keep", "inputSchema": OBJ}, only, set()).spec is not None
    assert to_listed("s", {"inputSchema": OBJ}, cfg, set()).state.startswith("error")
    bad = to_listed("s", {"name": "b", "inputSchema": {"type": "object", "properties": {"x": {"type": 5}}}}, cfg, set())
    assert bad.spec is None and "invalid" in bad.state
    assert "not a JSON object" in to_listed("s", {"name": "b", "inputSchema": "x"}, cfg, set()).state
    huge = {"type": "object", "properties": {f"p{i}": {"type": "string", "description": "d" * 100} for i in range(400)}}
    assert len(json.dumps(huge)) > MAX_SCHEMA_BYTES
    assert "bytes" in to_listed("s", {"name": "h", "inputSchema": huge}, cfg, set()).state


def test_descriptions_are_bounded_and_flattened():
    spec = to_listed("s", {"name": "t", "inputSchema": OBJ, "description": "line1\n\x1b[31m" + "w " * 5000},
                     _cfg(), set()).spec
    assert len(spec.description) <= MAX_DESCRIPTION + 4 and "\n" not in spec.description
    titled = to_listed("s", {"name": "t", "inputSchema": OBJ, "annotations": {"title": "A title"}}, _cfg(), set())
    assert titled.spec.description == "[s] A title"


def test_non_object_schema_roots_become_objects():
    spec = to_listed("s", {"name": "t", "inputSchema": {"properties": {"a": {"type": "integer"}}}}, _cfg(), set()).spec
    assert spec.parameters["type"] == "object" and "a" in spec.parameters["properties"]


def test_results_text_structured_media_and_errors():
    assert render_result({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}) == (True, "a\nb")
    ok, text = render_result({"content": [], "structuredContent": {"n": 1}})
    assert ok and json.loads(text) == {"n": 1}
    ok, text = render_result({"content": [{"type": "text", "text": "shown"}], "structuredContent": {"n": 1}})
    assert text == "shown"  # the text is the structured content's own rendering
    ok, text = render_result({"content": [
        {"type": "image", "data": "AAAA" * 10, "mimeType": "image/png"},
        {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
        {"type": "resource", "resource": {"uri": "file:///a", "text": "inside"}},
        {"type": "resource", "resource": {"uri": "file:///b", "blob": "AAAA", "mimeType": "application/pdf"}},
        {"type": "resource_link", "uri": "https://x/y", "name": "y", "mimeType": "text/html"},
        {"type": "hologram"}, "not a dict",
    ]})
    assert ok
    for part in ("[image: image/png, about 30 bytes; not shown]", "[audio: audio/wav", "[resource file:///a]\ninside",
                 "[resource file:///b: application/pdf", "[resource link: y https://x/y (text/html)]",
                 "[content of type hologram; not shown]"):
        assert part in text
    assert render_result({"content": [{"type": "text", "text": "boom"}], "isError": True}) == (False, "boom")
    assert render_result({}) == (True, "(the tool returned no content)")
    assert render_result({"content": "garbage", "isError": "yes"})[0] is True  # only isError: true fails


@pytest.mark.parametrize("trust", [False, True])
@pytest.mark.parametrize("ann", [None, {"readOnlyHint": True}, {"readOnlyHint": True, "destructiveHint": True},
                                 {"readOnlyHint": False}, {"destructiveHint": False, "openWorldHint": False}])
@pytest.mark.parametrize("server_tier, tool_tier", [(None, None), ("crawl", None), (None, "crawl"), ("run", None)])
def test_a_tool_runs_unasked_only_when_the_user_said_so(trust, ann, server_tier, tool_tier):
    """Unasked (read-only, no approval) only through the user's own config: a tier override to
    crawl, or trust_annotations on a server that claims read-only. A claim alone always asks."""
    cfg = _cfg(trust_annotations=trust, tier=server_tier,
               tools={"t": {"tier": tool_tier}} if tool_tier else {})
    spec = to_listed("s", {"name": "t", "inputSchema": OBJ, "annotations": ann}, cfg, set()).spec
    user_says_crawl = tool_tier == "crawl" or (tool_tier is None and server_tier == "crawl")
    believed = trust and server_tier is None and tool_tier is None and (ann or {}).get("readOnlyHint") is True
    assert (not spec.needs_approval) == (user_says_crawl or believed)
    assert spec.read_only == (not spec.needs_approval)
