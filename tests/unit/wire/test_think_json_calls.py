"""The JSON-call helpers every JSON dialect parses through (a call object's fields, an array of
them, a call after a prefix token, the spans cut out) give what their plainer first versions gave,
on generated replies: the leaner paths (whitespace skipped only where there is some, the first
member's look without a second skip, one span cut by two slices, no prefix asked for past the end)
change the work, not the answers. The first versions are kept here as the reference."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.wire.dialects import _scan
from agentcli.wire.dialects._callscan import decode_at
from agentcli.wire.types import Candidate

_WS = " \t\r\n"
_VALUE_START = '{["-0123456789tfn'


def _skip_ws(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in _WS:
        pos += 1
    return pos


def ref_decode_json_at(text: str, pos: int) -> tuple[Any, int] | None:
    pos = _skip_ws(text, pos)
    if pos >= len(text) or text[pos] not in _VALUE_START:
        return None
    if text[pos] in "[{":
        nxt = _skip_ws(text, pos + 1)
        if nxt < len(text):
            ch = text[nxt]
            if ch not in (_VALUE_START + "]}" if text[pos] == "[" else '"}'):
                return None
            if ch in "tfn" and not text.startswith(("true", "false", "null"), nxt):
                return None
    return decode_at(text, pos)


def ref_remove_spans(text: str, spans: list[tuple[int, int]]) -> str:
    out: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start > pos:
            out.append(text[pos:start])
        pos = max(pos, end)
    out.append(text[pos:])
    return "".join(out)


def ref_call_from_object(obj: Any, raw: str, dialect: str, *, name_keys: tuple[str, ...] = ("name",),
                         arg_keys: tuple[str, ...] = ("arguments", "parameters"), id_keys: tuple[str, ...] = ("id",),
                         require_args: bool = False) -> Candidate | None:
    if not isinstance(obj, dict):
        return None
    name = next((obj[k] for k in name_keys if isinstance(obj.get(k), str)), None)
    if not name or not name.strip():
        return None
    args: Any = None
    found = False
    for k in arg_keys:
        if k in obj:
            args, found = obj[k], True
            break
    if not found and require_args:
        return None
    if args is None:
        args = {}
    if not isinstance(args, (dict, str)):
        return None
    call_id = None
    for k in id_keys:
        v = obj.get(k)
        if isinstance(v, (str, int)) and not isinstance(v, bool) and v != "":
            call_id = str(v)
            break
    return Candidate(name=name.strip(), arguments=args, raw=raw, dialect=dialect, id=call_id)


def ref_calls_from_json(value: Any, raw: str, dialect: str, **kw: Any) -> list[Candidate] | None:
    items = value if isinstance(value, list) else [value]
    if not items:
        return None
    out: list[Candidate] = []
    for item in items:
        cand = ref_call_from_object(item, raw, dialect, **kw)
        if cand is None:
            return None
        out.append(cand)
    return out


def ref_prefixed_json_calls(text: str, prefixes: tuple[str, ...], dialect: str, *, closers: tuple[str, ...] = (),
                            first_chars: str = "[{", then: str = "", **kw: Any) -> tuple[list[Candidate], list]:
    cands: list[Candidate] = []
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        hits = [(a, p) for p in prefixes if (a := text.find(p, pos)) != -1]
        if not hits:
            break
        at, which = min(hits, key=lambda h: h[0])
        j = _skip_ws(text, at + len(which))
        pos = at + len(which)
        if then:
            if not text.startswith(then, j):
                continue
            j = _skip_ws(text, j + len(then))
        if j >= len(text) or text[j] not in first_chars:
            continue
        got = ref_decode_json_at(text, j)
        if got is None:
            continue
        value, end = got
        found = ref_calls_from_json(value, "", dialect, **kw)
        if not found:
            continue
        k = _skip_ws(text, end)
        for closer in closers:
            if text.startswith(closer, k):
                end = k + len(closer)
                break
        for cand in found:
            cand.raw = text[at:end]
        cands.extend(found)
        spans.append((at, end))
        pos = end
    return cands, spans


_examples = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
KEYS = ["name", "tool", "arguments", "parameters", "args", "id", "call_id", "type"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.sampled_from(["", " ", "f", " g ", "x y", "0"]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=2),
                                                       st.dictionaries(st.sampled_from(KEYS), inner, max_size=3)),
                      max_leaves=6)
objects = st.one_of(values, st.dictionaries(st.sampled_from(KEYS), values, max_size=4),
                    st.lists(st.dictionaries(st.sampled_from(KEYS), values, max_size=4), max_size=3))
options = st.fixed_dictionaries({}, optional={
    "name_keys": st.sampled_from([("name",), ("name", "tool"), ("tool",)]),
    "arg_keys": st.sampled_from([("arguments", "parameters"), ("parameters", "arguments"), ("args",)]),
    "id_keys": st.sampled_from([("id",), ("call_id", "id")]),
    "require_args": st.booleans()})


@_examples
@given(obj=objects, kw=options)
def test_call_objects_read_as_before(obj: Any, kw: dict) -> None:
    assert _scan.call_from_object(obj, "raw", "d", **kw) == ref_call_from_object(obj, "raw", "d", **kw)
    assert _scan.calls_from_json(obj, "raw", "d", **kw) == ref_calls_from_json(obj, "raw", "d", **kw)


PREFIXES = ("<tool_calls>", "[TOOL_CALLS]", "<|action_start|>")
PIECES = [*PREFIXES, "<|plugin|>", "</tool_calls>", "<|action_end|>", " ", "\n", "\t", "x", "[", "]", "{", "}", "true",
          "tx", "n", ",", '"', '{"name": "f", "arguments": {"a": 1}}', '[{"name": "f", "arguments": {}}]', '{"name": ""}',
          '[{"name": "f"}, 3]', '[\n {"name": "g", "parameters": {}, "id": 7}\n]', "[]", "{}", '{"tool": "t"}']
texts = st.lists(st.sampled_from(PIECES), max_size=14).map("".join)
calls = st.fixed_dictionaries({"prefixes": st.sampled_from([PREFIXES[:1], PREFIXES[:2], PREFIXES[2:]])}, optional={
    "closers": st.sampled_from([("</tool_calls>",), ("<|action_end|>", "</tool_calls>")]),
    "first_chars": st.sampled_from(["[{", "{", "["]),
    "then": st.sampled_from(["<|plugin|>"]),
    "arg_keys": st.sampled_from([("parameters", "arguments")]),
    "require_args": st.booleans()})


@_examples
@given(text=texts, kw=calls, cut=st.integers(0, 3))
@example(text='<tool_calls>[{"name": "f", "arguments": {}}]</tool_calls>', kw={"prefixes": PREFIXES[:1]}, cut=0)
@example(text='<|action_start|> <|plugin|> {"name": "f", "parameters": {}} <|action_end|>x',
         kw={"prefixes": PREFIXES[2:], "then": "<|plugin|>", "closers": ("<|action_end|>",)}, cut=0)
def test_calls_after_a_prefix_read_as_before(text: str, kw: dict, cut: int) -> None:
    prefixes = kw.pop("prefixes")
    got = _scan.prefixed_json_calls(text, prefixes, "d", **kw)
    assert got == ref_prefixed_json_calls(text, prefixes, "d", **kw)
    assert [c.raw for c in got[0]] == [c.raw for c in ref_prefixed_json_calls(text, prefixes, "d", **kw)[0]]
    spans = got[1][:cut] if cut < 3 else [(0, 0), *got[1]]
    assert _scan.remove_spans(text, spans) == ref_remove_spans(text, spans)
    for pos in range(0, len(text), max(1, len(text) // 8)):
        assert _scan.decode_json_at(text, pos) == ref_decode_json_at(text, pos)


@given(st.lists(st.tuples(st.integers(0, 30), st.integers(0, 30)), max_size=3), st.text(max_size=30))
@_examples
def test_spans_cut_as_before(spans: list[tuple[int, int]], text: str) -> None:
    assert _scan.remove_spans(text, spans) == ref_remove_spans(text, spans)


def test_the_reference_reads_a_call() -> None:
    """The reference is not vacuous: it reads the call the dialects write."""
    text = '<tool_calls>[{"name": "f", "arguments": {"a": 1}}]</tool_calls> after'
    cands, spans = ref_prefixed_json_calls(text, ("<tool_calls>",), "d", closers=("</tool_calls>",))
    assert [(c.name, c.arguments) for c in cands] == [("f", {"a": 1})]
    assert ref_remove_spans(text, spans) == " after"
    assert json.loads('{"a": 1}') == cands[0].arguments
