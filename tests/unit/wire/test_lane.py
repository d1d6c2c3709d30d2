"""The lane (pipeline._lane, Dialect.lane): a forced dialect's usual reply read without the mask,
the reasoning split and the chain gives the response the full path gives.

The replies are generated around DeepSeek's token layout (V3 fenced, V3.1 bare): prose, names,
gaps and arguments drawn from plain text and from every marker, tag and token the pipeline knows
(inside string values too), with cuts anywhere. Wherever the lane answers, the full path must give
the same response; on the usual shape the lane must answer.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core.types import Tool
from agentcli.wire import pipeline
from agentcli.wire.dialects import _markup, deepseek
from agentcli.wire.types import Candidate, NativeParse, ParseContext

DIALECTS = ("deepseek_v3", "deepseek_v31")
NAMES = ("get_weather", "read_file", "f", "a.b-c")


def _snippets() -> list[str]:
    markup = _markup.collected()
    found = {t for pair in markup.reasoning_tags for t in pair}
    found |= {s.trigger for s in markup.reasoning_splits}
    found |= set(markup.turn_end) | set(markup.turn_start)
    found |= set(pipeline._call_markup())
    found |= {deepseek.CALLS_BEGIN, deepseek.CALLS_END, deepseek.CALL_BEGIN, deepseek.CALL_END, deepseek.SEP,
              deepseek.EOS, *deepseek.OUTPUT_TOKENS, "<|tool▁sep|>", "```", "```json\n", "~~~", "\n```\n"}
    found |= set("'\"\\[]{}()|`~<>｜▁◁▷\n\t ")
    return sorted(found)


def _steering() -> list[str]:
    """The markup that makes the pipeline's general steps act on prose: reasoning tags and splits
    (a lone close tag makes what stands before it reasoning), turn tokens, fences, call tokens."""
    markup = _markup.collected()
    found = {t for pair in markup.reasoning_tags for t in pair} | {s.trigger for s in markup.reasoning_splits}
    found |= set(markup.turn_end) | set(markup.turn_start) | {"```", "```\n", "\n```\n", "~~~\n"}
    found |= {deepseek.CALLS_BEGIN, deepseek.CALL_BEGIN, deepseek.CALL_END, deepseek.CALLS_END, deepseek.EOS}
    return sorted(found)


SNIPPETS = _snippets()
STEERING = _steering()
_plain = st.text(alphabet="abc XYZ019.,:;!?\n\t-_名", max_size=12)
_piece = st.one_of(_plain, _plain, st.sampled_from(SNIPPETS))
_prose = st.one_of(
    st.lists(_piece, max_size=4).map("".join),
    st.tuples(_plain, st.sampled_from(STEERING), _plain, st.sampled_from(STEERING), _plain).map("".join),
)
_plain_prose = st.lists(_plain, max_size=3).map("".join)
_json_text = st.lists(st.one_of(st.text(max_size=8), st.sampled_from(SNIPPETS)), max_size=4).map("".join)
_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6), _json_text,
              st.floats(allow_nan=False, allow_infinity=False, width=32)),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(_json_text, inner, max_size=3)),
    max_leaves=8,
)
_args = st.dictionaries(st.one_of(st.sampled_from(("city", "path", "q")), _json_text), _values, max_size=4)
_space = st.sampled_from(("", "", " ", "\n", "\n\n", " \t"))


@st.composite
def _call(draw: st.DrawFn, names: st.SearchStrategy[str], v3: bool, odd: bool = False) -> str:
    """One call token block; `odd`: prose where whitespace stands (around the arguments)."""
    name = draw(names)
    args = json.dumps(draw(_args), ensure_ascii=draw(st.booleans()),
                      separators=draw(st.sampled_from(((", ", ": "), (",", ":")))), indent=draw(st.sampled_from((None, None, 2))))
    s = draw(_space)
    t = draw(_prose) if odd else s
    if v3:
        fence = draw(st.sampled_from(("```json", "```json", "```", "``` json", "```JSON", "```py")))
        body = f"function{deepseek.SEP}{name}\n{s}{fence}\n{s}{args}{t}\n```{s}"
    else:
        body = f"{s}{name}{s}{deepseek.SEP}{s}{args}{t}"
    return f"{deepseek.CALL_BEGIN}{body}{deepseek.CALL_END}"


@st.composite
def _reply(draw: st.DrawFn, usual: bool) -> tuple[str, str]:
    """A reply in DeepSeek's layout; unless `usual`, each part (prose before and after, each name,
    each gap between tokens) is odd one time in six (any snippet of markup), and one reply in
    eight is cut anywhere: a reply the lane would read but for one part is common."""

    def part(plain: st.SearchStrategy[str], odd: st.SearchStrategy[str]) -> str:
        return draw(plain if usual or draw(st.integers(0, 5)) else odd)

    dialect = draw(st.sampled_from(DIALECTS))
    v3 = draw(st.booleans())
    calls = draw(st.lists(_call(st.sampled_from(NAMES), v3), min_size=1, max_size=3))
    if not usual and draw(st.integers(0, 5)) == 0:  # one call named in prose
        calls[0] = draw(_call(_prose, v3))
    if not usual and draw(st.integers(0, 5)) == 0:  # one call with prose around its arguments
        calls[-1] = draw(_call(st.sampled_from(NAMES), v3, odd=True))
    body = "".join(c + (part(_space, _prose) if i < len(calls) - 1 else "") for i, c in enumerate(calls))
    eos = deepseek.EOS if draw(st.booleans()) else ""
    text = (f"{part(_plain_prose, _prose)}{deepseek.CALLS_BEGIN}{part(_space, _prose)}{body}{part(_space, _prose)}"
            f"{deepseek.CALLS_END}{part(_plain_prose, _prose)}{eos}")
    if not usual and draw(st.integers(0, 7)) == 0:
        text = text[: draw(st.integers(0, len(text)))]  # cut anywhere
    return dialect, text


def _ctx(draw: st.DrawFn, dialect: str, some: bool = True) -> ParseContext:
    offered = draw(st.sampled_from(((), NAMES, NAMES[:2]) if some else ((), NAMES)))
    tools = [Tool(name=n, description="", parameters={"type": "object", "properties": {"city": {"type": "string"}}})
             for n in offered]
    ctx = ParseContext.of(tools) if tools else ParseContext()
    prefer = draw(st.sampled_from(((), (), (dialect,), DIALECTS[::-1], ("hermes",)) if some else ((), (dialect,))))
    return ParseContext(tools=ctx.tools, prefer=prefer) if prefer else ctx


_ALL = st.sampled_from((None, None, ("hermes", "deepseek_v31"), ("deepseek_v31", "deepseek_v3", "json_block")))


def _chain(draw: st.DrawFn, dialect: str) -> tuple[str, ...]:
    """The dialect forced, every dialect (auto), or a few."""
    chain = draw(st.one_of(st.just((dialect,)), _ALL))
    return tuple(pipeline.dialects.DIALECTS) if chain is None else chain


def _lane(text: str, ctx: ParseContext, parsers: tuple[str, ...]) -> tuple[list[Candidate], str] | None:
    return pipeline._lane(NativeParse(text=text), ctx, pipeline._chain(tuple(ctx.prefer), parsers))


def _unmaskable(text: str) -> bool:
    return any(c in text for c in pipeline._unmasked_reasoning())


def _full(text: str, ctx: ParseContext, chain: tuple[str, ...], monkeypatch: pytest.MonkeyPatch) -> object:
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_lane", lambda *a: None)
        return pipeline.finalize(NativeParse(text=text), ctx, chain)


_SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                             HealthCheck.function_scoped_fixture])


@_SETTINGS
@given(data=st.data())
def test_the_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    dialect, text = data.draw(_reply(usual=False))
    ctx, chain = _ctx(data.draw, dialect), _chain(data.draw, dialect)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@_SETTINGS
@given(data=st.data())
def test_the_usual_reply_takes_the_lane(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    dialect, text = data.draw(_reply(usual=True))
    ctx = _ctx(data.draw, dialect, some=False)
    lane = _lane(text, ctx, (dialect,))
    # left to the full path: a fence the lane does not read, a token spelled with ASCII bars, a
    # reasoning tag the mask cannot hide in a string
    declined = "```py" in text or "<|tool▁" in text or _unmaskable(text)
    assert (lane is None) == declined
    chain = _chain(data.draw, dialect)
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


def test_the_lane_asks_no_general_question(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted: a forced usual reply is read without the mask, the reasoning split or the chain."""
    asked: list[str] = []
    for name in ("mask", "split_thinking", "_run_dialects"):
        real = getattr(pipeline, name)
        monkeypatch.setattr(pipeline, name, lambda *a, _n=name, _r=real, **k: asked.append(_n) or _r(*a, **k))
    arg = json.dumps({"city": "Tokyo " + "x" * 5000 + deepseek.CALL_END + "<think>"})
    text = (f"{deepseek.CALLS_BEGIN}{deepseek.CALL_BEGIN}function{deepseek.SEP}get_weather\n```json\n{arg}\n```"
            f"{deepseek.CALL_END}{deepseek.CALLS_END}")
    ctx = ParseContext.of([Tool(name="get_weather", description="")])
    resp = pipeline.finalize(NativeParse(text=text), ctx, ("deepseek_v3",))
    assert asked == []
    assert resp.tool_calls[0].arguments == json.loads(arg)
    monkeypatch.setattr(pipeline, "_lane", lambda *a: None)
    assert pipeline.finalize(NativeParse(text=text), ctx, ("deepseek_v3",)) == resp
    assert asked  # the full path asks them: the count above can fail


def test_in_a_chain_the_lane_takes_only_a_reply_that_is_its_section() -> None:
    calls = f"{deepseek.CALLS_BEGIN}{deepseek.CALL_BEGIN}f{deepseek.SEP}{{}}{deepseek.CALL_END}{deepseek.CALLS_END}"
    auto = tuple(pipeline.dialects.DIALECTS)
    for text in (calls, calls + deepseek.EOS):
        assert _lane(text, ParseContext(), auto) is not None
        got = pipeline._lane(NativeParse(text=text), ParseContext(), ("deepseek_v31", *auto))
        assert got is not None and got[0][0].dialect == "deepseek_v31"  # the chain's first owner
    for text in ("Sure. " + calls, calls + " Done.", " " + calls):
        assert _lane(text, ParseContext(), auto) is None
        assert _lane(text, ParseContext(), ("deepseek_v3",)) is not None


@_SETTINGS
@given(data=st.data())
def test_arguments_decoded_in_place_answer_as_their_text(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    """The full path's DeepSeek reader decodes a clean object where it stands (_in_place): the
    response is the one the argument text, cut out and decoded after, gives (depth, numbers,
    repairs, errors)."""
    dialect, text = data.draw(_reply(usual=False))
    deep = data.draw(st.integers(0, 3)) == 0
    if deep:  # nested near and past the depth bound
        n = data.draw(st.integers(95, 110))
        text = text.replace("{}", "{" + '"a": [' * n + "1" + "]" * n + "}", 1)
    ctx = _ctx(data.draw, dialect)
    chain = _chain(data.draw, dialect)
    native = NativeParse(text=text)
    with monkeypatch.context() as m:  # undone after each example: the patches must not outlive it
        m.setattr(pipeline, "_lane", lambda *a: None)
        got = pipeline.finalize(native, ctx, chain)
        m.setattr(deepseek, "_in_place", lambda t, a, b: t[a:b])
        assert got == pipeline.finalize(native, ctx, chain)


# InternLM2: the dialect's own parse is its lane (each call's JSON decoded where it stands).
_I_START, _I_PLUGIN, _I_END = "<|action_start|>", "<|plugin|>", "<|action_end|>"


@st.composite
def _internlm_reply(draw: st.DrawFn, usual: bool) -> str:
    """Calls `<|action_start|><|plugin|>{"name": .., "parameters": {..}}<|action_end|>` between
    prose; unless `usual`, parts odd one time in six (markup snippets, another action, a name that
    is no string, no end token), one reply in eight cut anywhere."""

    def odd() -> bool:
        return not usual and draw(st.integers(0, 5)) == 0

    calls = []
    for _ in range(draw(st.integers(1, 3))):
        obj: dict[str, object] = {"name": draw(st.sampled_from(NAMES))}
        obj[draw(st.sampled_from(("parameters", "arguments")))] = draw(_args)
        if odd():
            obj["name"] = draw(st.one_of(_prose, st.integers(), st.none()))
        body = json.dumps(obj, ensure_ascii=draw(st.booleans()))
        token = draw(st.sampled_from(("<|interpreter|>", _I_PLUGIN + "{"))) if odd() else _I_PLUGIN
        end = "" if odd() else _I_END
        calls.append(f"{_I_START}{draw(_space)}{token}{draw(_space)}{body}{draw(_space)}{end}")
    gaps = [draw(_prose) if odd() else draw(_space) for _ in calls]
    text = "".join(c + g for c, g in zip(calls, gaps, strict=True))
    text = f"{draw(_prose) if odd() else draw(_plain_prose)}{text}{draw(_prose) if odd() else draw(_plain_prose)}"
    if not usual and draw(st.integers(0, 7)) == 0:
        text = text[: draw(st.integers(0, len(text)))]
    return text


@_SETTINGS
@given(data=st.data())
def test_internlm2_lane_answers_as_the_full_path(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    text = data.draw(_internlm_reply(usual=False))
    ctx, chain = _ctx(data.draw, "internlm2"), _chain(data.draw, "internlm2")
    assert pipeline.finalize(NativeParse(text=text), ctx, chain) == _full(text, ctx, chain, monkeypatch)


@_SETTINGS
@given(data=st.data())
def test_internlm2_usual_reply_takes_the_lane(data: st.DataObject, monkeypatch: pytest.MonkeyPatch) -> None:
    text = data.draw(_internlm_reply(usual=True))
    ctx = _ctx(data.draw, "internlm2", some=False)
    assert (_lane(text, ctx, ("internlm2",)) is None) == _unmaskable(text)
    assert pipeline.finalize(NativeParse(text=text), ctx, ("internlm2",)) == _full(text, ctx, ("internlm2",), monkeypatch)


def test_the_peers_cases_read_the_same_with_the_lane(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every text case of the conformance corpus (the peers' own parser tests, vLLM's and SGLang's
    among them, as data) gives the same response with and without the lane: under the chain a run
    with its model would use, and forced to each dialect that reads a lane. Counted: the lane reads
    some of them, so the comparison is not of two full paths."""
    from agentcli.evals.conformance import load_cases
    from agentcli.wire import context_for

    taken = chained = 0
    real, real_chain = pipeline._lane, pipeline._reads_first

    def spy(*a: Any) -> Any:
        nonlocal taken
        got = real(*a)
        taken += got is not None
        return got

    def chain_spy(*a: Any) -> Any:
        nonlocal chained
        got = real_chain(*a)
        chained += got is True
        return got

    every = tuple(pipeline.dialects.DIALECTS)  # auto: the lane by its tokens (Dialect.lane_tokens) too
    for case in load_cases():
        if case.wire is not None:
            continue
        run_ctx, run_chain = context_for(case.model, case.offered())
        for ctx, chain in ((run_ctx, run_chain), (run_ctx, every),
                           *((run_ctx, (d,)) for d in ("deepseek_v3", "deepseek_v31", "internlm2", "kimi_k3"))):
            native = NativeParse(text=case.output)
            with monkeypatch.context() as m:
                m.setattr(pipeline, "_lane", spy)
                m.setattr(pipeline, "_reads_first", chain_spy)
                got = pipeline.finalize(native, ctx, chain)
            assert got == _full(case.output, ctx, chain, monkeypatch), case.id
    assert taken > 20
    assert chained > 0  # some of the peers' replies are read by a lane in a chain of several


@pytest.mark.parametrize("dialect", ["internlm2", "deepseek_v31", "kimi_k3"])
def test_a_reply_the_mask_leaves_as_it_is_takes_no_lane(dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply holding the mask's placeholder character is never masked, so the full path's
    reasoning split finds `[THINK]` even in an argument key (found by hypothesis on InternLM2):
    the lane must leave such a reply to it, and both answer alike."""
    from agentcli.wire.dialects._opaque import MASK_OFF

    calls = {
        "internlm2": '<|action_start|><|plugin|>{"name": "get_weather", "parameters": {"city": {"[THINK]": null}}}'
                     "<|action_end|>",
        "deepseek_v31": '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city": {"[THINK]": null}}'
                        "<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
        "kimi_k3": '<|open|>tools<|sep|><|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" '
                   'type="object"<|sep|>{"x": 1}<|close|>argument<|sep|><|close|>call<|sep|><|close|>tools<|sep|>',
    }
    ctx = ParseContext.of([Tool(name="get_weather", description="", parameters={"type": "object"})])
    text = calls[dialect]
    assert _lane(text, ctx, (dialect,)) is not None  # without it, the usual reply takes the lane
    assert _lane(text + MASK_OFF, ctx, (dialect,)) is None
    with monkeypatch.context() as m:
        m.setattr(pipeline, "_lane", lambda *a: None)
        full = pipeline.finalize(NativeParse(text=text + MASK_OFF), ctx, (dialect,))
    assert pipeline.finalize(NativeParse(text=text + MASK_OFF), ctx, (dialect,)) == full
