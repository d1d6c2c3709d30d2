"""TextStream: prose shown at once, calls held back, names announced, linear cost."""

from __future__ import annotations

from agentcli.core.events import StreamKind
from agentcli.wire import dialects
from agentcli.wire.textstream import TextStream

ALL = tuple(dialects.names())


def run(text: str, size: int = 3, parsers=ALL):
    s = TextStream(parsers)
    events = []
    for i in range(0, len(text), size):
        events += s.feed(text[i:i + size])
    events += s.flush()
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    thought = "".join(e.text for e in events if e.kind is StreamKind.THINKING)
    starts = [(e.index, e.name) for e in events if e.kind is StreamKind.TOOL_START]
    return events, shown, thought, starts


def test_prose_streams_through_unchanged():
    text = "Plain answer, with a list:\n- one\n- two\nand a link [x](y) and {set}."
    _, shown, _, starts = run(text, 1)
    assert shown == text and starts == []


def test_prose_is_not_delayed_to_the_end():
    s = TextStream(ALL)
    out = s.feed("Hello there, this is a long sentence ")
    assert "".join(e.text for e in out).startswith("Hello there")


def test_hermes_call_held_and_announced():
    text = 'Checking.\n<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>'
    _, shown, _, starts = run(text, 2)
    assert shown.strip() == "Checking." and "<tool_call>" not in shown
    assert starts == [(0, "get_weather")]


def test_name_announced_before_arguments_finish():
    s = TextStream(ALL)
    events = s.feed('<tool_call>\n{"name": "write_file", "arguments": {"content": "')
    assert [(e.kind, e.name) for e in events] == [(StreamKind.TOOL_START, "write_file")]


def test_thinking_events():
    _, shown, thought, _ = run("<think>step one</think>The answer is 4.", 2)
    assert thought == "step one" and shown == "The answer is 4."


def test_code_fence_released_when_not_a_call():
    text = "Code:\n```python\nprint({'a': 1})\n```\nDone."
    _, shown, _, starts = run(text, 4)
    assert shown == text and starts == []


def test_json_fence_call_dropped_from_text():
    text = 'Sure.\n```json\n{"name": "read_file", "arguments": {"path": "a"}}\n```\nDone.'
    _, shown, _, starts = run(text, 5)
    assert "read_file" not in shown and starts == [(0, "read_file")]
    assert shown.startswith("Sure.") and shown.endswith("Done.")


def test_partial_marker_held_at_chunk_end():
    s = TextStream(ALL)
    first = "".join(e.text for e in s.feed("Calling now <tool_ca"))
    assert "<tool_ca" not in first


def test_parallel_calls_indexed():
    text = "".join(f'<tool_call>{{"name": "f{i}", "arguments": {{}}}}</tool_call>' for i in range(3))
    _, _, _, starts = run(text, 7)
    assert starts == [(0, "f0"), (1, "f1"), (2, "f2")]


def test_parsers_limit_what_is_held():
    text = '<tool_call>{"name": "x", "arguments": {}}</tool_call>'
    _, shown, _, _ = run(text, 4, parsers=("mistral",))
    assert shown == text


def test_linear_cost_on_long_streams(work):
    def stream(n):
        body = "word " * n
        s = TextStream(ALL)
        s.feed('<tool_call>{"name": "write_file", "arguments": {"content": "')
        for i in range(0, len(body), 16):
            s.feed(body[i:i + 16])
        s.feed('"}}</tool_call>')
        s.flush()

    work.assert_linear(stream, 5_000)  # 4x the input: linear, not quadratic (16x)


def test_kimi_id_shown_before_its_argument_token_still_announces_the_call():
    text = 'get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}<|tool_calls_section_end|>'
    for size in (1, 2, 5, len(text)):
        _, shown, _, starts = run(text, size)
        assert "<|tool_call_argument_begin|>" not in shown and '"Oslo"' not in shown
        assert starts == [(0, "get_weather")]


def test_a_long_line_before_an_argument_token_is_not_a_call_id():
    text = "x" * 200 + ' get_weather:0<|tool_call_argument_begin|>{"city": "Oslo"}'
    _, shown, _, starts = run(text, 7)
    assert starts == [] and shown == text


def test_pythonic_list_split_across_uneven_deltas_is_one_region():
    """The bracket scanner reads each delta from its start: a delta shorter than the previous one
    used to be skipped, closing the region at a nested `}` and showing the call as text."""
    text = ('[get_weather(city="San Francisco", metric="celsius"), register_user(name="John Doe", age=37, '
            'address={"city": "San Francisco", "state": "CA"}, role=None, aliases=["John", "Johnny"])]')
    sizes = [1] * 11 + [9] + [15] * 7 + [16]
    s = TextStream(ALL)
    events, i, k = [], 0, 0
    while i < len(text):
        events += s.feed(text[i:i + sizes[k % len(sizes)]])
        i += sizes[k % len(sizes)]
        k += 1
    events += s.flush()
    shown = "".join(e.text for e in events if e.kind is StreamKind.TEXT)
    assert "get_weather(" not in shown
    assert [e.name for e in events if e.kind is StreamKind.TOOL_START] == ["get_weather", "register_user"]


def test_thousands_of_fences_in_one_delta_do_not_nest_calls():
    """A closed region hands the rest back to the caller's loop: no recursion per region."""
    text = "```\n" * 3000 + "done"
    _, shown, _, starts = run(text, len(text))
    assert shown == text and starts == []
