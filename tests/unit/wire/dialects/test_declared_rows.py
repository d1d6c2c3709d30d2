"""The registry's declared rows (dialects/_declared.py) are each dialect's own declarations, and the
parse reads a dialect's module only when its chain reads with it: built from the rows, the marker
index, the string masking and the reasoning split import nothing (counted imports, not time)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from dialect_corpus import all_cases, context
from hypothesis import example, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects
from agentcli.wire.dialects import _declared, _declared_gen, _markup
from agentcli.wire.dialects._base import Declared, declaration_of
from agentcli.wire.pipeline import parse_text


@pytest.mark.parametrize("name", dialects.names())
def test_each_row_is_what_its_dialect_declares(name):
    ref = dialects.DIALECTS[name]
    assert ref in _declared.ROWS, f"no declared row for {ref}: run python -m agentcli.wire.dialects._declared_gen"
    assert _declared.ROWS[ref] == declaration_of(dialects.get(name)), (
        f"{name}'s declarations changed: run python -m agentcli.wire.dialects._declared_gen")
    assert dialects.declared(name) == _declared.ROWS[ref]


def test_no_row_outlives_its_registry_row():
    assert set(_declared.ROWS) == set(dialects.DIALECTS.values())


def test_the_file_is_what_the_generator_writes():
    path = Path(_declared.__file__)
    text = path.read_text(encoding="utf-8")
    assert _declared_gen.rewritten(text) == text


def test_a_row_added_at_run_time_is_read_from_its_dialect(monkeypatch):
    """A registry row with no declared row (a plugin, a test's throwaway family) still counts: its
    declarations come from the loaded dialect, and the chain gets the dialect itself."""
    monkeypatch.setitem(dialects.DIALECTS, "hermes_again", "hermes:HERMES_AGAIN")
    hermes = dialects.get("hermes")
    import agentcli.wire.dialects.hermes as module

    monkeypatch.setattr(module, "HERMES_AGAIN", hermes, raising=False)
    assert dialects.declared("hermes_again") == declaration_of(hermes)
    assert dialects.deferred("hermes_again") is hermes


def test_a_deferred_dialect_answers_its_declarations_and_parses_as_itself():
    for name in dialects.names():
        d, real = dialects.deferred(name), dialects.get(name)
        for field in Declared._fields:
            if field not in ("split_trigger", "split_ref"):
                assert getattr(d, field, ()) == getattr(real, field, ()), (name, field)
        text = "<tool_call>{\"name\": \"f\", \"arguments\": {}}</tool_call>"
        assert d.name == real.name
        assert d.parse(text) == real.parse(text)


def test_a_deferred_dialect_reads_a_patched_parse(monkeypatch):
    """The stand-in looks the method up on the dialect at each use, so a patch of the dialect counts."""
    d = dialects.deferred("hermes")
    monkeypatch.setattr(dialects.get("hermes"), "parse", lambda text: ([], "patched"))
    assert d.parse("x") == ([], "patched")


# --- what a parse loads -----------------------------------------------------------------------------

def _always_loaded() -> set[str]:
    """Dialects the chain reads every reply with (no marker) and those declaring a reasoning split
    (its function is collected with the markup)."""
    return {n for n in dialects.names()
            if (not dialects.declared(n).markers and not dialects.declared(n).offered_only)
            or _split_by_function(n)}


def _split_by_function(name: str) -> bool:
    """A reasoning split declared with the function itself: collecting the markup imports its dialect."""
    row = dialects.declared(name)
    return row.split_trigger is not None and row.split_ref is None


def _loaded_by(text: str, case: dict) -> set[str]:
    """The registry names a parse of `text` loaded, with every table-built cache cleared first."""
    loaded: set[str] = set()
    by_ref = {ref: n for n, ref in dialects.DIALECTS.items()}
    real = dialects._table.load

    def counting(ref: str):  # noqa: ANN202
        loaded.add(by_ref.get(ref, ref))
        return real(ref)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(dialects._table, "load", counting)
        _markup.forget()
        try:
            parse_text(text, context(case))
        finally:
            _markup.forget()
    return loaded


CASES = all_cases(dialects.names())


def _case(name: str, case_id: str) -> tuple[str, dict]:
    return next(c for c in CASES if c[0] == name and c[1]["id"] == case_id)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(CASES), min_size=1, max_size=2), st.sampled_from(["", "\n", " and then "]))
@example([_case("kimi_k2", "section_begin_without_call_begin"), _case("llama3_json", "single_bare")], "")
def test_a_parse_loads_only_the_dialects_whose_markers_it_holds(picked, glue):
    """Any fixture reply, or two run together: the dialects loaded are the always-read ones and those
    whose markers (or, for offered-only forms, an offered tool's tag) stand in the text; never the
    other families."""
    case = {"tools": [t for _, c in picked for t in c.get("tools", ())]}
    text = glue.join(c["text"] for _, c in picked)
    # the chain asks each dialect of the text left when an earlier one took its calls, and the
    # pieces left can meet into another family's marker ("Checking.\n" + a bare JSON call: "\n{")
    def pieces(name: str, c: dict) -> list[str]:
        """What a case's own dialect may leave of it: all of it, its text after, or its prose before
        its first marker (a call at the end taken out)."""
        own = [at for m in dialects.declared(name).markers if m and (at := c["text"].find(m)) >= 0]
        return [c["text"], c.get("text_after", c["text"]), *([c["text"][:min(own)]] if own else [])]

    lefts = [glue.join(parts) for parts in itertools.product(*(pieces(n, c) for n, c in picked))]
    present = set()
    for n in dialects.names():
        row = dialects.declared(n)
        if any(m and m in left for m in (*row.markers, *row.owns) for left in lefts):
            present.add(n)
        if row.offered_only and any(f"<{t}>" in text for t in case.get("tools", ())):
            present.add(n)
    assert _loaded_by(text, case) <= _always_loaded() | present


def test_a_hermes_reply_loads_no_other_family():
    call = '<tool_call>{"name": "read_file", "arguments": {"path": "a.txt"}}</tool_call>'
    splits = {n for n in dialects.names() if _split_by_function(n)}
    # all calls: the markerless dialects are given only the line break left, which needs none of them
    assert _loaded_by(call + "\n", {"tools": ["read_file"]}) == {"hermes"} | splits
    # prose beside the call: they read it, as every reply's prose is read
    assert _loaded_by("Reading it.\n" + call, {"tools": ["read_file"]}) == {"hermes"} | _always_loaded()
    assert len(_always_loaded()) < len(dialects.names()) // 5


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet=" \t\r\n\x0b\x0c\u00a0\u2028\u3000", max_size=6))
def test_every_dialect_reads_nothing_from_whitespace(space):
    """What a stand-in answers for a text of whitespace only without loading its dialect."""
    for name in dialects.names():
        assert dialects.get(name).parse(space) == ([], space), name
        assert dialects.deferred(name).parse(space) == ([], space), name


def test_a_split_declared_by_reference_is_collected_as_itself_and_loads_on_its_trigger():
    """Harmony's analysis split is declared by reference: the collected markup holds the very same
    split, no module is imported to collect it, and a reply holding its trigger splits as before."""
    from agentcli.wire.dialects import harmony
    from agentcli.wire.dialects._base import split_by

    assert harmony.HARMONY.reasoning_split.split is split_by("harmony:split_analysis")
    assert harmony.HARMONY.reasoning_split in _markup.collected().reasoning_splits
    text = "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Hi<|return|>"
    assert harmony.HARMONY.reasoning_split.split(text) == harmony.split_analysis(text)
    assert "harmony" not in _loaded_by('<tool_call>{"name": "f", "arguments": {}}</tool_call>', {})
