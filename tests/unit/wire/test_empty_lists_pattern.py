"""The chain's empty call lists (`<TOOLCALL>[]</TOOLCALL>`, `[TOOL_CALLS] []`) are taken out of the
text with one pattern that asks for the backtick before an opener once the opener's first character
is read, so the engine skips ahead to the places of those characters instead of trying the whole
pattern at every place. It must take out exactly what the pattern with a leading look-behind takes
out: generated texts of every dialect's empty-list markup, backticks, brackets and whitespace."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline

NAMES = tuple(dialects.DIALECTS)


def _pairs() -> list[tuple[str, str]]:
    pairs: set[tuple[str, str]] = set()
    for name in NAMES:
        prep = pipeline._prepared(name)
        if prep is not None:
            pairs.update(prep[0].empty_lists)
    return sorted(pairs, key=lambda p: (-len(p[0]), -len(p[1])))


PAIRS = _pairs()
# The pattern as first written: the look-behind in front of every opener.
LEADING = re.compile(r"(?<!`)(?:" + "|".join(
    re.escape(o) + (r"[ \t]*\[[ \t]*\]" if not c else r"\s*(?:\[\s*\]\s*)?" + re.escape(c)) for o, c in PAIRS) + r")(?!`)")
PIECES = sorted({p for pair in PAIRS for p in pair if p} | {"`", "``", "[", "]", "[]", " ", "\t", "\n", "x", "<", "|"})
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)


def test_the_chain_has_empty_lists_to_take_out() -> None:
    assert PAIRS and pipeline._empty_lists(NAMES) is not None


@settings(max_examples=400, deadline=None)
@given(text=texts)
def test_the_pattern_takes_out_what_the_leading_look_behind_did(text: str) -> None:
    got = pipeline._empty_lists(NAMES)
    assert got is not None
    assert got[1].sub("", text) == LEADING.sub("", text)


def test_a_quoted_empty_list_stays_and_a_bare_one_goes() -> None:
    got = pipeline._empty_lists(NAMES)
    assert got is not None
    assert got[1].sub("", "say `<TOOLCALL>[]</TOOLCALL>` to call none") == "say `<TOOLCALL>[]</TOOLCALL>` to call none"
    assert got[1].sub("", "none: <TOOLCALL>[]</TOOLCALL>.") == "none: ."


def test_openers_sharing_a_first_character_share_one_look_behind() -> None:
    """At each `<` of a reply dense in tags the backtick before it is asked once, not once per pair
    opening with `<` (a dozen: the alternation of whole pairs ran it a dozen times a `<`)."""
    got = pipeline._empty_lists(NAMES)
    assert got is not None
    firsts = {o[0] for o, _ in PAIRS}
    assert len(firsts) < len(PAIRS)
    assert got[1].pattern.count("(?<!") == len(firsts)
