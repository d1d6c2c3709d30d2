"""Every registered dialect has a fixture file with the conformance basics (vLLM's coverage test idea)."""

from __future__ import annotations

import pytest
from dialect_corpus import FIXTURES, load_fixture

from agentcli.wire import dialects


@pytest.mark.parametrize("name", dialects.names())
def test_registered_dialect_has_fixtures(name):
    data = load_fixture(name)
    assert data is not None, f"no fixture file {FIXTURES / (name + '.json')} for registered dialect {name!r}"
    assert data["dialect"] == name
    cases = data["cases"]
    counts = [len(c["calls"]) for c in cases]
    assert 1 in counts, f"{name}: needs a single-call case"
    # A format that cannot express two calls in one message says so: "no_parallel": "<why>".
    assert any(n >= 2 for n in counts) or data.get("no_parallel"), f"{name}: needs a parallel-calls case"
    assert 0 in counts, f"{name}: needs a prose case with no call"
    assert all(c.get("source") for c in cases), f"{name}: every case names where the output comes from"
    ids = [c["id"] for c in cases]
    assert len(ids) == len(set(ids)), f"{name}: duplicate case ids"


@pytest.mark.parametrize("name", dialects.names())
def test_registered_dialect_loads(name):
    d = dialects.get(name)
    assert d.name == name
    assert isinstance(d.markers, tuple)


def test_no_orphan_fixture_files():
    registered = set(dialects.names())
    orphans = [p.stem for p in FIXTURES.glob("*.json") if p.stem not in registered]
    assert not orphans, f"fixtures for unregistered dialects: {orphans}"


def test_emulation_dialects_render():
    from agentcli.core.types import Tool

    tools = [Tool("read_file", "Read a file.", {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]})]
    for name in dialects.emulation_styles():
        d = dialects.get(name)
        assert "read_file" in d.render_prompt(tools)
        assert "read_file" in d.render_prompt(tools, compact=True)
