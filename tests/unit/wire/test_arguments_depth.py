"""Arguments nested past jsonsafe.MAX_DEPTH are refused on every way in: the bounded decode of a
string, a value a dialect decoded itself, and a JSON repair (json_repair reads a thousand levels
that the bounded decode refused). Depth and the way in are generated; the answer depends on the
depth alone."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentcli.core import jsonsafe
from agentcli.core.types import Tool
from agentcli.wire import repair
from agentcli.wire.pipeline import parse_text
from agentcli.wire.types import ParseContext

LIMIT = jsonsafe.MAX_DEPTH
CTX = ParseContext.of([Tool("f", "", {"type": "object", "properties": {"a": {"type": ["object", "array"]}}})])


def nested(depth: int, kinds: list[bool]) -> dict[str, Any]:
    """An object `depth` levels deep: each level below the top a dict or a list (kinds, cycled)."""
    value: Any = 1
    for i in range(depth - 1):
        value = {"k": value} if kinds[i % len(kinds)] else [value, "x"]
    return {"a": value}


def way_in(how: str, value: dict[str, Any]) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, error) of `value` written one way."""
    text = json.dumps(value)
    if how == "string":
        try:
            return repair.decode_arguments(text)[0], None
        except repair.ArgumentError as exc:
            return None, str(exc)
    if how == "decoded":
        try:
            return repair.decode_arguments(json.loads(text))[0], None
        except repair.ArgumentError as exc:
            return None, str(exc)
    if how == "repaired":  # a trailing comma inside: malformed, so the repair reads it
        text = text[:-1] + ", }"
    inner = json.dumps(value["a"])
    reply = {
        "hermes": f'<tool_call>{{"name": "f", "arguments": {text}}}</tool_call>',
        "repaired": f'<tool_call>{{"name": "f", "arguments": {text}}}</tool_call>',
        "deepseek": ("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>f\n```json\n" + text
                     + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>"),
        # a parameter's text decoded as JSON, or repaired (a trailing comma), or escaped
        "xml": f"<tool_call>\n<function=f>\n<parameter=a>\n{inner}\n</parameter>\n</function>\n</tool_call>",
        "xml_repaired": f"<tool_call>\n<function=f>\n<parameter=a>\n{inner[:-1]}, {inner[-1]}\n</parameter>\n</function>\n</tool_call>",
        "xml_escaped": ("<tool_call>\n<function=f>\n<parameter=a>\n" + json.dumps(inner)[1:-1]
                        + "\n</parameter>\n</function>\n</tool_call>"),
    }[how]
    calls = parse_text(reply, CTX).tool_calls
    assert len(calls) == 1
    return (None, calls[0].error) if calls[0].error else (calls[0].arguments, None)


WAYS = ["string", "decoded", "hermes", "deepseek", "repaired"]
TEXT_WAYS = ["xml", "xml_repaired", "xml_escaped"]  # a parameter's text: decoded, or kept as text when it cannot be


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(depth=st.integers(2, 3 * LIMIT), kinds=st.lists(st.booleans(), min_size=1, max_size=4),
       how=st.sampled_from(WAYS))
def test_arguments_past_the_depth_limit_are_refused_every_way_in(depth: int, kinds: list[bool], how: str) -> None:
    value = nested(depth, kinds)
    args, error = way_in(how, value)
    if depth > LIMIT:
        assert args is None and error is not None and f"nested deeper than {LIMIT} levels" in error
    else:
        assert error is None and args == value


@pytest.mark.parametrize("how", WAYS)
@pytest.mark.parametrize("depth", [LIMIT, LIMIT + 1])
def test_the_depth_limit_is_exact(how: str, depth: int) -> None:
    args, error = way_in(how, nested(depth, [True, False]))
    assert (error is None) == (depth <= LIMIT)


def test_a_deep_infinity_is_still_refused_as_a_number() -> None:
    with pytest.raises(repair.ArgumentError, match="infinite or NaN"):
        repair.decode_arguments({"a": [{"b": [1, float("inf")]}]})


@pytest.mark.parametrize("depth", [LIMIT + 1, 3 * LIMIT])
def test_well_formed_but_too_deep_is_no_repair(depth: int) -> None:
    """Counted work: a document refused for depth alone spends none of the reply's repair allowance
    (no repair flattens it) and reports no repair."""
    budget = repair.RepairBudget()
    left = budget.left
    with pytest.raises(repair.ArgumentError, match="nested deeper than") as caught:
        repair.decode_arguments(json.dumps(nested(depth, [True])), budget=budget)
    assert budget.left == left and "repair" not in str(caught.value)


@settings(max_examples=120, deadline=None, suppress_health_check=list(HealthCheck))
@given(depth=st.integers(2, 3 * LIMIT), kinds=st.lists(st.booleans(), min_size=1, max_size=4),
       how=st.sampled_from(TEXT_WAYS))
def test_a_parameter_decoded_from_its_text_is_bounded_too(depth: int, kinds: list[bool], how: str) -> None:
    """A parameter written as text (XML forms) is decoded after the arguments were: past the limit it
    is refused or kept as the text it was, never handed on nested deeper."""
    value = nested(depth, kinds)
    args, error = way_in(how, value)
    if depth <= LIMIT:
        assert error is None and args == value
    else:
        assert error is not None or (args is not None and isinstance(args["a"], str))
