"""Streaming under dialect auto shows no call markup the final parse takes out (issue: Hermes tags
reached the terminal with a JSON-preferring auto chain). Generated: every dialect's calls, as its
fixtures and its renderer write them, streamed in random chunkings under every auto chain."""

from __future__ import annotations

import random

import pytest
from dialect_corpus import all_cases

from agentcli.core.events import StreamKind
from agentcli.core.types import Tool, ToolCall
from agentcli.wire import dialects
from agentcli.wire.pipeline import finalize
from agentcli.wire.textstream import TextStream
from agentcli.wire.types import NativeParse, ParseContext

ALL = tuple(dialects.names())
EMULATED = tuple(dialects.emulation_styles())
# Every chain `call_parser = "auto"` builds: the preferred dialect first, then every dialect.
CHAINS = [(None, ALL)] + [(p, tuple(dict.fromkeys((p, *ALL)))) for p in EMULATED]
MARKUP = sorted({m for n in ALL for m in (*dialects.get(n).markers, *getattr(dialects.get(n), "stream_markers", ()))
                 if m[:1] in "<[" and len(m) > 2}, key=len, reverse=True)
PROSE = ["", "Let me check.\n", "Sure! ", "I'll look at that file first.\n\n"]
AFTER = ["", "\n", "\nDone."]


def _stream(text: str, parsers: tuple[str, ...], ctx: ParseContext, rnd: random.Random) -> str:
    s = TextStream(parsers, ctx)
    events = []
    i = 0
    while i < len(text):
        k = rnd.choice((1, 1, 2, 3, 5, 8, 13, 40))
        events += s.feed(text[i:i + k])
        i += k
    events += s.flush()
    return "".join(e.text for e in events if e.kind is StreamKind.TEXT)


def _check(text: str, names: list[str], rnd: random.Random) -> None:
    tools = [Tool(name=n, description="") for n in names]
    for prefer, chain in CHAINS:
        ctx = ParseContext.of(tools, prefer=(prefer,) if prefer else (), prompted=prefer)
        final = finalize(NativeParse(text=text), ctx, chain)
        if not final.tool_calls:
            continue
        removed = [m for m in MARKUP if m in text and m not in final.text]
        shown = _stream(text, chain, ctx, rnd)
        leaked = [m for m in removed if m in shown]
        assert not leaked, (prefer, text, shown, final.text)
        for call in final.tool_calls:
            if call.raw and call.raw.strip() not in final.text:
                assert call.raw.strip() not in shown, (prefer, text, shown)


_FIXTURES = [(n, c) for n, c in all_cases(list(ALL)) if c.get("calls") and not any(x.get("error") for x in c["calls"])]


@pytest.mark.parametrize(("dialect", "case"), _FIXTURES, ids=[f"{n}-{c['id']}" for n, c in _FIXTURES])
def test_fixture_calls_stream_without_markup(dialect, case):
    rnd = random.Random(f"{dialect}/{case['id']}")
    text = rnd.choice(PROSE) + case["text"] + rnd.choice(AFTER)
    _check(text, [c["name"] for c in case["calls"]] + list(case.get("tools", ())), rnd)


_VALUES = ["Paris", "a.txt", "line one\nline two", 'say "hi"', 3, True, None, [1, 2], {"k": "v"}, "", "ünï ☃"]


@pytest.mark.parametrize("dialect", EMULATED)
def test_rendered_calls_stream_without_markup(dialect):
    d = dialects.get(dialect)
    rnd = random.Random(dialect)
    for _ in range(12):
        calls = [ToolCall(name=rnd.choice(["read_file", "get_weather", "run_cmd"]), id=f"c{k}",
                          arguments={rnd.choice(["path", "city", "text", "n"]): rnd.choice(_VALUES)})
                 for k in range(rnd.randint(1, 3))]
        body = "\n".join(d.render_call(c) for c in calls)
        _check(rnd.choice(PROSE) + body + rnd.choice(AFTER), [c.name for c in calls], rnd)


def test_real_llama_cpp_pieces_show_no_tag_under_auto():
    """The bytes a real llama-cpp-python server sent (the tokenizer splits <tool_call> into `<`, `t`,
    `ool`...), streamed through the chain auto builds for a model prompted with JSON: no piece of
    the tag reaches the screen, and the call is announced."""
    import json
    from pathlib import Path

    from agentcli.config.schema import ToolsConfig
    from agentcli.models import resolve_capability
    from agentcli.wire.negotiator import negotiate

    capture = json.loads((Path(__file__).resolve().parents[3] / "fixtures" / "real" / "llama_hermes_stream.json")
                         .read_text(encoding="utf-8"))
    pieces = [json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
              for line in capture["response"]["body"].splitlines() if line.startswith("data: {")]
    plan = negotiate(api="openai", capability=resolve_capability("tiny").capability,
                     tools_cfg=ToolsConfig(tool_format="auto", definition_format="json"))
    assert plan.parsers[0] == "json_block"  # the chain the real run used: JSON preferred, every dialect after
    ctx = ParseContext.of([Tool(name="read_file", description="")], prefer=plan.parsers[:1], prompted=plan.dialect)
    s = TextStream(plan.parsers, ctx)
    events = [e for p in pieces for e in s.feed(p)] + s.flush()
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    assert not any(piece in shown for piece in ("<tool_call", "tool_call>", "</tool")), shown
    assert [e.name for e in events if e.kind is StreamKind.TOOL_START] == ["read_file"]
    final = finalize(NativeParse(text="".join(pieces)), ctx, plan.parsers)
    assert [c.name for c in final.tool_calls] == ["read_file"] and final.text == ""
