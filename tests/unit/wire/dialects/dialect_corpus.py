"""Shared loading of the dialect fixture corpus (tests/fixtures/dialects/<name>.json)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentcli.core.types import ParsedResponse

FIXTURES = Path(__file__).resolve().parents[3] / "fixtures" / "dialects"


def load_fixture(name: str) -> dict[str, Any] | None:
    path = FIXTURES / f"{name}.json"
    if not path.exists():
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def all_cases(names: list[str]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for name in names:
        data = load_fixture(name)
        for case in (data or {}).get("cases", ()):
            out.append((name, case))
    return out


def expected_calls(case: dict[str, Any]) -> list[tuple[str, Any, bool]]:
    """(name, arguments or None for an error call, is_error) per expected call."""
    return [
        (c["name"], None if c.get("error") else c.get("arguments", {}), bool(c.get("error")))
        for c in case["calls"]
    ]


def found_calls(resp: ParsedResponse) -> list[tuple[str, Any, bool]]:
    return [(c.name, None if c.error else c.arguments, bool(c.error)) for c in resp.tool_calls]


def context(case: dict[str, Any]) -> Any:
    """The parse context of a case: the tools it offers (`tools`: names), which offered-only forms
    (tool-named XML) need before they read any call."""
    from agentcli.core.types import Tool
    from agentcli.wire.types import ParseContext

    return ParseContext.of([Tool(name=n, description="") for n in case.get("tools", ())])
