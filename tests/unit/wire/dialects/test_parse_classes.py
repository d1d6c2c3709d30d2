"""Generated properties of the whole parse, one per class of miss (issue 27): markup in string
values, empty call lists, another dialect's marker in a value with no model id, and prose that
talks about the tags. Each draws many examples; none is one case."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from agentcli.core.events import StreamKind
from agentcli.core.types import Tool, ToolCall
from agentcli.wire import dialects
from agentcli.wire.dialects._opaque import mask
from agentcli.wire.pipeline import finalize, parse_text
from agentcli.wire.textstream import TextStream
from agentcli.wire.types import NativeParse, ParseContext

ALL = tuple(dialects.names())
MARKERS = sorted({m for n in ALL for m in (*dialects.get(n).markers, *getattr(dialects.get(n), "stream_markers", ()))
                  if m and m.strip()})
CLOSERS = ["</tool_call>", "</TOOLCALL>", "</tool_use>", "</function_call>", "</tools>", "[/TOOL_CALLS]", ")]",
           "</think>", "<think>", "[THINK]", "<|im_end|>", "</longcat_tool_call>"]
# Forms whose values are quoted strings (JSON, Python): there a value holds any markup.
QUOTED = ("hermes", "mistral", "pythonic", "json_block")
TEXT_PIECES = ["a", " ", "x y", "\n", "é", "\\", "'", "{", "]"]
FILE_TOOL = Tool(name="write_file", description="", parameters={
    "type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}})

_examples = settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
values = st.lists(st.sampled_from(MARKERS + CLOSERS + TEXT_PIECES), min_size=1, max_size=5).map("".join)


def _calls(resp):
    return [(c.name, c.arguments) for c in resp.tool_calls if not c.error]


@_examples
@given(value=values, dialect=st.sampled_from(QUOTED), with_model=st.booleans())
def test_markup_in_a_string_value_is_the_value(value, dialect, with_model):
    """Class 1 and 5: any dialect's marker, close tag or reasoning tag inside a string argument
    neither cuts the call nor is lost, with the model's dialect preferred or with no model id."""
    call = ToolCall(name="write_file", id="c1", arguments={"path": "a.txt", "content": value})
    text = dialects.get(dialect).render_call(call)
    prefer = (dialect,) if with_model else ()
    ctx = ParseContext.of([FILE_TOOL], prefer=prefer, prompted=dialect if with_model else None)
    resp = finalize(NativeParse(text=text), ctx, tuple(dict.fromkeys((*prefer, *ALL))))
    assert _calls(resp) == [("write_file", {"path": "a.txt", "content": value})], text
    assert resp.text.strip() == "", text


@_examples
@given(value=values)
@example(value="'</tool_call>")  # a quote in the value: the test once built broken JSON from it
def test_masking_gives_every_token_back(value):
    # the value written as a JSON string and as a Python literal (each its own escapes and quotes)
    text = '[{"name": "f", "arguments": {"v": ' + json.dumps(value, ensure_ascii=False) + "}}] and (g=" + repr(value) + ")"
    m = mask(text)
    assert m.restore(m.text) == text
    assert m.text.count('"') == text.count('"') and m.text.count("(") == text.count("(")
    if "</tool_call>" in value:
        assert m.changed and m.text.count("</tool_call>") < text.count("</tool_call>")


# (open, close) of each dialect's empty call list, with what may stand between them.
EMPTY = sorted({(d, o, c) for d in ALL for o, c in dialects.get(d).empty_lists})
PROSE = st.sampled_from(["", "Hello.", "No tool is needed here.", "The answer is 4", "ok\n"])


@_examples
@given(form=st.sampled_from(EMPTY), before=PROSE, after=PROSE, inner=st.sampled_from(["", "[]", "\n", " [ ] ", "\n[]\n"]),
       chunk=st.integers(min_value=1, max_value=9))
def test_an_empty_call_list_calls_nothing_and_shows_nothing(form, before, after, inner, chunk):
    """Class 4: `<TOOLCALL>[]</TOOLCALL>`, `[TOOL_CALLS][]`, `<tool_call></tool_call>`... are no call
    and no text, in the dialect's own chain and under auto, whole and streamed."""
    dialect, open_tag, close_tag = form
    if not close_tag and "[" not in inner:
        inner = "[]"
    if not close_tag:
        inner = inner.replace("\n", " ")
        d = dialects.get(dialect)
        if open_tag not in (*d.markers, *getattr(d, "stream_markers", ())):
            inner = inner.strip()  # `functools[]`: the bracket is part of the marker
    text = f"{before} {open_tag}{inner}{close_tag} {after}"
    want = " ".join(f"{before} {after}".split())
    for chain in ((dialect,), ALL):
        resp = parse_text(text, None, chain)
        assert resp.tool_calls == [] and " ".join(resp.text.split()) == want, (chain[:1], text, resp.text)
        s = TextStream(chain)
        events = [e for i in range(0, len(text), chunk) for e in s.feed(text[i:i + chunk])] + s.flush()
        shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
        assert " ".join(shown.split()) == want, (chain[:1], text, shown)


# Tags a dialect's calls are wrapped in, as prose names them (special tokens `<|..|>` are never prose).
TAGS = sorted({m for n in ALL for m in dialects.get(n).markers if m.startswith("<") and m.endswith(">") and not {"|", "｜"} & set(m)
               and not m.startswith("</")})
SENTENCES = [
    "Wrap each call in {o} and {c} tags.",
    "Put the JSON between {o} and {c}.",
    "Use `{o}` and `{c}` around a call.",
    "The format is {o} ... {c}, one per call.",
    "Start with {o} then write the call then {c} to end it.",
]


@_examples
@given(tag=st.sampled_from(TAGS), sentence=st.sampled_from(SENTENCES), tools=st.booleans())
def test_prose_about_the_tags_is_text(tag, sentence, tools):
    """Class 6: a sentence naming a dialect's tags is text: no call (not one named `and`), and the
    tags stay where the user reads them."""
    close = "</" + tag[1:]
    text = sentence.format(o=tag, c=close)
    ctx = ParseContext.of([FILE_TOOL]) if tools else None
    resp = parse_text(text, ctx)
    assert resp.tool_calls == [], text
    assert resp.text == text


def test_rendered_values_survive_seeded_chunked_streams():
    """Streamed, a call whose string value holds markup shows only the prose before it."""
    rnd = random.Random(27)
    for _ in range(60):
        value = "".join(rnd.choice(MARKERS + CLOSERS + TEXT_PIECES) for _ in range(rnd.randint(1, 4)))
        dialect = rnd.choice(QUOTED)
        call = ToolCall(name="write_file", id="c1", arguments={"path": "a.txt", "content": value})
        text = "Writing it.\n" + dialects.get(dialect).render_call(call)
        s = TextStream(ALL)
        events = []
        i = 0
        while i < len(text):
            k = rnd.randint(1, 11)
            events += s.feed(text[i:i + k])
            i += k
        events += s.flush()
        shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
        assert shown.strip() == "Writing it.", (text, shown)


# --- classes 2, 3 and 7: a whole reply that is one call object -----------------------------------

OFFERED = [
    Tool(name="read_file", description="", parameters={"type": "object", "properties": {"path": {"type": "string"}}}),
    Tool(name="ping", description="", parameters={"type": "object", "properties": {}}),
    Tool(name="set_flag", description="", parameters={}),  # schema-less: values as written
]
ARG_VALUES = st.one_of(st.text(alphabet="abc xyz./-_é", min_size=1, max_size=12), st.integers(-99, 99),
                       st.booleans(), st.none())
ARGS = st.dictionaries(st.sampled_from(["path", "mode", "n", "all"]), ARG_VALUES, min_size=1, max_size=3)


def _py(v) -> str:
    return {True: "True", False: "False", None: "None"}.get(v, repr(v)) if isinstance(v, bool) or v is None else repr(v)


# Each mutation writes a valid call the way small local models get it wrong (seed 000 §7).
def _trailing_commas(name, args):
    inner = ", ".join(f'"{k}": {json.dumps(v, ensure_ascii=False)}' for k, v in args.items())
    return f'{{"name": "{name}", "arguments": {{{inner},}},}}'


def _single_quotes(name, args):
    inner = ", ".join(f"'{k}': {json.dumps(v, ensure_ascii=False)}" if not isinstance(v, str) else f"'{k}': '{v}'"
                      for k, v in args.items())
    return f"{{'name': '{name}', 'arguments': {{{inner}}}}}"


def _unquoted_keys(name, args):
    inner = ", ".join(f"{k}: {json.dumps(v, ensure_ascii=False)}" for k, v in args.items())
    return f'{{name: "{name}", arguments: {{{inner}}}}}'


def _python_literals(name, args):
    inner = ", ".join(f'"{k}": {_py(v) if isinstance(v, bool) or v is None else json.dumps(v, ensure_ascii=False)}'
                      for k, v in args.items())
    return f'{{"name": "{name}", "arguments": {{{inner}}}}}'


def _unclosed_fence(name, args):
    return "```json\n" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


def _functools_open(name, args):
    return "functools[" + json.dumps({"name": name, "arguments": args}, ensure_ascii=False)


MUTATIONS = [_trailing_commas, _single_quotes, _unquoted_keys, _python_literals, _unclosed_fence, _functools_open]


@_examples
@given(mutate=st.sampled_from(MUTATIONS), tool=st.sampled_from(["read_file", "set_flag"]), args=ARGS)
def test_a_whole_reply_of_one_malformed_call_is_repaired(mutate, tool, args):
    """Class 7: a valid call mutated the way small models write it is read back exactly, with the
    repair reported; nothing is shown as text."""
    if tool == "read_file":  # its schema types `path` as a string: give it one
        args = {"path": str(args.get("path") or "a.txt")}
    if mutate is _python_literals:
        args = {**args, "all": True, "none": None}
    text = mutate(tool, args)
    resp = parse_text(text, ParseContext.of(OFFERED))
    assert _calls(resp) == [(tool, args)], text
    assert resp.repairs and resp.text == "", text
    # streamed, none of it is shown, and the call is announced
    s = TextStream(ALL, ParseContext.of(OFFERED))
    events = [e for i in range(0, len(text), 3) for e in s.feed(text[i:i + 3])] + s.flush()
    assert "".join(e.text for e in events if e.kind is StreamKind.TEXT).strip() == "", text
    assert [e.name for e in events if e.kind is StreamKind.TOOL_START] == [tool], text


def _newline_in_string(name, value):
    return '{"name": "' + name + '", "arguments": {"path": "' + value + '"}}'


@_examples
@given(first=st.text(alphabet="abc .", min_size=1, max_size=8), second=st.text(alphabet="xyz", min_size=1, max_size=8))
def test_raw_newlines_inside_strings_are_the_strings(first, second):
    resp = parse_text(_newline_in_string("read_file", f"{first}\n{second}"), ParseContext.of(OFFERED))
    assert _calls(resp) == [("read_file", {"path": f"{first}\n{second}"})]


@_examples
@given(key=st.sampled_from(["name", "tool_name", "tool", "function"]), tool=st.sampled_from(["ping", "read_file"]),
       wrap=st.sampled_from(["{}", "<tool_call>{}</tool_call>", "[TOOL_CALLS][{}]", "<TOOLCALL>[{}]</TOOLCALL>",
                             "```json\n{}\n```"]))
def test_a_call_with_no_arguments_key_is_a_call_with_none(key, tool, wrap):
    """Class 3: `{"tool_name": "ping"}` is a call with {}, bare or in a dialect's wrapper."""
    if key != "name" and wrap not in ("{}", "```json\n{}\n```"):
        key = "name"  # the wrappers' own call objects name the tool with "name"
    text = wrap.replace("{}", json.dumps({key: tool}), 1)
    resp = parse_text(text, ParseContext.of(OFFERED))
    assert _calls(resp) == [(tool, {})], text
    assert resp.text == "", text


# Values a repair would have to make up, in the places a model leaves them out.
HOLES = ['{{"name": "{t}", "arguments": {{"path": }}}}', '{{"name": "{t}", "arguments": {{"path"}}}}',
         '{{"name": "{t}", "arguments": malformed}}', '{{"name": "{t}", "arguments": {{"path": ,}}}}',
         '<tool_call>{{"name": "{t}", "arguments": {{"path": }}}}</tool_call>',
         '<tool_call>{{"name": "{t}", "arguments": malformed}}</tool_call>']


@_examples
@given(hole=st.sampled_from(HOLES), tool=st.sampled_from(["read_file", "set_flag"]))
def test_a_repair_never_invents_a_value(hole, tool):
    """Class 2: arguments with a missing value become a call reported malformed (never run), not a
    call with an invented empty string or null."""
    text = hole.format(t=tool)
    resp = parse_text(text, ParseContext.of(OFFERED))
    assert [c.name for c in resp.tool_calls] == [tool], text
    assert all(c.error for c in resp.tool_calls), (text, resp.tool_calls)


def test_prose_and_cut_off_replies_are_not_repaired_into_calls():
    ctx = ParseContext.of(OFFERED)
    for text in ['{"name": "read_file", "arguments": {"path": "a', "Here you go: {'path': 'a'}",
                 '{"name": "unknown_tool", "arguments": {"x": 1,}}', '{"title": "read_file"}']:
        resp = parse_text(text, ctx)
        assert not [c for c in resp.tool_calls if not c.error], text


# XML forms write values as text between their own tags: there their own structure tags stay
# ambiguous (as for every peer), but any other family's markup is the value's text.
XML_FORMS = ("claude_xml", "qwen3_coder")
_OWN_XML = ("parameter", "function", "invoke")
foreign = st.lists(st.sampled_from([m for m in MARKERS + CLOSERS if not any(w in m for w in _OWN_XML)] + TEXT_PIECES),
                   min_size=1, max_size=5).map("".join)


@_examples
@given(value=foreign, dialect=st.sampled_from(XML_FORMS), with_model=st.booleans())
def test_another_familys_markup_in_an_xml_value_is_the_value(value, dialect, with_model):
    call = ToolCall(name="write_file", id="c1", arguments={"path": "a.txt", "content": value})
    text = dialects.get(dialect).render_call(call)
    prefer = (dialect,) if with_model else ()
    ctx = ParseContext.of([FILE_TOOL], prefer=prefer, prompted=dialect if with_model else None)
    resp = finalize(NativeParse(text=text), ctx, tuple(dict.fromkeys((*prefer, *ALL))))
    got = _calls(resp)
    assert [n for n, _ in got] == ["write_file"] and resp.text.strip() == "", text
    # XML values are text with the layout's newlines trimmed, as each form's parser reads them
    assert got[0][1]["content"].strip() == value.strip(), text


# --- class 8: Gemma 4 blocks holding several calls; Python-literal values ---------------------------

G4_VALUES = st.one_of(st.text(alphabet="abc xyz/.-", min_size=1, max_size=10), st.integers(-50, 50), st.booleans())


def _g4(value) -> str:
    if isinstance(value, str):
        return '<|"|>' + value + '<|"|>'
    return json.dumps(value)


@_examples
@given(calls=st.lists(st.tuples(st.sampled_from(["get_weather", "get_time", "read"]),
                                st.dictionaries(st.sampled_from(["city", "tz", "path"]), G4_VALUES, max_size=2)),
                      min_size=2, max_size=4),
       sep=st.sampled_from(["", "\n", ",", ", "]))
def test_several_calls_in_one_gemma4_block(calls, sep):
    body = sep.join("call:" + n + "{" + ",".join(f"{k}:{_g4(v)}" for k, v in a.items()) + "}" for n, a in calls)
    resp = parse_text("<|tool_call>" + body + "<tool_call|>", None, ("gemma4",))
    assert _calls(resp) == [(n, a) for n, a in calls], body
    assert resp.text == ""


PY_VALUES = st.one_of(st.booleans(), st.none(), st.integers(-9, 9),
                      st.lists(st.text(alphabet="abc", max_size=3), max_size=3),
                      st.dictionaries(st.text(alphabet="xyz", min_size=1, max_size=3), st.integers(0, 9), max_size=2))


@_examples
@given(value=PY_VALUES, form=st.sampled_from(["glm4_moe", "longcat"]))
def test_python_literal_values_without_a_schema(value, form):
    """Values written as Python (`True`, `None`, `{'a': 1}`) for a parameter no schema types are
    those values; with a schema typing it as a string they stay the text."""
    if form == "glm4_moe":
        text = f"<tool_call>set_flag\n<arg_key>v</arg_key>\n<arg_value>{value!r}</arg_value>\n</tool_call>"
    else:
        text = f"<longcat_tool_call>set_flag\n<longcat_arg_key>v</longcat_arg_key>\n<longcat_arg_value>{value!r}</longcat_arg_value>\n</longcat_tool_call>"
    assert _calls(parse_text(text, ParseContext.of(OFFERED))) == [("set_flag", {"v": value})], text
    typed = Tool(name="set_flag", description="", parameters={"type": "object", "properties": {"v": {"type": "string"}}})
    assert _calls(parse_text(text, ParseContext.of([typed]))) == [("set_flag", {"v": repr(value)})], text
