"""OpenAI Responses output items (parse only)."""

from __future__ import annotations

import pytest
from native_data import load

from agentcli.core.events import StreamKind
from agentcli.core.types import Usage
from agentcli.wire import native
from agentcli.wire.types import NativeParse

API = native.get("openai_responses")
FX = load("openai_responses")


def test_function_call_item_uses_call_id():
    p = API.parse_body(FX["function_call"])
    [c] = p.candidates
    assert (c.name, c.id, c.dialect) == ("get_current_weather", "call_unLAR8MvFNptuiZK6K6HCy5k",
                                         "native_openai_responses")
    assert c.arguments == '{"location":"Boston, MA","unit":"celsius"}'
    assert p.thinking == "Need weather for Paris."
    assert p.provider_data["openai_responses"]["reasoning"][0]["encrypted_content"] == "gAAAAABo..."
    assert (p.finish_reason, p.usage) == ("tool_calls", Usage(291, 23))


def test_text_and_incomplete():
    assert API.parse_body(FX["text"]).text.startswith("In a peaceful grove")
    assert API.parse_body(FX["incomplete"]).finish_reason == "length"


def test_requests_are_not_built_here():
    with pytest.raises(NotImplementedError):
        API.build_body([], [], None, None)  # type: ignore[arg-type]


@pytest.mark.parametrize("body", [{}, {"output": [None, {"type": "function_call"}]}, None, {"status": "failed"}])
def test_odd_bodies_never_raise(body):
    assert isinstance(API.parse_body(body), NativeParse)  # type: ignore[arg-type]


def test_stream_without_completed_event_rebuilds_items():
    s = API.new_stream()
    events = [e for ev in FX["stream_call"] for e in s.feed(ev)]
    assert [e.kind for e in events] == [StreamKind.TOOL_START, StreamKind.TOOL_ARGS, StreamKind.TOOL_ARGS]
    assert events[-1].arguments == {"location": "Paris"}
    [c] = s.finish().candidates
    assert (c.id, c.arguments) == ("call_s1", '{"location": "Paris"}')
