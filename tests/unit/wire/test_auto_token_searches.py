"""Functionary and Claude XML run in the auto chain on replies that are not theirs (a `\\n{` of a
JSON block, a `function_calls>` of OLMo 3's tag): their token searches go by the places of the
token's rare character (`locate`, `holds`) instead of a plain search of the reply, which walks
100 KB holding no `>` at over a nanosecond a character (issue 29). On generated long replies
(their tokens, JSON, prose; past the size where those searches take over) each reads what the
same dialect reads with plain searches: the same calls and the same text."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _seen, claude_xml, functionary

PIECES = [">>>", "all\n", "get_weather\n", "python\n", "<function=get_weather>", "</function>", "<|python_tag|>",
          "print(1)\n", '{"city": "Paris"}', "\n{", "{", "}", ">", "<", "|", "\n", " ", "Checking.\n",
          "<function_calls>", "</function_calls>", '<invoke name="get_weather">', "</invoke>",
          '<parameter name="city">', "</parameter>", "invoke name=", "=", "lorem ipsum "]
FILLER = "lorem ipsum dolor sit amet "
pieces = st.lists(st.sampled_from(PIECES), max_size=10).map("".join)
replies = st.tuples(pieces, st.integers(160, 400), pieces, pieces).map(
    lambda t: t[0] + FILLER * t[1] + t[2] + FILLER * (t[1] // 4) + t[3]).filter(lambda t: len(t) >= _seen.SHORT)


def _read(dialect: Any, text: str) -> tuple[list[tuple[Any, ...]], str]:
    cands, rest = dialect.parse(text)
    return [(c.name, json.dumps(c.arguments, sort_keys=True), c.raw, c.error) for c in cands], rest


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies)
def test_functionary_reads_what_plain_searches_read(text: str) -> None:
    got = _read(functionary.FUNCTIONARY, text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(functionary, "finder", lambda text, below: text.find)
        assert _read(functionary.FUNCTIONARY, text) == got


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(text=replies)
def test_claude_xml_reads_what_plain_searches_read(text: str) -> None:
    dialect = claude_xml.ClaudeXmlDialect()
    got = _read(dialect, text)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(claude_xml, "holds", lambda text, needle: needle in text)
        assert _read(dialect, text) == got

