"""The shared parse pipeline's per-reply gates and fast paths (issue 29: the fixed cost every dialect
pays) answer exactly as the full steps they skip, on generated inputs, hostile ones included
(markup inside strings, escapes, fences, unicode). Answers are compared, never timings."""

from __future__ import annotations

import json
import math
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire import dialects, pipeline, repair
from agentcli.wire.dialects import _markup, _opaque
from agentcli.wire.dialects._seen import SHORT, finder

_examples = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))

MARKERS = sorted({m for n in dialects.names() for m in dialects.declared(n).markers if m})
WRAPPERS = [t for pair in _markup.collected().call_wrappers for t in pair]
PIECES = [*MARKERS[:: max(1, len(MARKERS) // 40)], *WRAPPERS, *_markup.collected().probes, "<think>", "</think>",
          "```", "```json", "~~~", "`", "~", "<", ">", "|", "[", "]", "{", "}", "(", ")", '"', "'", '\\"', "\\'",
          "\\", '<|"|>', "\n", " ", "  ", "a", ": ", "lorem ipsum ", "é", "｜", "▁", "\u00a0"]
texts = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)


# --- decode_arguments: a clean JSON object decoded once, without the repair layers around it -------

def _decode_reference(raw: Any, *, repair_on: bool = True, schema: dict[str, Any] | None = None,
                      unwrap: bool = True) -> tuple[dict[str, Any], list[repair.Fix]]:
    """decode_arguments as it reads without its fast path: every string through _decode_string."""
    fixes: list[repair.Fix] = []
    if raw is None:
        return {}, fixes
    budget = repair.RepairBudget()
    value = repair._decode_string(raw, repair_on, fixes, budget) if isinstance(raw, str) else raw
    if isinstance(value, str):
        inner = value.strip()
        if inner[:1] in ("{", "[") or inner == "":
            if not repair_on:
                raise repair.ArgumentError("arguments are a JSON-encoded string (double-encoded)")
            value = repair._decode_string(inner, True, fixes, budget) if inner else {}
            fixes.append(("double_encoded", "arguments were a JSON string holding JSON; decoded twice"))
    if not isinstance(value, dict):
        raise repair.ArgumentError(f"arguments must be a JSON object, got {type(value).__name__}")
    value, more = repair.unwrap_arguments(value, schema, repair_on and unwrap)
    fixes.extend(more)
    if not _finite_reference(value):
        raise repair.ArgumentError("arguments hold a number JSON cannot carry (infinite or NaN)")
    return value, fixes


def _outcome(f: Any, *args: Any, **kwargs: Any) -> Any:
    try:
        return ("ok", f(*args, **kwargs))
    except repair.ArgumentError as exc:
        return ("error", str(exc))


scalars = st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(allow_nan=True),
                    st.text(st.sampled_from(['"', "\\", "<", "｜", "a", "\n", "é", "{", "]"]), max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                       st.dictionaries(st.text(max_size=4), inner, max_size=3)),
                      max_leaves=8)
keys = st.sampled_from(["a", "path", "arguments", "parameters", "args", "input", "city"])
objects = st.dictionaries(keys, values, max_size=3)


def _written(value: Any, pad: str, spoil: str) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return pad + text + pad + spoil


raws = st.one_of(
    st.builds(_written, st.one_of(objects, values), st.sampled_from(["", " ", "\n\t", "\u00a0", "\x0b"]),
              st.sampled_from(["", ",", " and more", "}", "]"])),
    objects.map(lambda v: json.dumps(json.dumps(v))),  # double encoded
    objects.map(lambda v: json.dumps(v)[:-1]),  # cut short
    st.text(st.sampled_from(['{', '}', '[', ']', '"', ':', ',', 'a', '1', ' ', "'", "\\", "\n", "é"]), max_size=20),
    st.just("[" * 150 + "]" * 150), st.just('{"a": ' + "[" * 120 + "]" * 120 + "}"),
    st.just('{"a": 1e999}'), st.just('{"a": NaN}'), objects,
)
schemas = st.one_of(st.none(), st.just({"type": "object", "properties": {"input": {"type": "object"}}}),
                    st.just({"type": "object", "properties": {"a": {"type": "string"}}}), st.just({}))


@_examples
@given(raws, st.booleans(), schemas, st.booleans())
@example('{"arguments": {"a": 1}}', True, None, True)
@example('  {"a": 1}  ', False, None, True)
@example('"{\\"a\\": 1}"', True, None, True)
def test_decode_arguments_is_the_full_path(raw: Any, repair_on: bool, schema: Any, unwrap: bool) -> None:
    got = _outcome(repair.decode_arguments, raw, repair=repair_on, schema=schema, unwrap=unwrap)
    want = _outcome(_decode_reference, raw, repair_on=repair_on, schema=schema, unwrap=unwrap)
    assert repr(got) == repr(want)  # repr: NaN compares unequal to itself


# --- finite: a flat object of text and integers answered in one loop ---------------------------------

def _finite_reference(value: Any) -> bool:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                return False
        elif isinstance(v, dict):
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return True


@_examples
@given(st.one_of(values, objects, st.dictionaries(keys, scalars, max_size=4)))
@example({"a": "x", "b": float("inf")})
@example({"a": 1, "b": [float("nan")]})
def test_finite_is_the_full_walk(value: Any) -> None:
    assert repair.finite(value) == _finite_reference(value)


# --- coerce_arguments: a scalar already of its schema's one type skipped -----------------------------

def _coerce_reference(args: dict[str, Any], schema: dict[str, Any] | None) -> tuple[dict[str, Any], list[repair.Fix]]:
    props = (schema or {}).get("properties") or {}
    if not props:
        return args, []
    fixes: list[repair.Fix] = []
    out = dict(args)
    for key, value in args.items():
        types = repair._types(props.get(key))
        if types and isinstance(value, (dict, list)) and repair._matches(value, types):
            inner = repair._coerce_within(value, props.get(key), fixes, key)
            if inner is not value:
                out[key] = inner
            continue
        if not types or repair._matches(value, types):
            continue
        new = repair._convert(value, types)
        if new is not repair._NO:
            out[key] = new
            fixes.append(("coerce_type", f"{key}: {type(value).__name__} -> {'/'.join(sorted(types))}"))
    return out, fixes


type_names = st.sampled_from(["string", "integer", "number", "boolean", "null", "array", "object", "custom"])
props = st.one_of(
    st.builds(lambda t: {"type": t}, type_names),
    st.builds(lambda ts: {"type": ts}, st.lists(type_names, max_size=3)),
    st.builds(lambda ts: {"anyOf": [{"type": t} for t in ts]}, st.lists(type_names, max_size=2)),
    st.builds(lambda t: {"type": t, "items": {"type": "integer"}, "properties": {"a": {"type": "integer"}}}, type_names),
    st.just({}), st.just("string"),
)
coerce_values = st.one_of(scalars, st.sampled_from(["5", "0.5", "true", "[1]", '{"a": "2"}', "null", " 7 "]),
                          st.lists(st.sampled_from([1, "2", True, None]), max_size=3),
                          st.dictionaries(st.just("a"), st.sampled_from([1, "2", 2.5, False]), max_size=1))


@_examples
@given(st.dictionaries(keys, coerce_values, max_size=4), st.dictionaries(keys, props, max_size=4))
def test_coerce_arguments_is_the_full_loop(args: dict[str, Any], properties: dict[str, Any]) -> None:
    schema = {"type": "object", "properties": properties}
    assert repr(repair.coerce_arguments(args, schema)) == repr(_coerce_reference(args, schema))


# --- mask: the bracket places' quote parity, counted for the one quote kind ----------------------------

@_examples
@given(texts)
@example('<tool_call>{"a": "x </tool_call> y"}</tool_call>')
@example("[f(a='<think>')]")
def test_the_one_quote_count_is_the_bracket_walk(text: str) -> None:
    places = _opaque._bracket_places(text)
    if places is None or _opaque._parity_unsure(text) or ('"' not in text and "'" not in text):
        return
    quote = '"' if '"' in text else "'"
    assert _opaque._places_even(text, places, quote) == _opaque._brackets_outside_strings(text, places)


@_examples
@given(texts)
def test_the_parity_check_is_its_plain_reading(text: str) -> None:
    plain = ("'" in text and '"' in text) or '\\"' in text or "\\'" in text or '<|"|>' in text
    assert _opaque._parity_unsure(text) == plain


@_examples
@given(texts)
def test_the_mask_is_still_the_pattern_firsts(text: str) -> None:
    quick, full = _opaque.mask(text), _opaque.mask(text, _opaque.markup_pattern())
    assert (quick.text, quick._tokens) == (full.text, full._tokens)


# --- the reasoning split's probes and the call wrappers, found by gates ------------------------------

@_examples
@given(texts)
def test_the_probes_found_by_their_characters_are_the_probes_held(text: str) -> None:
    assert pipeline._probes_in(text) == frozenset(p for p in _markup.collected().probes if p in text)


@_examples
@given(texts)
def test_the_wrapper_pattern_finds_a_wrapper_exactly_when_one_opens(text: str) -> None:
    held = any(o in text for o, _ in _markup.collected().call_wrappers)
    assert (pipeline._wrapper_opens().search(text) is not None) == held
    spans = pipeline._CallSpans(text)
    with_index = pipeline._CallSpans(text, pipeline.Seen(text))  # each wrapper asked of the marker index
    assert spans.spans == with_index.spans


# --- _in_fence: a call before the first fence line needs no fence list -------------------------------

def _in_fence_list(text: str, raw: str) -> bool:
    """Whether `raw` (first found in `text`) starts inside one of the whole fence list's blocks."""
    at = pipeline.find_long(text, raw) if raw else -1
    return at >= 0 and any(a <= at < b for a, b in pipeline._fences(text))


@_examples
@given(texts, st.integers(0, 60), st.integers(1, 60))
@example("<tool_call>\n```json\n{}\n```</tool_call>", 0, 60)
@example("  ```\nx\n```", 0, 3)
@example("a\n  ```\nx", 2, 6)
def test_in_fence_by_the_lazy_index_is_by_the_fence_list(text: str, start: int, length: int) -> None:
    raw = text[start : start + length]
    for r in (raw, raw + "\x00", ""):
        lazy = pipeline._in_fence(text, r, pipeline._fence_index(text))
        assert lazy == _in_fence_list(text, r)


def test_deepseeks_own_fence_inside_its_call_is_still_a_call() -> None:
    """The fence gate on a whole reply: DeepSeek V3 writes its arguments in a ```json fence inside its
    call (the fence opens after the call's start): a call, not a Markdown example."""
    from agentcli.core.types import Tool
    from agentcli.wire.types import ParseContext

    ctx = ParseContext.of([Tool("get_weather", "", {"type": "object", "properties": {"city": {"type": "string"}}})])
    own = ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n"
           '{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>')
    resp = pipeline.parse_text(own, ctx, ("deepseek_v3",))
    assert [(c.name, c.arguments) for c in resp.tool_calls] == [("get_weather", {"city": "Paris"})]


@_examples
@given(st.one_of(texts, st.tuples(texts, texts).map(lambda t: t[0] + "lorem ipsum " * 400 + t[1])),
       st.sampled_from(["<think>", "</think>", "[THINK]", "<", "｜"]), st.integers(0, 60), st.integers(0, 6000))
def test_the_reasoning_splits_finder_is_find(text: str, needle: str, start: int, end: int) -> None:
    find = finder(text, SHORT)  # the reasoning splits' search
    assert find(needle, start) == text.find(needle, start)
    assert find(needle, start, end) == text.find(needle, start, end)
