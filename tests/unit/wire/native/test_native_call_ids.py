"""Call ids and calls per message as history goes back: unique, in the form the template or API
demands, paired with their results, one call per message where the model takes no more.

The servers are the oracle in `make test-real` (Mistral's template raises on ids that are not 9
letters or digits, Llama 3.1's on two calls in a message); these pin the rendering itself for every
API that sends ids back.
"""

from __future__ import annotations

import re

import pytest
from native_data import READ, WEATHER, settings

from agentcli.core.types import Message, Role, ToolCall, ToolResult
from agentcli.models import get_capability
from agentcli.models.capability import CALL_ID_FORMATS
from agentcli.wire import native, negotiate
from agentcli.wire.native._history import _FORMS, CallIds, wire_history
from agentcli.wire.types import WirePlan

S = settings(model="m")
TOOLS = [WEATHER, READ]
NASTY_IDS = ["c1", "call_0", "", "a.b/c d", "x" * 80, "toolu_01A09q90qw90lq917835lq9", "идентификатор", "abcDEF123"]


def turn(*calls: tuple[str, str], answers: list[tuple[str, str]] | None = None) -> list[Message]:
    """An assistant message with (id, tool) calls and its results (in call order unless given)."""
    tcs = [ToolCall(name, {"path": "a"} if name == "read_file" else {"location": "P"}, id=cid) for cid, name in calls]
    answered = answers if answers is not None else list(calls)
    return [Message(Role.ASSISTANT, "", tool_calls=tcs),
            Message.results([ToolResult(cid, name, True, f"{name} said {i}") for i, (cid, name) in enumerate(answered)])]


def conversation(*turns: list[Message]) -> list[Message]:
    out = [Message.user("go")]
    for t in turns:
        out += t
    return out + [Message(Role.ASSISTANT, "done")]


def openai_pairs(body: dict) -> tuple[list[tuple[str, str]], dict[str, str]]:
    """(call id, tool name) in order, and result id -> result text."""
    calls = [(c["id"], c["function"]["name"]) for m in body["messages"] if m["role"] == "assistant"
             for c in m.get("tool_calls", [])]
    results = {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    return calls, results


def anthropic_pairs(body: dict) -> tuple[list[tuple[str, str]], dict[str, str]]:
    blocks = [b for m in body["messages"] for b in m["content"]]
    calls = [(b["id"], b["name"]) for b in blocks if b["type"] == "tool_use"]
    results = {b["tool_use_id"]: b.get("content", "") for b in blocks if b["type"] == "tool_result"}
    return calls, results


PAIRS = {"openai": openai_pairs, "anthropic": anthropic_pairs}
FORM_RE = {"any": re.compile(r"^[A-Za-z0-9_-]{1,40}$"), "alnum9": re.compile(r"^[A-Za-z0-9]{9}$")}


def test_every_declared_format_has_a_mapping():
    assert set(CALL_ID_FORMATS) == set(_FORMS)
    with pytest.raises(ValueError, match="unknown call id format"):
        CallIds("uuid")


@pytest.mark.parametrize("api", sorted(PAIRS))
@pytest.mark.parametrize("form", CALL_ID_FORMATS)
@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "one-per-message"])
def test_ids_are_unique_in_form_and_paired(api, form, parallel):
    """c1, c2, c1 in one turn, answered out of order; `call_0` again next turn; odd ids after."""
    history = conversation(
        turn(("c1", "get_weather"), ("c2", "read_file"), ("c1", "read_file"),
             answers=[("c1", "read_file"), ("c2", "read_file"), ("c1", "get_weather")]),
        turn(("call_0", "get_weather")),
        turn(("call_0", "read_file")),
        *[turn((cid, "get_weather")) for cid in NASTY_IDS],
    )
    body = native.get(api).build_body(history, TOOLS, WirePlan(api=api, call_ids=form, parallel=parallel), S)
    calls, results = PAIRS[api](body)
    ids = [cid for cid, _ in calls]
    assert len(ids) == 3 + 2 + len(NASTY_IDS) and len(set(ids)) == len(ids), ids
    assert all(FORM_RE[form].match(cid) for cid in ids), ids
    assert set(results) == set(ids)  # every call answered under its own id, no orphan result
    for cid, name in calls:  # each result is the one its call's tool gave
        assert results[cid].startswith(f"{name} said"), (cid, name, results[cid])


@pytest.mark.parametrize("form", CALL_ID_FORMATS)
def test_earlier_turns_render_the_same_on_every_request(form):
    """A pure function of history in order: the prefix of a conversation keeps its ids."""
    first = conversation(turn(("c1", "get_weather"), ("c1", "read_file")))[:-1]
    later = first + turn(("c1", "get_weather")) + [Message(Role.ASSISTANT, "ok")]
    p = WirePlan(api="openai", call_ids=form)
    before = native.get("openai").build_body(first, TOOLS, p, S)["messages"]
    after = native.get("openai").build_body(later, TOOLS, p, S)["messages"]
    assert after[: len(before)] == before


def test_unique_well_formed_ids_are_kept():
    history = conversation(turn(("call_abc", "get_weather"), ("toolu_X1", "read_file")))
    calls, _ = openai_pairs(native.get("openai").build_body(history, TOOLS, WirePlan(api="openai"), S))
    assert [c for c, _ in calls] == ["call_abc", "toolu_X1"]
    history = conversation(turn(("Ab3dE5g7Z", "get_weather")))
    calls, _ = openai_pairs(native.get("openai").build_body(history, TOOLS, WirePlan(api="openai", call_ids="alnum9"), S))
    assert [c for c, _ in calls] == ["Ab3dE5g7Z"]


def test_internal_history_is_not_changed():
    history = conversation(turn(("c1", "get_weather"), ("c1", "read_file")))
    wire_history(history, WirePlan(api="openai", call_ids="alnum9", parallel=False))
    assert [c.id for c in history[1].tool_calls] == ["c1", "c1"] and len(history) == 4


@pytest.mark.parametrize("api", ["openai", "anthropic", "ollama"])
def test_one_call_per_assistant_message_each_followed_by_its_result(api):
    history = conversation(turn(("a", "get_weather"), ("b", "read_file")), turn(("c", "read_file")))
    history[1].text = "Looking."
    body = native.get(api).build_body(history, TOOLS, WirePlan(api=api, parallel=False), S)
    msgs = body["messages"]
    if api == "anthropic":
        shape = [(m["role"], [b["type"] for b in m["content"]]) for m in msgs]
        assert shape == [("user", ["text"]), ("assistant", ["text", "tool_use"]), ("user", ["tool_result"]),
                         ("assistant", ["tool_use"]), ("user", ["tool_result"]), ("assistant", ["tool_use"]),
                         ("user", ["tool_result"]), ("assistant", ["text"])]
        return
    shape = [(m["role"], len(m.get("tool_calls") or [])) for m in msgs]
    assert shape == [("user", 0), ("assistant", 1), ("tool", 0), ("assistant", 1), ("tool", 0), ("assistant", 1),
                     ("tool", 0), ("assistant", 0)]
    assert msgs[1]["content"] == "Looking." and msgs[3]["content"] == ""
    assert [m["content"] for m in msgs if m["role"] == "tool"] == ["get_weather said 0", "read_file said 1",
                                                                   "read_file said 0"]


def test_parallel_plan_keeps_calls_together():
    history = conversation(turn(("a", "get_weather"), ("b", "read_file")))
    msgs = native.get("openai").build_body(history, TOOLS, WirePlan(api="openai"), S)["messages"]
    assert [len(m.get("tool_calls") or []) for m in msgs if m["role"] == "assistant"] == [2, 0]


def test_a_turn_without_its_results_still_splits():
    history = [Message.user("go"), turn(("a", "get_weather"), ("b", "read_file"))[0]]
    msgs = native.get("openai").build_body(history, TOOLS, WirePlan(api="openai", parallel=False), S)["messages"]
    assert [len(m.get("tool_calls") or []) for m in msgs] == [0, 1, 1]


# -- the facts come from the model family, through the plan ------------------------------------

class _Tools:
    tool_format = None
    definition_format = "auto"
    call_parser = "auto"
    result_format = "auto"
    strict = None
    tool_choice = "auto"
    parallel = True


@pytest.mark.parametrize(("model", "form", "parallel"), [
    ("mistralai/Mistral-7B-Instruct-v0.3", "alnum9", False),
    ("mistral-large-latest", "alnum9", True),
    ("mixtral-8x22b-instruct", "alnum9", False),
    ("meta-llama/Llama-3.1-8B-Instruct", "any", False),
    ("llama3.3:70b", "any", False),
    ("qwen2.5:7b", "any", True),
    ("gpt-4o", "any", True),
    ("claude-sonnet-4-5", "any", True),
])
def test_the_family_declares_the_id_form_and_parallel_calls(model, form, parallel):
    cap = get_capability(model)
    assert (cap.call_id_format, cap.parallel_tools) == (form, parallel)
    p = negotiate(api="openai", capability=cap, tools_cfg=_Tools())
    assert (p.call_ids, p.parallel) == (form, parallel)
    if form != "any":
        assert any("call ids" in note for note in p.notes)
