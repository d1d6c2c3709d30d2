"""Family markup is declared on each dialect and collected from the table: a new reasoning family is
one module, one registry row and one fixture, with no central table to edit."""

from __future__ import annotations

import contextlib
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest
from dialect_corpus import context, expected_calls, found_calls, load_fixture
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.core.events import StreamKind
from agentcli.wire import dialects, pipeline
from agentcli.wire.dialects import _markup
from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.dialects._block import BlockDialect, BlockRead
from agentcli.wire.dialects._opaque import markup_pattern
from agentcli.wire.dialects._scan import Block, calls_from_json, loads
from agentcli.wire.pipeline import parse_text
from agentcli.wire.textstream import TextStream
from tests.unit.wire.dialects import throwaway

ROOT = Path(__file__).resolve().parents[4]


# --- a throwaway reasoning family: the module, the row, the fixture -------------------------------

class _Ponder(BlockDialect):
    """<ponder>reasoning</ponder>, then calls as a JSON list in <calls>..</calls>."""

    name = "ponder"
    markers = ("<calls>",)
    owns = ("<calls>",)
    begin, end = "<calls>", "</calls>"
    reasoning_tags = (("<ponder>", "</ponder>"),)
    section_openers = ("<calls>",)  # a thought left open ends where the calls begin
    call_wrappers = (("<calls>", "</calls>"),)

    def read_block(self, text: str, blk: Block) -> BlockRead | None:
        if not blk.closed:
            return None
        found = calls_from_json(loads(text[blk.body_start : blk.body_end].strip()), text[blk.start : blk.end], self.name)
        return (found, blk.end) if found else None


PONDER = _Ponder()
CALL = '<calls>[{"name": "read_file", "arguments": {"path": "notes.txt"}}]</calls>'
FIXTURE = {
    "dialect": "ponder",
    "cases": [
        {"id": "single", "text": "<ponder>The notes first.</ponder>Reading them." + CALL,
         "calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}], "text_after": "Reading them.",
         "thinking": "The notes first.", "tools": ["read_file"]},
        {"id": "open_thought", "text": "<ponder>The notes first." + CALL,
         "calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}}], "text_after": "",
         "thinking": "The notes first.", "tools": ["read_file"]},
        {"id": "prose", "text": "<ponder>No tool needed.</ponder>It is 4.", "calls": [], "text_after": "It is 4.",
         "thinking": "No tool needed.", "tools": ["read_file"]},
    ],
}


@contextlib.contextmanager
def registered() -> Iterator[None]:
    """The throwaway family in the registry for the block, gone after (every table-built cache too)."""
    with throwaway.registered("throwaway_dialects.ponder", {"ponder": PONDER}):
        yield
    assert PONDER.reasoning_tags[0] not in _markup.collected().reasoning_tags


@pytest.mark.parametrize("case", FIXTURE["cases"], ids=lambda c: c["id"])
def test_a_new_family_needs_no_central_table(case):
    with registered():
        resp = parse_text(case["text"], context(case))
    assert found_calls(resp) == expected_calls(case)
    assert resp.text == case["text_after"]
    assert resp.thinking == case["thinking"]


def test_the_stream_detector_holds_back_the_new_familys_markup():
    case = FIXTURE["cases"][0]
    with registered():
        stream = TextStream(tuple(dialects.DIALECTS), context(case))
        events = []
        for i in range(0, len(case["text"]), 3):  # small deltas: tags arrive split
            events += stream.feed(case["text"][i : i + 3])
        events += stream.flush()
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    thought = "".join(e.text for e in events if e.kind is StreamKind.THINKING)
    assert shown == case["text_after"]
    assert thought == case["thinking"]
    assert [e.name for e in events if e.kind is StreamKind.TOOL_START] == ["read_file"]


_PROSE = st.text(st.sampled_from("abcdefghij XYZ.,;:!?\n"), max_size=40)


@settings(max_examples=60, deadline=None)
@given(before=_PROSE, thought=_PROSE, after=_PROSE, closed=st.booleans())
def test_the_new_familys_reasoning_never_reaches_the_text(before, thought, after, closed):
    """Whatever prose surrounds it, the reasoning goes to thinking and the call is read."""
    text = before + "<ponder>" + thought + ("</ponder>" + after if closed else "") + CALL
    with registered():
        resp = parse_text(text, context(FIXTURE["cases"][0]))
    assert [c.name for c in resp.tool_calls] == ["read_file"]
    assert resp.thinking == thought.strip()
    assert "<ponder>" not in resp.text and "</ponder>" not in resp.text and "<calls>" not in resp.text


def test_the_fixture_has_the_corpus_shape():
    """The throwaway fixture is what a real family's fixture file holds (test_coverage's basics),
    and it is never on disk: nothing of the throwaway family leaks into the corpus."""
    counts = [len(c["calls"]) for c in FIXTURE["cases"]]
    assert 1 in counts and 0 in counts
    assert load_fixture(FIXTURE["dialect"]) is None


# --- every real dialect's declarations reach the collected tuples ---------------------------------

@pytest.mark.parametrize("name", dialects.names())
def test_declared_markup_is_collected(name):
    d = dialects.get(name)
    c = _markup.collected()
    rx = markup_pattern()
    for open_tag, close_tag in d.reasoning_tags:
        assert (open_tag, close_tag) in c.reasoning_tags
        assert c.close_of[open_tag] == close_tag  # the stream detector's opener -> closer
        for tag in (open_tag, close_tag):  # the split's quick check lets either tag through
            assert any(p in tag for p in c.probes), tag  # a short reply's check
            assert any(p in tag for p in pipeline._reasoning_markup()), tag  # a long reply's check
    for pair in d.call_wrappers:
        assert pair in c.call_wrappers
    for token in d.section_openers:
        assert token in c.section_openers
    if d.reasoning_split is not None:
        assert d.reasoning_split in c.reasoning_splits
        assert any(p in d.reasoning_split.trigger for p in c.probes)
        assert any(p in d.reasoning_split.trigger for p in pipeline._reasoning_markup())
    declared = [t for pair in (*d.reasoning_tags, *d.call_wrappers) for t in pair] + list(d.section_openers)
    for tag in declared:  # quoted in a string argument, the masking hides it
        if len(tag) >= 3 and tag[0] in "<[]" and '"' not in tag:
            assert rx.fullmatch(tag), tag


def test_generic_markup_is_collected_first():
    """Markup no family owns (`<think>`, turn tokens) is declared once and read before any family's."""
    c = _markup.collected()
    assert c.reasoning_tags[: len(_markup.GENERIC.reasoning_tags)] == _markup.GENERIC.reasoning_tags
    assert set(_markup.GENERIC.turn_end) <= set(c.turn_end)


# --- the block frame's call cap holds for every dialect built on it -------------------------------

def _one_call_text(name: str) -> str | None:
    for case in (load_fixture(name) or {}).get("cases", ()):
        if len(case["calls"]) == 1 and not case["calls"][0].get("error") and not case.get("tools"):
            cands, _ = dialects.get(name).parse(case["text"])
            if len(cands) == 1:
                return case["text"]
    return None


BLOCK_DIALECTS = [n for n in dialects.names() if isinstance(dialects.get(n), BlockDialect)]


def test_several_dialects_share_the_block_frame():
    assert len(BLOCK_DIALECTS) >= 9


@pytest.mark.parametrize("name", BLOCK_DIALECTS)
def test_block_dialects_stop_past_the_call_cap(name):
    one = _one_call_text(name)
    assert one is not None, f"{name}: its fixture needs a one-call case the dialect reads alone"
    flood = "\n".join([one.strip()] * (MAX_CALLS + 20))
    cands, rest = dialects.get(name).parse(flood)
    assert MAX_CALLS < len(cands) <= MAX_CALLS + 1  # one block past the cap at most, then the scan stops
    assert dialects.get(name).begin in rest  # the blocks after the cap stay text


# --- the independence contract covers every public dialect module ---------------------------------

def test_independence_contract_lists_every_public_dialect_module():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    listed = next(set(c["modules"]) for c in contracts if c["type"] == "independence"
                  and any(m.startswith("agentcli.wire.dialects.") for m in c["modules"]))
    folder = ROOT / "agentcli" / "wire" / "dialects"
    public = {f"agentcli.wire.dialects.{p.stem}" for p in folder.glob("*.py") if not p.stem.startswith("_")}
    assert listed == public
