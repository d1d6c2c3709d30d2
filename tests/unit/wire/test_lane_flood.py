"""A lane reads no more than MAX_CALLS calls of a flood (issue 29: bounded work on hostile replies).

The pipeline declines a lane's answer of MAX_CALLS calls or more (the full path keeps the first
MAX_CALLS and reports the rest), so a lane that read a whole megabyte of calls before being
declined made the full path's reading come second: the reply was read twice. Counted, not timed:
the calls each lane builds are counted through the module's Candidate."""

from __future__ import annotations

import importlib

import pytest

from agentcli.wire.dialects._base import MAX_CALLS
from agentcli.wire.pipeline import parse_text
from agentcli.wire.types import Candidate, ParseContext

_V3 = ("<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{\"city\": \"Paris\"}\n```"
       "<｜tool▁call▁end｜>")
_V31 = "<｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{\"city\": \"Paris\"}<｜tool▁call▁end｜>"
_INTERN = "<|action_start|><|plugin|>{\"name\": \"get_weather\", \"parameters\": {\"city\": \"Paris\"}}<|action_end|>"
_K3_CALL = ('<|open|>call tool="get_weather" index="1"<|sep|><|open|>argument key="city" type="string"<|sep|>'
            "Paris<|close|>argument<|sep|><|close|>call<|sep|>")

# dialect -> (its module, a usual reply of n calls)
FLOODS = {
    "deepseek_v3": ("deepseek", lambda n: "<｜tool▁calls▁begin｜>" + _V3 * n + "<｜tool▁calls▁end｜>"),
    "deepseek_v31": ("deepseek", lambda n: "<｜tool▁calls▁begin｜>" + _V31 * n + "<｜tool▁calls▁end｜>"),
    "internlm2": ("internlm2", lambda n: _INTERN * n),
    "kimi_k3": ("kimi_k3", lambda n: "<|open|>tools<|sep|>" + _K3_CALL * n + "<|close|>tools<|sep|>"),
}


def _counted(monkeypatch: pytest.MonkeyPatch, module: str) -> list[int]:
    made = [0]
    mod = importlib.import_module(f"agentcli.wire.dialects.{module}")

    def counting(*a: object, **kw: object) -> Candidate:
        made[0] += 1
        return Candidate(*a, **kw)  # type: ignore[arg-type]

    for target in (mod, importlib.import_module("agentcli.wire.dialects._scan")):
        if hasattr(target, "Candidate"):
            monkeypatch.setattr(target, "Candidate", counting)
    return made


@pytest.mark.parametrize("dialect", sorted(FLOODS))
def test_a_usual_reply_of_a_few_calls_takes_the_lane(dialect: str) -> None:
    """The flood replies are the lane's own shape: a few of those calls are read by it."""
    from agentcli.wire.dialects import get

    _, flood = FLOODS[dialect]
    got = get(dialect).lane(flood(3))
    assert got is not None and len(got[0]) == 3


@pytest.mark.parametrize("dialect", sorted(FLOODS))
def test_a_lane_stops_reading_a_flood_at_max_calls(dialect: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from agentcli.wire.dialects import get

    module, flood = FLOODS[dialect]
    text = flood(MAX_CALLS * 4)
    made = _counted(monkeypatch, module)
    got = get(dialect).lane(text)
    assert got is None or len(got[0]) >= MAX_CALLS  # declined by the lane or by the pipeline's guard
    assert made[0] <= MAX_CALLS + 1, f"{dialect}'s lane built {made[0]} calls of a flood"


@pytest.mark.parametrize("dialect", sorted(FLOODS))
def test_a_flood_is_still_read_the_full_way(dialect: str) -> None:
    """Declined by the lane, the flood gets the full path's answer: the first MAX_CALLS, reported."""
    _, flood = FLOODS[dialect]
    resp = parse_text(flood(MAX_CALLS + 5), ParseContext.of(), (dialect,))
    assert len(resp.tool_calls) == MAX_CALLS
    assert any(r.kind == "too_many_calls" for r in resp.repairs)
